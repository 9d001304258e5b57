#include "frugal/spot/trace.h"

#include <algorithm>
#include <ctime>
#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "frugal/core/atomic_file.h"
#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::spot {
namespace {

// "line:column" of a byte offset in `text` (both 1-based).
std::string LineColumn(const std::string& text, size_t offset) {
  int line = 1;
  int column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return std::to_string(line) + ":" + std::to_string(column);
}

// Offset of the `index`-th element of the top-level "data" array, for error locations.
size_t DataElementOffset(const std::string& text, size_t index) {
  size_t pos = text.find("\"data\"");
  if (pos == std::string::npos) return 0;
  pos = text.find('[', pos);
  if (pos == std::string::npos) return 0;
  ++pos;
  for (size_t seen = 0; pos < text.size(); ++pos) {
    if (text[pos] == ',') {
      ++seen;
      continue;
    }
    if (seen == index && text[pos] != ' ' && text[pos] != '\n' && text[pos] != '\t') return pos;
  }
  return pos;
}

// Parses an ISO 8601 UTC timestamp ("2022-10-26T00:10:00Z", seconds optional) or unix seconds.
std::optional<int64_t> ParseTimestamp(std::string_view text) {
  if (auto seconds = ParseInt(text)) return *seconds;
  std::tm tm{};
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  std::string copy(text);
  int n = std::sscanf(copy.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &year, &month, &day, &hour,
                      &minute, &second);
  if (n < 5) n = std::sscanf(copy.c_str(), "%4d-%2d-%2d %2d:%2d:%2d", &year, &month, &day, &hour,
                             &minute, &second);
  if (n < 5 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 ||
      second > 60) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  return static_cast<int64_t>(timegm(&tm));
}

std::string Stem(const std::string& source) {
  return std::filesystem::path(source).stem().string();
}

}  // namespace

Result<Trace> ParseJsonTrace(const std::string& text, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Fail(ErrorCode::kBadInput, source + ":" + LineColumn(text, e.byte > 0 ? e.byte - 1 : 0) +
                                          ": not valid JSON");
  }
  Trace trace;
  trace.name = Stem(source);
  if (!doc.is_object()) return Fail(ErrorCode::kBadInput, source + ":1:1: expected a JSON object");
  if (doc.contains("metadata")) {
    const auto& meta = doc["metadata"];
    if (!meta.is_object() || !meta.contains("gap_seconds") || !meta["gap_seconds"].is_number() ||
        meta["gap_seconds"].get<double>() < 1) {
      size_t at = text.find("\"metadata\"");
      return Fail(ErrorCode::kBadInput,
                  source + ":" + LineColumn(text, at == std::string::npos ? 0 : at) +
                      ": field 'metadata.gap_seconds': expected a positive number of seconds");
    }
    trace.gap_seconds = static_cast<int>(meta["gap_seconds"].get<double>());
  }
  if (!doc.contains("data") || !doc["data"].is_array() || doc["data"].empty()) {
    return Fail(ErrorCode::kBadInput,
                source + ":1:1: field 'data': expected a non-empty array of launchable counts");
  }
  const auto& data = doc["data"];
  trace.launchable.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const auto& v = data[i];
    if (!v.is_number_integer() || v.get<int64_t>() < 0) {
      return Fail(ErrorCode::kBadInput, source + ":" + LineColumn(text, DataElementOffset(text, i)) +
                                            ": field 'data[" + std::to_string(i) +
                                            "]': expected a count ≥ 0, got " + v.dump());
    }
    trace.launchable.push_back(static_cast<int>(v.get<int64_t>()));
  }
  return trace;
}

Result<Trace> ParseCsvTrace(const std::string& text, const std::string& source,
                            int tick_seconds) {
  CsvTable table = FRUGAL_TRY(CsvTable::Parse(text, source));
  std::optional<size_t> time_column = table.Column("timestamp");
  const bool by_tick = !time_column.has_value();
  if (by_tick) time_column = table.Column("tick");
  if (!time_column) {
    return Fail(ErrorCode::kBadInput,
                source + ":1:1: missing column 'timestamp' or 'tick' (header: "
                         "timestamp_or_tick,available[,spot_price,on_demand_price])");
  }
  size_t available_column = FRUGAL_TRY(table.RequireColumn("available"));
  std::optional<size_t> spot_column = table.Column("spot_price");
  std::optional<size_t> od_column = table.Column("on_demand_price");
  if (spot_column.has_value() != od_column.has_value()) {
    return Fail(ErrorCode::kBadInput, source +
                                          ":1:1: columns 'spot_price' and 'on_demand_price' "
                                          "come together");
  }
  if (table.rows().empty()) return Fail(ErrorCode::kBadInput, source + ": no data rows");
  Trace trace;
  trace.name = Stem(source);
  trace.gap_seconds = tick_seconds;
  std::optional<int64_t> previous;
  for (const CsvRecord& row : table.rows()) {
    const std::string& time_text = CsvTable::Field(row, *time_column);
    std::optional<int64_t> time =
        by_tick ? [&]() -> std::optional<int64_t> {
          auto v = ParseInt(Trim(time_text));
          return v ? std::optional<int64_t>(*v) : std::nullopt;
        }()
                : ParseTimestamp(Trim(time_text));
    const char* time_field = by_tick ? "tick" : "timestamp";
    if (!time) {
      return Fail(ErrorCode::kBadInput, table.Where(row, *time_column) + ": field '" + time_field +
                                            "': cannot read '" + time_text + "'");
    }
    if (previous) {
      int64_t gap = *time - *previous;
      int64_t expected = by_tick ? 1 : (trace.launchable.size() == 1 ? gap : trace.gap_seconds);
      if (gap <= 0 || gap != expected) {
        return Fail(ErrorCode::kBadInput, table.Where(row, *time_column) + ": field '" +
                                              time_field + "': rows must be evenly spaced and "
                                              "increasing");
      }
      if (!by_tick) trace.gap_seconds = static_cast<int>(gap);
    }
    previous = time;
    auto count = ParseInt(Trim(CsvTable::Field(row, available_column)));
    if (!count || *count < 0) {
      return Fail(ErrorCode::kBadInput, table.Where(row, available_column) +
                                            ": field 'available': expected a count ≥ 0, got '" +
                                            CsvTable::Field(row, available_column) + "'");
    }
    trace.launchable.push_back(static_cast<int>(*count));
    if (spot_column) {
      for (auto [column, name, out] :
           {std::tuple{*spot_column, "spot_price", &trace.spot_price},
            std::tuple{*od_column, "on_demand_price", &trace.on_demand_price}}) {
        auto price = ParseDouble(Trim(CsvTable::Field(row, column)));
        if (!price || *price <= 0) {
          return Fail(ErrorCode::kBadInput, table.Where(row, column) + ": field '" + name +
                                                "': expected a positive price in $/h, got '" +
                                                CsvTable::Field(row, column) + "'");
        }
        out->push_back(*price);
      }
    }
  }
  if (trace.launchable.size() == 1 && !by_tick) trace.gap_seconds = tick_seconds;
  return trace;
}

Result<Trace> LoadTrace(const std::filesystem::path& path, int tick_seconds) {
  std::string text = FRUGAL_TRY(ReadFile(path));
  std::string ext = ToLower(path.extension().string());
  if (ext == ".json") return ParseJsonTrace(text, path.string());
  if (ext == ".csv") return ParseCsvTrace(text, path.string(), tick_seconds);
  return Fail(ErrorCode::kBadInput,
              path.string() + ": unknown trace format (expected .json or .csv)");
}

Result<void> AttachPriceSeries(const std::filesystem::path& path, Trace& trace) {
  CsvTable table = FRUGAL_TRY(CsvTable::Load(path));
  const size_t spot_column = FRUGAL_TRY(table.RequireColumn("spot_price"));
  const size_t od_column = FRUGAL_TRY(table.RequireColumn("on_demand_price"));
  if (table.rows().size() < trace.launchable.size()) {
    return Fail(ErrorCode::kBadInput, path.string() + ": " + std::to_string(table.rows().size()) +
                                          " price rows for a trace of " +
                                          std::to_string(trace.ticks()) + " ticks ('" +
                                          trace.name + "')");
  }
  std::vector<double> spot, od;
  for (size_t i = 0; i < trace.launchable.size(); ++i) {
    const CsvRecord& row = table.rows()[i];
    for (auto [column, name, out] : {std::tuple{spot_column, "spot_price", &spot},
                                     std::tuple{od_column, "on_demand_price", &od}}) {
      auto price = ParseDouble(Trim(CsvTable::Field(row, column)));
      if (!price || *price <= 0) {
        return Fail(ErrorCode::kBadInput, table.Where(row, column) + ": field '" + name +
                                              "': expected a positive price in $/h, got '" +
                                              CsvTable::Field(row, column) + "'");
      }
      out->push_back(*price);
    }
  }
  trace.spot_price = std::move(spot);
  trace.on_demand_price = std::move(od);
  return {};
}

std::vector<uint8_t> GangAvailability(const Trace& trace, int gang) {
  std::vector<uint8_t> available(trace.launchable.size());
  for (size_t i = 0; i < available.size(); ++i) {
    available[i] = trace.launchable[i] >= gang ? 1 : 0;
  }
  return available;
}

double AvailableShare(const std::vector<uint8_t>& available, int begin, int end) {
  begin = std::max(begin, 0);
  end = std::min(end, static_cast<int>(available.size()));
  if (end <= begin) return 0;
  int up = 0;
  for (int i = begin; i < end; ++i) up += available[static_cast<size_t>(i)];
  return static_cast<double>(up) / (end - begin);
}

}  // namespace frugal::spot

#include "frugal/spot/trace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>
#include <string_view>

#include "frugal/core/atomic_file.h"
#include "frugal/core/csv.h"
#include "frugal/core/text.h"
#include "frugal/core/timestamp.h"

namespace frugal::spot {
namespace {

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

// Unix seconds, or an ISO 8601 UTC time ("2022-10-26T00:10:00Z", seconds optional) in seconds.
std::optional<int64_t> ParseTimestamp(std::string_view text) {
  if (auto seconds = ParseInt(text)) return *seconds;
  const Result<Timestamp> at = ParseIsoTime(text);
  if (!at) return std::nullopt;
  return std::chrono::floor<std::chrono::seconds>(*at).time_since_epoch().count();
}

// A positive price in $/h from a CSV field; kBadInput names the field's place.
Result<double> ReadPrice(const CsvTable& table, const CsvRecord& row, size_t column,
                         const char* name) {
  auto price = ParseDouble(Trim(CsvTable::Field(row, column)));
  if (!price || *price <= 0) {
    return Fail(ErrorCode::kBadInput, table.Where(row, column) + ": field '" + name +
                                          "': expected a positive price in $/h, got '" +
                                          CsvTable::Field(row, column) + "'");
  }
  return *price;
}

// The tick number or timestamp (seconds) of a CSV row.
Result<int64_t> ReadTime(const CsvTable& table, const CsvRecord& row, size_t column, bool by_tick) {
  const std::string& text = CsvTable::Field(row, column);
  std::optional<int64_t> time;
  if (by_tick) {
    if (auto v = ParseInt(Trim(text))) time = *v;
  } else {
    time = ParseTimestamp(Trim(text));
  }
  if (!time) {
    return Fail(ErrorCode::kBadInput, table.Where(row, column) + ": field '" +
                                          (by_tick ? "tick" : "timestamp") + "': cannot read '" +
                                          text + "'");
  }
  return *time;
}

std::string Stem(const std::string& source) {
  return std::filesystem::path(source).stem().string();
}

}  // namespace

Result<TraceFormat> ParseTraceFormat(std::string_view text) {
  if (text == "auto") return TraceFormat::kAuto;
  if (text == "launchable" || text == "spot-traces") return TraceFormat::kLaunchable;
  if (text == "unavailable" || text == "skynomad") return TraceFormat::kUnavailable;
  return Fail(ErrorCode::kBadInput,
              fmt::format("--trace-format: '{}' is not auto, launchable (spot-traces: data count "
                          "launchable instances) or unavailable (SkyNomad: 1 = unavailable)",
                          Abbreviate(text)));
}

namespace {

/// The tick length of metadata.gap_seconds: a whole number of seconds in [1, kMaxTickSeconds].
Result<int> ReadGapSeconds(const nlohmann::json& meta, const std::string& text,
                           const std::string& source) {
  const size_t at = text.find("\"gap_seconds\"");
  const std::string where =
      source + ":" + LineColumnAt(text, at != std::string::npos ? at : text.find("\"metadata\""));
  if (!meta.is_object() || !meta.contains("gap_seconds") || !meta["gap_seconds"].is_number()) {
    return Fail(ErrorCode::kBadInput,
                where + ": field 'metadata.gap_seconds': expected a positive number of seconds");
  }
  const double gap = meta["gap_seconds"].get<double>();
  if (!(gap >= 1) || gap != std::floor(gap) || gap > static_cast<double>(kMaxTickSeconds)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field 'metadata.gap_seconds': {} is not a whole number of "
                            "seconds from 1 to {} (one day): the simulator steps through every "
                            "minute of a trace, so a longer tick describes no spot market it "
                            "could follow",
                            where, meta["gap_seconds"].dump(), kMaxTickSeconds));
  }
  return static_cast<int>(gap);
}

/// Whether the document is laid out exactly as the public spot-traces files are.
bool IsSpotTracesLayout(const nlohmann::json& doc) {
  for (const auto& [key, value] : doc.items()) {
    if (key != "metadata" && key != "data") return false;
  }
  if (!doc.contains("metadata")) return true;
  const auto& meta = doc["metadata"];
  return meta.size() == 1 && meta.contains("gap_seconds");
}

Result<void> CheckTraceSpan(const Trace& trace, const std::string& source) {
  const auto seconds = static_cast<int64_t>(trace.launchable.size()) * trace.gap_seconds;
  if (seconds > kMaxTraceSeconds) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field 'data': {} ticks of {} s span {} days; frugal simulates "
                            "traces of at most {} days",
                            source, trace.launchable.size(), trace.gap_seconds, seconds / 86'400,
                            kMaxTraceSeconds / 86'400));
  }
  return {};
}

/// The columns of a CSV trace: its time (a timestamp, or a tick when there is none), the
/// launchable count, and the two prices, which come together or not at all.
struct CsvTraceColumns {
  size_t time = 0;
  bool by_tick = false;
  size_t available = 0;
  std::optional<size_t> spot_price;
  std::optional<size_t> on_demand_price;
};

Result<CsvTraceColumns> FindCsvTraceColumns(const CsvTable& table, const std::string& source) {
  CsvTraceColumns columns;
  std::optional<size_t> time_column = table.Column("timestamp");
  columns.by_tick = !time_column.has_value();
  if (columns.by_tick) time_column = table.Column("tick");
  if (!time_column) {
    return Fail(ErrorCode::kBadInput,
                source +
                    ":1:1: missing column 'timestamp' or 'tick' (header: "
                    "timestamp_or_tick,available[,spot_price,on_demand_price])");
  }
  columns.time = *time_column;
  columns.available = FRUGAL_TRY(table.RequireColumn("available"));
  columns.spot_price = table.Column("spot_price");
  columns.on_demand_price = table.Column("on_demand_price");
  if (columns.spot_price.has_value() != columns.on_demand_price.has_value()) {
    return Fail(ErrorCode::kBadInput, source +
                                          ":1:1: columns 'spot_price' and 'on_demand_price' "
                                          "come together");
  }
  return columns;
}

/// Checks that `row` is `gap` after the row before it, as evenly spaced as the rows read so
/// far; the first gap between timestamps sets the trace's gap_seconds.
Result<void> CheckRowSpacing(const CsvTable& table, const CsvRecord& row,
                             const CsvTraceColumns& columns, int64_t gap, Trace& trace) {
  const bool by_tick = columns.by_tick;
  int64_t expected = by_tick ? 1 : (trace.launchable.size() == 1 ? gap : trace.gap_seconds);
  if (gap <= 0 || gap != expected) {
    return Fail(ErrorCode::kBadInput, table.Where(row, columns.time) + ": field '" +
                                          (by_tick ? "tick" : "timestamp") +
                                          "': rows must be evenly spaced and increasing");
  }
  if (by_tick) return {};
  if (gap > kMaxTickSeconds) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field 'timestamp': rows {} s apart; frugal simulates "
                            "ticks of at most {} s (one day)",
                            table.Where(row, columns.time), gap, kMaxTickSeconds));
  }
  trace.gap_seconds = static_cast<int>(gap);
  return {};
}

Result<int> ReadAvailable(const CsvTable& table, const CsvRecord& row, size_t column) {
  auto count = ParseInt(Trim(CsvTable::Field(row, column)));
  if (!count || *count < 0 || *count > kMaxLaunchable) {
    return Fail(ErrorCode::kBadInput, table.Where(row, column) +
                                          ": field 'available': expected a count from 0 to " +
                                          std::to_string(kMaxLaunchable) + ", got '" +
                                          Abbreviate(CsvTable::Field(row, column)) + "'");
  }
  return static_cast<int>(*count);
}

/// The JSON document of `text`; kBadInput naming the line and column where it is not JSON.
Result<nlohmann::json> ParseTraceJson(const std::string& text, const std::string& source) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return Fail(
        ErrorCode::kBadInput,
        source + ":" + LineColumnAt(text, e.byte > 0 ? e.byte - 1 : 0) + ": not valid JSON");
  } catch (const nlohmann::json::exception& e) {
    // A number past a double's range ("1e411") is out_of_range, which carries no position:
    // the number is found in the text instead.
    const std::string what = e.what();
    const size_t quote = what.find("parsing '");
    const std::string number = quote == std::string::npos
                                   ? ""
                                   : what.substr(quote + 9, what.find('\'', quote + 9) - quote - 9);
    const size_t at = number.empty() ? std::string::npos : text.find(number);
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}:{}: not valid JSON: number {} is out of range", source,
                    LineColumnAt(text, at == std::string::npos ? 0 : at), Abbreviate(number)));
  }
}

/// `data`'s values as launchable counts (or, for kUnavailable, 0/1 flags as they are); whether
/// any is above 1 (only launchable counts have those) goes to `counts`.
Result<std::vector<int>> ReadDataValues(const nlohmann::json& data, const std::string& text,
                                        const std::string& source, TraceFormat format,
                                        bool& counts) {
  std::vector<int> values;
  values.reserve(data.size());
  for (size_t i = 0; i < data.size(); ++i) {
    const auto& v = data[i];
    const bool flag_ok =
        format != TraceFormat::kUnavailable || (v.is_number_integer() && v.get<int64_t>() <= 1);
    if (!v.is_number_integer() || v.get<int64_t>() < 0 || v.get<int64_t>() > kMaxLaunchable ||
        !flag_ok) {
      return Fail(ErrorCode::kBadInput,
                  source + ":" + LineColumnAt(text, DataElementOffset(text, i)) + ": field 'data[" +
                      std::to_string(i) + "]': expected " +
                      (format == TraceFormat::kUnavailable
                           ? std::string("0 (available) or 1 (unavailable)")
                           : fmt::format("a count from 0 to {}", kMaxLaunchable)) +
                      ", got " + Abbreviate(v.dump()));
    }
    counts = counts || v.get<int64_t>() > 1;
    values.push_back(static_cast<int>(v.get<int64_t>()));
  }
  return values;
}

}  // namespace

Result<Trace> ParseJsonTrace(const std::string& text, const std::string& source,
                             TraceFormat format) {
  FRUGAL_TRY(RequireUtf8(text, source));
  const nlohmann::json doc = FRUGAL_TRY(ParseTraceJson(text, source));
  Trace trace;
  trace.name = Stem(source);
  trace.source = source;
  if (!doc.is_object()) return Fail(ErrorCode::kBadInput, source + ":1:1: expected a JSON object");
  if (doc.contains("metadata")) {
    trace.gap_seconds = FRUGAL_TRY(ReadGapSeconds(doc["metadata"], text, source));
  }
  if (!doc.contains("data") || !doc["data"].is_array() || doc["data"].empty()) {
    return Fail(ErrorCode::kBadInput,
                source + ":1:1: field 'data': expected a non-empty array of launchable counts");
  }
  bool counts = false;
  trace.launchable = FRUGAL_TRY(ReadDataValues(doc["data"], text, source, format, counts));
  if (format == TraceFormat::kAuto && !counts && !IsSpotTracesLayout(doc)) {
    return Fail(ErrorCode::kBadInput,
                source +
                    ":1:1: field 'data': cannot tell what 1 means in this trace: spot-traces "
                    "files count launchable instances (1 = available), SkyNomad's traces "
                    "flag preemptions (1 = unavailable); say --trace-format launchable or "
                    "--trace-format unavailable");
  }
  if (format == TraceFormat::kUnavailable) {
    for (int& v : trace.launchable) v = 1 - v;
  }
  FRUGAL_TRY(CheckTraceSpan(trace, source));
  return trace;
}

Result<Trace> ParseCsvTrace(const std::string& text, const std::string& source, int tick_seconds) {
  CsvTable table = FRUGAL_TRY(CsvTable::Parse(text, source));
  const CsvTraceColumns columns = FRUGAL_TRY(FindCsvTraceColumns(table, source));
  if (table.rows().empty()) return Fail(ErrorCode::kBadInput, source + ": no data rows");
  Trace trace;
  trace.name = Stem(source);
  trace.source = source;
  trace.gap_seconds = tick_seconds;
  std::optional<int64_t> previous;
  for (const CsvRecord& row : table.rows()) {
    const int64_t time = FRUGAL_TRY(ReadTime(table, row, columns.time, columns.by_tick));
    if (previous) FRUGAL_TRY(CheckRowSpacing(table, row, columns, time - *previous, trace));
    previous = time;
    trace.launchable.push_back(FRUGAL_TRY(ReadAvailable(table, row, columns.available)));
    if (columns.spot_price) {
      trace.spot_price.push_back(
          FRUGAL_TRY(ReadPrice(table, row, *columns.spot_price, "spot_price")));
      trace.on_demand_price.push_back(
          FRUGAL_TRY(ReadPrice(table, row, *columns.on_demand_price, "on_demand_price")));
    }
  }
  if (trace.launchable.size() == 1 && !columns.by_tick) trace.gap_seconds = tick_seconds;
  FRUGAL_TRY(CheckTraceSpan(trace, source));
  return trace;
}

Result<Trace> LoadTrace(const std::filesystem::path& path, int tick_seconds, TraceFormat format) {
  std::string text = FRUGAL_TRY(ReadFile(path));
  std::string ext = ToLower(path.extension().string());
  if (ext == ".json") return ParseJsonTrace(text, path.string(), format);
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
                                          std::to_string(trace.ticks()) + " ticks ('" + trace.name +
                                          "')");
  }
  std::vector<double> spot, od;
  for (size_t i = 0; i < trace.launchable.size(); ++i) {
    const CsvRecord& row = table.rows()[i];
    spot.push_back(FRUGAL_TRY(ReadPrice(table, row, spot_column, "spot_price")));
    od.push_back(FRUGAL_TRY(ReadPrice(table, row, od_column, "on_demand_price")));
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

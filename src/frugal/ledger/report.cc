#include "frugal/ledger/report.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "frugal/core/csv.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/core/timestamp.h"
#include "frugal/ledger/fleet.h"

namespace frugal::ledger {
namespace {

constexpr std::array<std::pair<GroupKey, std::string_view>, 7> kGroupKeys{{
    {GroupKey::kTeam, "team"},
    {GroupKey::kProject, "project"},
    {GroupKey::kOwner, "owner"},
    {GroupKey::kGpu, "gpu"},
    {GroupKey::kTier, "tier"},
    {GroupKey::kCloud, "cloud"},
    {GroupKey::kWorkload, "workload"},
}};

/// The part of [from, to) that overlaps [lo, hi); zero when none.
Duration Overlap(Timestamp from, Timestamp to, Timestamp lo, Timestamp hi) {
  const Timestamp a = std::max(from, lo);
  const Timestamp b = std::min(to, hi);
  return b > a ? std::chrono::duration_cast<Duration>(b - a) : Duration(0);
}

/// Accumulates one group; runs are counted once per group. Segments arrive ordered by run, so
/// a run's segments are adjacent and comparing with the last id seen dedupes.
struct Accumulator {
  ReportRow row;
  Money burn;  ///< spend over the last burn window before now
  std::vector<RunId> runs;
  int64_t successful = 0;
};

using UtilByRun = std::unordered_map<RunId, std::pair<int64_t, double>>;

void Add(Accumulator& acc, const SegmentFact& fact, const ReportOptions& o, Timestamp month_start) {
  const Segment& s = fact.segment;
  const Timestamp end = s.end.value_or(o.now);
  const Timestamp window_end = std::min(o.until, o.now);
  const Duration in_window = Overlap(s.start, end, o.since, window_end);
  const Money spend = s.offer.price.For(in_window);
  acc.row.spend += spend;
  acc.row.gpu_hours += ToHours(in_window) * s.offer.gpu_count;
  if (s.offer.tier == CapacityTier::kSpot) {
    acc.row.spot_spend += spend;
    if (s.offer.on_demand_price) {
      acc.row.spot_savings += s.offer.on_demand_price->For(in_window) - spend;
    }
  }
  acc.row.month_to_date += s.offer.price.For(Overlap(s.start, end, month_start, o.now));
  acc.burn += s.offer.price.For(Overlap(s.start, end, o.now - o.burn_window, o.now));
  if (s.start < o.until && end > o.since && (acc.runs.empty() || acc.runs.back() != s.run_id)) {
    acc.runs.push_back(s.run_id);
    if (fact.run_status == RunStatus::kSucceeded) ++acc.successful;
  }
}

void Finish(Accumulator& acc, const UtilByRun& util, const ReportOptions& o, Timestamp month_end) {
  const Timestamp now = o.now;
  ReportRow& row = acc.row;
  row.runs = static_cast<int64_t>(acc.runs.size());
  row.successful_runs = acc.successful;
  if (row.successful_runs > 0) {
    // Rounded half up to the micro-dollar (spend is never negative).
    row.cost_per_successful_run =
        Money::FromMicros((row.spend.micros() + row.successful_runs / 2) / row.successful_runs);
  }
  int64_t n = 0;
  double sum = 0;
  for (RunId run : acc.runs) {
    auto it = util.find(run);
    if (it == util.end()) continue;
    n += it->second.first;
    sum += it->second.second;
  }
  if (n > 0) row.gpu_util = sum / static_cast<double>(n);
  row.month_forecast = ForecastSpend(row.month_to_date, acc.burn, o.burn_window,
                                     std::chrono::duration_cast<Duration>(month_end - now));
}

Result<UtilByRun> GpuUtilByRun(Connection& db, Timestamp since, Timestamp until) {
  std::vector<Row> rows = FRUGAL_TRY(db.Query(
      "SELECT run_id, SUM(gpu_util_n), SUM(gpu_util_sum) FROM sample_rollup WHERE hour_ms >= ? "
      "AND hour_ms < ? GROUP BY run_id",
      std::vector<Value>{ToMillis(since) / 3'600'000 * 3'600'000, ToMillis(until)}));
  UtilByRun out;
  out.reserve(rows.size());
  for (const Row& r : rows) out[AsInt(r[0])] = {AsInt(r[1]), AsDouble(r[2])};
  return out;
}

std::string Percent(std::optional<double> v) {
  return v ? fmt::format("{:.0f}%", *v) : std::string("-");
}

}  // namespace

std::string_view GroupKeyName(GroupKey k) {
  for (const auto& [key, name] : kGroupKeys) {
    if (key == k) return name;
  }
  return "?";
}

Result<std::vector<GroupKey>> ParseGroupKeys(std::string_view text) {
  std::vector<GroupKey> keys;
  if (Trim(text).empty()) return keys;
  std::vector<std::string> names;
  for (const auto& entry : kGroupKeys) names.emplace_back(entry.second);
  for (const std::string& part : Split(text, ',')) {
    const std::string name = ToLower(Trim(part));
    auto it = std::find_if(kGroupKeys.begin(), kGroupKeys.end(),
                           [&](const auto& e) { return e.second == name; });
    if (it == kGroupKeys.end()) {
      return Fail(ErrorCode::kBadInput, fmt::format("--by: unknown key '{}'{} (keys: team, "
                                                    "project, owner, gpu, tier, cloud, workload)",
                                                    Abbreviate(name), DidYouMean(name, names)));
    }
    if (std::find(keys.begin(), keys.end(), it->first) != keys.end()) {
      return Fail(ErrorCode::kBadInput, fmt::format("--by: '{}' given twice", name));
    }
    keys.push_back(it->first);
  }
  return keys;
}

Money ForecastSpend(Money spent, Money burned, Duration burn_window, Duration left) {
  if (left <= Duration(0) || burn_window <= Duration(0)) return spent;
  return spent + burned.Scaled(ToHours(left) / ToHours(burn_window));
}

Result<Report> BuildReport(Ledger& ledger, const ReportOptions& options) {
  if (options.until <= options.since) {
    return Fail(ErrorCode::kBadInput, "report: --until must be after --since");
  }
  const Timestamp month_start = MonthStart(options.now, 0);
  const Timestamp month_end = MonthStart(options.now, 1);
  if (options.burn_window <= Duration(0)) {
    return Fail(ErrorCode::kBadInput, "report: the burn window must be positive");
  }
  const Timestamp load_from =
      std::min({options.since, month_start, options.now - options.burn_window});
  const Timestamp load_to = std::max(options.until, options.now);
  std::vector<SegmentFact> facts = FRUGAL_TRY(ledger.SegmentsBetween(load_from, load_to));
  const auto util = FRUGAL_TRY(GpuUtilByRun(ledger.connection(), options.since, options.until));

  std::map<std::vector<std::string>, Accumulator> groups;
  Accumulator total;
  for (const SegmentFact& fact : facts) {
    std::vector<std::string> key;
    for (GroupKey k : options.by) key.push_back(GroupValue(fact, k));
    Accumulator& acc = groups[key];
    acc.row.key = key;
    Add(acc, fact, options, month_start);
    Add(total, fact, options, month_start);
  }
  Report report;
  report.options = options;
  for (auto& [key, acc] : groups) {
    Finish(acc, util, options, month_end);
    if (acc.runs.empty()) continue;  // no time in the window; still in the total's forecast
    report.rows.push_back(std::move(acc.row));
  }
  Finish(total, util, options, month_end);
  report.total = std::move(total.row);
  std::stable_sort(report.rows.begin(), report.rows.end(),
                   [](const ReportRow& a, const ReportRow& b) { return a.spend > b.spend; });
  report.billed = FRUGAL_TRY(BuildBilled(ledger, options));
  return report;
}

void WriteReportTable(const Report& report, std::ostream& out) {
  std::vector<Table::Column> columns;
  for (GroupKey k : report.options.by) columns.push_back({std::string(GroupKeyName(k))});
  for (const char* title : {"spend", "gpu_hours", "spot_share", "spot_savings", "runs", "ok",
                            "per_ok_run", "gpu_util", "month_forecast"}) {
    columns.push_back({title, Align::kRight});
  }
  Table table(columns);
  auto add = [&](const ReportRow& row, std::vector<std::string> cells) {
    for (const std::string& v :
         {row.spend.ToString(), fmt::format("{:.1f}", row.gpu_hours),
          fmt::format("{:.0f}%", 100 * row.SpotShare()), row.spot_savings.ToString(),
          std::to_string(row.runs), std::to_string(row.successful_runs),
          row.cost_per_successful_run ? row.cost_per_successful_run->ToString() : std::string("-"),
          Percent(row.gpu_util), row.month_forecast.ToString()}) {
      cells.push_back(v);
    }
    table.AddRow(std::move(cells));
  };
  for (const ReportRow& row : report.rows) add(row, row.key);
  if (!report.options.by.empty()) {
    std::vector<std::string> label(report.options.by.size(), "");
    label[0] = "total";
    add(report.total, label);
  } else if (report.rows.empty()) {
    add(report.total, {});
  }
  out << fmt::format("{} to {}\n", FormatTimestamp(report.options.since),
                     FormatTimestamp(report.options.until));
  table.Render(out);
  WriteBilledTable(report, out);
}

void WriteReportCsv(const Report& report, std::ostream& out) {
  std::vector<std::string> header;
  for (GroupKey k : report.options.by) header.emplace_back(GroupKeyName(k));
  for (const char* h : {"spend_usd", "gpu_hours", "spot_share", "spot_savings_usd", "runs",
                        "successful_runs", "cost_per_successful_run_usd", "gpu_util_percent",
                        "month_to_date_usd", "month_forecast_usd"}) {
    header.emplace_back(h);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i) out << (i ? "," : "") << CsvEscape(cells[i]);
    out << "\n";
  };
  line(header);
  const std::vector<ReportRow> all =
      report.options.by.empty() ? std::vector<ReportRow>{report.total} : report.rows;
  for (const ReportRow& row : all) {
    std::vector<std::string> cells = row.key;
    for (const std::string& v :
         {row.spend.ToPlainString(), fmt::format("{:.4f}", row.gpu_hours),
          fmt::format("{:.4f}", row.SpotShare()), row.spot_savings.ToPlainString(),
          std::to_string(row.runs), std::to_string(row.successful_runs),
          row.cost_per_successful_run ? row.cost_per_successful_run->ToPlainString() : "",
          row.gpu_util ? fmt::format("{:.2f}", *row.gpu_util) : "",
          row.month_to_date.ToPlainString(), row.month_forecast.ToPlainString()}) {
      cells.push_back(v);
    }
    line(cells);
  }
}

nlohmann::json ReportToJson(const Report& report) {
  auto row_json = [&](const ReportRow& row) {
    nlohmann::json j;
    for (size_t i = 0; i < row.key.size(); ++i) {
      j[std::string(GroupKeyName(report.options.by[i]))] = row.key[i];
    }
    j["spend_usd"] = row.spend.ToPlainString();
    j["spend_micros"] = row.spend.micros();
    j["gpu_hours"] = row.gpu_hours;
    j["spot_share"] = row.SpotShare();
    j["spot_savings_usd"] = row.spot_savings.ToPlainString();
    j["runs"] = row.runs;
    j["successful_runs"] = row.successful_runs;
    j["cost_per_successful_run_usd"] =
        row.cost_per_successful_run ? nlohmann::json(row.cost_per_successful_run->ToPlainString())
                                    : nlohmann::json(nullptr);
    j["gpu_util_percent"] = row.gpu_util ? nlohmann::json(*row.gpu_util) : nlohmann::json(nullptr);
    j["month_to_date_usd"] = row.month_to_date.ToPlainString();
    j["month_forecast_usd"] = row.month_forecast.ToPlainString();
    return j;
  };
  nlohmann::json doc;
  doc["since"] = FormatTimestamp(report.options.since);
  doc["until"] = FormatTimestamp(report.options.until);
  nlohmann::json by = nlohmann::json::array();
  for (GroupKey k : report.options.by) by.push_back(GroupKeyName(k));
  doc["by"] = by;
  doc["rows"] = nlohmann::json::array();
  for (const ReportRow& row : report.rows) doc["rows"].push_back(row_json(row));
  doc["total"] = row_json(report.total);
  doc["billed"] = BilledToJson(report);
  return doc;
}

}  // namespace frugal::ledger

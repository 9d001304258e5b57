// The imported bills beside a report: FOCUS rows (billing_rows) in the report's window, grouped
// like the measured spend but never added to it.

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/ledger/report.h"

namespace frugal::ledger {
namespace {

__extension__ typedef __int128 Int128;  // BilledCost × milliseconds overflows 64 bits

/// One billing row as the report reads it.
struct Charge {
  Timestamp start, end;
  Money billed;
  nlohmann::json tags;
  bool linked = false;
  std::string pricing_category, provider;
  Tags run_tags;  ///< the linked run's
};

/// The part of `c` inside [since, until): BilledCost × overlap ÷ period, to the micro-dollar
/// (rounded toward zero). A charge with no length counts whole when it lies in the window.
Money InWindow(const Charge& c, Timestamp since, Timestamp until) {
  const int64_t period = ToMillis(c.end) - ToMillis(c.start);
  if (period <= 0) return c.start >= since && c.start < until ? c.billed : Money();
  const int64_t from = std::max(ToMillis(c.start), ToMillis(since));
  const int64_t to = std::min(ToMillis(c.end), ToMillis(until));
  if (to <= from) return Money();
  const Int128 part = static_cast<Int128>(c.billed.micros()) * (to - from) / period;
  return Money::FromMicros(static_cast<int64_t>(part));
}

std::string TagOf(const Charge& c, const std::string& key, const std::string& from_run) {
  if (c.linked && !from_run.empty()) return from_run;
  const auto it = c.tags.find(key);
  if (it != c.tags.end() && it->is_string() && !it->get<std::string>().empty()) {
    return it->get<std::string>();
  }
  return "-";
}

std::string KeyOf(GroupKey key, const Charge& c) {
  switch (key) {
    case GroupKey::kTeam:
      return TagOf(c, "team", c.run_tags.team);
    case GroupKey::kProject:
      return TagOf(c, "project", c.run_tags.project);
    case GroupKey::kOwner:
      return TagOf(c, "owner", c.run_tags.owner);
    case GroupKey::kGpu:
      return "-";
    case GroupKey::kWorkload:
      return TagOf(c, "workload", "");
    case GroupKey::kTier: {
      const std::string category = ToLower(c.pricing_category);
      if (category == "standard") return "on_demand";
      if (category == "dynamic") return "spot";
      if (category == "committed") return "reserved";
      return "-";
    }
    case GroupKey::kCloud: {
      if (c.provider == "AWS") return "aws";
      if (c.provider == "Google Cloud") return "gcp";
      if (c.provider == "Microsoft") return "azure";
      return c.provider.empty() ? "-" : c.provider;
    }
  }
  return "-";
}

Result<std::vector<Charge>> LoadCharges(Connection& db, Timestamp since, Timestamp until) {
  const std::vector<Value> params = {ToMillis(since), ToMillis(since), ToMillis(until)};
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(
      "SELECT b.charge_period_start_ms, b.charge_period_end_ms, b.billed_cost_micros, b.tags, "
      "b.run_id, b.pricing_category, b.provider, r.team, r.project, r.owner "
      "FROM billing_rows b LEFT JOIN runs r ON r.id = b.run_id "
      "WHERE (b.charge_period_end_ms > ? OR b.charge_period_start_ms >= ?) "
      "AND b.charge_period_start_ms < ? ORDER BY b.id",
      params));
  std::vector<Charge> charges;
  charges.reserve(rows.size());
  for (const Row& r : rows) {
    Charge c;
    c.start = FromMillis(AsInt(r[0]));
    c.end = FromMillis(AsInt(r[1]));
    c.billed = Money::FromMicros(AsInt(r[2]));
    c.tags = nlohmann::json::parse(AsText(r[3]), nullptr, /*allow_exceptions=*/false);
    if (!c.tags.is_object()) c.tags = nlohmann::json::object();
    c.linked = AsOptionalInt(r[4]).has_value();
    c.pricing_category = AsText(r[5]);
    c.provider = AsText(r[6]);
    c.run_tags.team = AsText(r[7]);
    c.run_tags.project = AsText(r[8]);
    c.run_tags.owner = AsText(r[9]);
    charges.push_back(std::move(c));
  }
  return charges;
}

void Add(BilledRow& row, const Charge& c, Money in_window) {
  row.billed += in_window;
  ++row.charges;
  if (c.linked) row.linked += in_window;
}

}  // namespace

Result<Billed> BuildBilled(Ledger& ledger, const ReportOptions& options) {
  const Timestamp until = std::min(options.until, options.now);
  std::map<std::vector<std::string>, BilledRow> groups;
  Billed billed;
  for (const Charge& c : FRUGAL_TRY(LoadCharges(ledger.connection(), options.since, until))) {
    const Money in_window = InWindow(c, options.since, until);
    std::vector<std::string> key;
    for (GroupKey k : options.by) key.push_back(KeyOf(k, c));
    BilledRow& row = groups[key];
    row.key = key;
    Add(row, c, in_window);
    Add(billed.total, c, in_window);
  }
  for (auto& [key, row] : groups) billed.rows.push_back(std::move(row));
  std::stable_sort(billed.rows.begin(), billed.rows.end(),
                   [](const BilledRow& a, const BilledRow& b) { return a.billed > b.billed; });
  return billed;
}

void WriteBilledTable(const Report& report, std::ostream& out) {
  const Billed& billed = report.billed;
  if (billed.total.charges == 0) return;
  std::vector<Table::Column> columns;
  for (GroupKey k : report.options.by) columns.push_back({std::string(GroupKeyName(k))});
  for (const char* title : {"billed", "charges", "linked_to_runs"}) {
    columns.push_back({title, Align::kRight});
  }
  Table table(columns);
  auto add = [&](const BilledRow& row, std::vector<std::string> cells) {
    cells.push_back(row.billed.ToString());
    cells.push_back(std::to_string(row.charges));
    cells.push_back(row.linked.ToString());
    table.AddRow(std::move(cells));
  };
  for (const BilledRow& row : billed.rows) add(row, row.key);
  if (!report.options.by.empty()) {
    std::vector<std::string> label(report.options.by.size(), "");
    label[0] = "total";
    add(billed.total, label);
  }
  out << "\nbilled (imported FOCUS bills, apart from the measured spend above and never added to "
         "it; linked_to_runs is billed capacity frugal also measured)\n";
  table.Render(out);
}

nlohmann::json BilledToJson(const Report& report) {
  auto row_json = [&](const BilledRow& row) {
    nlohmann::json j;
    for (size_t i = 0; i < row.key.size(); ++i) {
      j[std::string(GroupKeyName(report.options.by[i]))] = row.key[i];
    }
    j["billed_usd"] = row.billed.ToPlainString();
    j["billed_micros"] = row.billed.micros();
    j["charges"] = row.charges;
    j["linked_to_runs_usd"] = row.linked.ToPlainString();
    j["linked_to_runs_micros"] = row.linked.micros();
    return j;
  };
  nlohmann::json doc;
  doc["rows"] = nlohmann::json::array();
  for (const BilledRow& row : report.billed.rows) doc["rows"].push_back(row_json(row));
  doc["total"] = row_json(report.billed.total);
  return doc;
}

}  // namespace frugal::ledger

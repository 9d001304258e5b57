#include "frugal/ledger/fleet.h"

#include <fmt/format.h>

#include <algorithm>
#include <variant>

#include "frugal/ledger/segment_facts.h"

namespace frugal::ledger {
namespace {

constexpr int64_t kDayMillis = 86'400'000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string GroupValue(const SegmentFact& fact, GroupKey key) {
  std::string v;
  switch (key) {
    case GroupKey::kTeam:
      v = fact.tags.team;
      break;
    case GroupKey::kProject:
      v = fact.tags.project;
      break;
    case GroupKey::kOwner:
      v = fact.tags.owner;
      break;
    case GroupKey::kGpu:
      v = fact.segment.offer.gpu;
      break;
    case GroupKey::kTier:
      v = CapacityTierName(fact.segment.offer.tier);
      break;
    case GroupKey::kCloud:
      v = fact.segment.offer.cloud;
      break;
    case GroupKey::kWorkload:
      v = fact.tags.Get("workload");
      if (v.empty()) v = "training";
      break;
  }
  return v.empty() ? "-" : v;
}

namespace {

// A segment's cost in SQL, rounded half up to the micro-dollar as Rate::For rounds (costs are
// never negative): price per hour × milliseconds ÷ 3,600,000.
constexpr const char* kEndedCost =
    "(s.price_micros_per_hour * (s.end_ms - s.start_ms) + 1800000) / 3600000";

}  // namespace

Result<FleetFacts> LoadFleetFacts(Ledger& ledger, Timestamp now) {
  FleetFacts facts;
  facts.now = now;
  Connection& db = ledger.connection();
  const std::vector<Row> groups = FRUGAL_TRY(db.Query(
      fmt::format("SELECT r.team, r.project, s.tier, SUM({}), SUM(s.gpu_count * (s.end_ms - "
                  "s.start_ms)), SUM(CASE WHEN s.end_reason = 'preempted' THEN 1 ELSE 0 END) "
                  "FROM segments s JOIN runs r ON r.id = s.run_id WHERE s.end_ms IS NOT NULL "
                  "AND s.end_ms <= ? GROUP BY r.team, r.project, s.tier",
                  kEndedCost),
      std::vector<Value>{ToMillis(now)}));
  for (const Row& r : groups) {
    SpendGroup g;
    g.team = AsText(r[0]);
    g.project = AsText(r[1]);
    g.tier = AsText(r[2]);
    g.spend = Money::FromMicros(AsInt(r[3]));
    g.gpu_seconds = static_cast<double>(AsInt(r[4])) / 1000.0;
    g.preemptions = AsInt(r[5]);
    facts.ended.push_back(std::move(g));
  }
  // Open at now, and the rare segment whose recorded end is still ahead of this clock.
  facts.open = FRUGAL_TRY(OpenSegments(ledger, now));
  const std::vector<Row> timed = FRUGAL_TRY(db.Query(
      "SELECT type, payload FROM events WHERE type IN ('checkpoint_committed', 'resumed')"));
  for (const Row& r : timed) {
    const nlohmann::json p = nlohmann::json::parse(AsText(r[1]), nullptr, false);
    if (!p.is_object()) continue;
    const bool commit = AsText(r[0]) == "checkpoint_committed";
    const char* field = commit ? "write_seconds" : "seconds_to_first_progress";
    const auto it = p.find(field);
    if (it == p.end() || !it->is_number()) continue;
    (commit ? facts.checkpoint_write_seconds : facts.resume_seconds).push_back(it->get<double>());
  }
  // Each preempted segment with the time of the last checkpoint it committed, if any.
  const std::vector<Row> preempted = FRUGAL_TRY(db.Query(
      "SELECT s.tier, s.start_ms, s.end_ms, MAX(e.time_ms) FROM segments s LEFT JOIN events e "
      "ON e.segment_id = s.id AND e.type = 'checkpoint_committed' WHERE s.end_reason = "
      "'preempted' AND s.end_ms IS NOT NULL GROUP BY s.id, s.tier, s.start_ms, s.end_ms"));
  for (const Row& r : preempted) {
    int64_t from = AsInt(r[1]);
    if (!std::holds_alternative<std::monostate>(r[3])) from = std::max(from, AsInt(r[3]));
    const int64_t lost_ms = std::max<int64_t>(0, AsInt(r[2]) - from);
    facts.lost_work_seconds.emplace_back(AsText(r[0]), static_cast<double>(lost_ms) / 1000.0);
  }
  return facts;
}

Result<std::vector<SegmentFact>> OpenSegments(Ledger& ledger, Timestamp now) {
  // SegmentsBetween(now, now + 1 ms), but through the index on end_ms (schema version 9): the
  // open few, not a walk of every segment that started before now.
  return SegmentFactsWhere(
      ledger.connection(),
      "s.id IN (SELECT id FROM segments WHERE end_ms IS NULL OR end_ms > ?) AND s.start_ms <= ?",
      std::vector<Value>{ToMillis(now), ToMillis(now)});
}

Result<Money> SpendBetween(Ledger& ledger, const std::string& team, const std::string& project,
                           Timestamp from, Timestamp to) {
  const int64_t a = ToMillis(from);
  const int64_t b = ToMillis(to);
  std::string sql =
      "SELECT COALESCE(SUM((s.price_micros_per_hour * ((CASE WHEN s.end_ms IS NULL OR s.end_ms > "
      "? THEN ? ELSE s.end_ms END) - (CASE WHEN s.start_ms < ? THEN ? ELSE s.start_ms END)) + "
      "1800000) / 3600000), 0) FROM segments s JOIN runs r ON r.id = s.run_id WHERE s.start_ms < "
      "? AND (s.end_ms IS NULL OR s.end_ms > ?)";
  std::vector<Value> params = {b, b, a, a, b, a};
  if (!team.empty()) {
    sql += " AND r.team = ?";
    params.emplace_back(team);
  }
  if (!project.empty()) {
    sql += " AND r.project = ?";
    params.emplace_back(project);
  }
  const std::vector<Row> rows = FRUGAL_TRY(ledger.connection().Query(sql, params));
  return Money::FromMicros(rows.empty() ? 0 : AsInt(rows[0][0]));
}

Result<DailySpend> LoadDailySpend(Ledger& ledger, GroupKey key, Timestamp since, Timestamp until) {
  DailySpend out;
  out.key = key;
  const int64_t first_day = FloorDiv(ToMillis(since), kDayMillis);
  const int64_t last_day = FloorDiv(ToMillis(until) - 1, kDayMillis);
  if (last_day < first_day) return out;
  const auto days = static_cast<size_t>(last_day - first_day + 1);
  for (int64_t d = first_day; d <= last_day; ++d) {
    out.days.push_back(FormatTimestamp(FromMillis(d * kDayMillis)).substr(0, 10));
  }
  const std::vector<SegmentFact> facts = FRUGAL_TRY(ledger.SegmentsBetween(since, until));
  for (const SegmentFact& f : facts) {
    const Segment& s = f.segment;
    const int64_t from = std::max(ToMillis(s.start), ToMillis(since));
    const int64_t to = std::min(s.end ? ToMillis(*s.end) : ToMillis(until), ToMillis(until));
    if (to <= from) continue;
    std::vector<Money>& row = out.spend[GroupValue(f, key)];
    if (row.empty()) row.resize(days);
    for (int64_t day = FloorDiv(from, kDayMillis); day * kDayMillis < to; ++day) {
      const int64_t a = std::max(from, day * kDayMillis);
      const int64_t b = std::min(to, (day + 1) * kDayMillis);
      if (b <= a) continue;
      row[static_cast<size_t>(day - first_day)] += s.offer.price.For(Duration(b - a));
    }
  }
  return out;
}

nlohmann::json DailySpendToJson(const DailySpend& d) {
  std::vector<std::pair<Money, nlohmann::json>> series;
  for (const auto& [key, amounts] : d.spend) {
    Money total;
    nlohmann::json list = nlohmann::json::array();
    for (const Money& m : amounts) {
      total += m;
      list.push_back(m.ToPlainString());
    }
    series.emplace_back(total, nlohmann::json{{"key", key},
                                              {"spend_usd", std::move(list)},
                                              {"total_usd", total.ToPlainString()}});
  }
  std::stable_sort(series.begin(), series.end(),
                   [](const auto& a, const auto& b) { return b.first < a.first; });
  nlohmann::json list = nlohmann::json::array();
  for (auto& [total, j] : series) list.push_back(std::move(j));
  return {{"by", GroupKeyName(d.key)}, {"days", d.days}, {"series", std::move(list)}};
}

}  // namespace frugal::ledger

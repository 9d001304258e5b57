#include "frugal/ledger/fleet.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/ledger/fleet_history.h"
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

Result<FleetFacts> LoadFleetFacts(Ledger& ledger, Timestamp now) {
  FleetFacts facts;
  // One read transaction: the pieces are read from one state of the ledger.
  const Result<void> done =
      Transact(ledger.connection(), TxnMode::kRead, [&](Connection& /*c*/) -> Result<void> {
        EndedGroups ended;
        facts = FRUGAL_TRY(ReadFleetFacts(ledger, now, ended));
        return {};
      });
  if (!done) return Fail(done.error());
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

#include "frugal/ledger/fleet.h"

#include <algorithm>
#include <unordered_map>

namespace frugal::ledger {
namespace {

constexpr int64_t kDayMillis = 86'400'000;

int64_t FloorDiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

}  // namespace

std::string GroupValue(const SegmentFact& f, GroupKey key) {
  const std::string* v = nullptr;
  switch (key) {
    case GroupKey::kTeam: v = &f.tags.team; break;
    case GroupKey::kProject: v = &f.tags.project; break;
    case GroupKey::kOwner: v = &f.tags.owner; break;
    case GroupKey::kGpu: v = &f.segment.offer.gpu; break;
    case GroupKey::kTier: v = &f.segment.offer.tier; break;
    case GroupKey::kCloud: v = &f.segment.offer.cloud; break;
  }
  return v == nullptr || v->empty() ? std::string("-") : *v;
}

Result<FleetFacts> LoadFleetFacts(Ledger& ledger, Timestamp now) {
  FleetFacts facts;
  facts.now = now;
  facts.segments = FRUGAL_TRY(ledger.SegmentsBetween(FromMillis(0), now));
  Connection& db = ledger.connection();
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
  // The last checkpoint committed in each preempted segment.
  const std::vector<Row> last = FRUGAL_TRY(db.Query(
      "SELECT e.segment_id, MAX(e.time_ms) FROM events e JOIN segments s ON s.id = e.segment_id "
      "WHERE e.type = 'checkpoint_committed' AND s.end_reason = 'preempted' GROUP BY "
      "e.segment_id"));
  std::unordered_map<int64_t, int64_t> last_commit;
  for (const Row& r : last) last_commit[AsInt(r[0])] = AsInt(r[1]);
  for (const SegmentFact& f : facts.segments) {
    const Segment& s = f.segment;
    if (s.end_reason != EndReason::kPreempted || !s.end) continue;
    int64_t from = ToMillis(s.start);
    if (const auto it = last_commit.find(s.id); it != last_commit.end()) {
      from = std::max(from, it->second);
    }
    const int64_t lost_ms = std::max<int64_t>(0, ToMillis(*s.end) - from);
    facts.lost_work_seconds.emplace_back(s.offer.tier, static_cast<double>(lost_ms) / 1000.0);
  }
  return facts;
}

Result<DailySpend> LoadDailySpend(Ledger& ledger, GroupKey key, Timestamp since,
                                  Timestamp until) {
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

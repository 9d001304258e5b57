#include "frugal/ledger/fleet_history.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <variant>

namespace frugal::ledger {
namespace {

// A segment's cost in SQL, rounded half up to the micro-dollar as Rate::For rounds (costs are
// never negative): price per hour × milliseconds ÷ 3,600,000; its GPU-milliseconds; whether it
// ended preempted. The sums of groups and of single segments are of these same terms.
constexpr const char* kEndedCost =
    "(s.price_micros_per_hour * (s.end_ms - s.start_ms) + 1800000) / 3600000";
constexpr const char* kEndedGpuMillis = "s.gpu_count * (s.end_ms - s.start_ms)";
constexpr const char* kEndedPreempted = "CASE WHEN s.end_reason = 'preempted' THEN 1 ELSE 0 END";

std::string And(std::string_view where) {
  return where.empty() ? std::string() : fmt::format(" AND ({})", where);
}

EndedSums SumsOf(const Row& r, size_t at) {
  return {AsInt(r[at]), AsInt(r[at + 1]), AsInt(r[at + 2])};
}

Result<EndedGroups> SumEndedSegments(Connection& db, Timestamp now) {
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(
      fmt::format("SELECT r.team, r.project, s.tier, SUM({}), SUM({}), SUM({}) FROM segments s "
                  "JOIN runs r ON r.id = s.run_id WHERE s.end_ms IS NOT NULL AND s.end_ms <= ? "
                  "GROUP BY r.team, r.project, s.tier",
                  kEndedCost, kEndedGpuMillis, kEndedPreempted),
      std::vector<Value>{ToMillis(now)}));
  EndedGroups groups;
  for (const Row& r : rows) {
    groups[{AsText(r[0]), AsText(r[1]), FRUGAL_TRY(AsTier(r[2]))}] += SumsOf(r, 3);
  }
  return groups;
}

}  // namespace

EndedSums& EndedSums::operator+=(const EndedSums& o) {
  spend_micros += o.spend_micros;
  gpu_millis += o.gpu_millis;
  preemptions += o.preemptions;
  return *this;
}

Result<FleetFacts> ReadFleetFacts(Ledger& ledger, Timestamp now, EndedGroups& ended) {
  Connection& db = ledger.connection();
  FleetFacts facts;
  facts.now = now;
  ended = FRUGAL_TRY(SumEndedSegments(db, now));
  facts.ended = SpendGroups(ended);
  // Open at now, and the rare segment whose recorded end is still ahead of this clock.
  facts.open = FRUGAL_TRY(OpenSegments(ledger, now));
  FRUGAL_TRY(AddTimedEvents(db, "", facts));
  FRUGAL_TRY(AddLostWork(db, "", facts));
  return facts;
}

std::vector<SpendGroup> SpendGroups(const EndedGroups& groups) {
  std::vector<SpendGroup> out;
  out.reserve(groups.size());
  for (const auto& [key, sums] : groups) {
    SpendGroup g;
    g.team = std::get<0>(key);
    g.project = std::get<1>(key);
    g.tier = std::get<2>(key);
    g.spend = Money::FromMicros(sums.spend_micros);
    g.gpu_seconds = static_cast<double>(sums.gpu_millis) / 1000.0;
    g.preemptions = sums.preemptions;
    out.push_back(std::move(g));
  }
  return out;
}

Result<std::vector<EndedSegment>> EndedSegmentsAmong(Connection& db,
                                                     const std::vector<SegmentId>& ids) {
  if (ids.empty()) return std::vector<EndedSegment>{};
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(fmt::format(
      "SELECT s.id, s.end_ms, r.team, r.project, s.tier, {}, {}, {} FROM segments s JOIN runs r "
      "ON r.id = s.run_id WHERE s.end_ms IS NOT NULL AND s.id IN {}",
      kEndedCost, kEndedGpuMillis, kEndedPreempted, IdList(ids))));
  std::vector<EndedSegment> out;
  out.reserve(rows.size());
  for (const Row& r : rows) {
    out.push_back({AsInt(r[0]),
                   AsInt(r[1]),
                   {AsText(r[2]), AsText(r[3]), FRUGAL_TRY(AsTier(r[4]))},
                   SumsOf(r, 5)});
  }
  return out;
}

Result<std::map<SegmentId, int64_t>> EndsAfter(Connection& db, Timestamp now) {
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(
      "SELECT id, end_ms FROM segments WHERE end_ms > ?", std::vector<Value>{ToMillis(now)}));
  std::map<SegmentId, int64_t> out;
  for (const Row& r : rows) out[AsInt(r[0])] = AsInt(r[1]);
  return out;
}

Result<void> AddTimedEvents(Connection& db, std::string_view where, FleetFacts& facts) {
  const std::vector<Row> timed =
      FRUGAL_TRY(db.Query(fmt::format("SELECT e.type, e.payload FROM events e WHERE e.type IN "
                                      "('checkpoint_committed', 'resumed'){}",
                                      And(where))));
  for (const Row& r : timed) {
    const nlohmann::json p = nlohmann::json::parse(AsText(r[1]), nullptr, false);
    if (!p.is_object()) continue;
    const bool commit = AsText(r[0]) == "checkpoint_committed";
    const char* field = commit ? "write_seconds" : "seconds_to_first_progress";
    const auto it = p.find(field);
    if (it == p.end() || !it->is_number()) continue;
    (commit ? facts.checkpoint_write_seconds : facts.resume_seconds).push_back(it->get<double>());
  }
  return {};
}

Result<void> AddLostWork(Connection& db, std::string_view where, FleetFacts& facts) {
  // Each preempted segment with the time of the last checkpoint it committed, if any.
  const std::vector<Row> preempted = FRUGAL_TRY(db.Query(fmt::format(
      "SELECT s.tier, s.start_ms, s.end_ms, MAX(e.time_ms) FROM segments s LEFT JOIN events e "
      "ON e.segment_id = s.id AND e.type = 'checkpoint_committed' WHERE s.end_reason = "
      "'preempted' AND s.end_ms IS NOT NULL{} GROUP BY s.id, s.tier, s.start_ms, s.end_ms",
      And(where))));
  for (const Row& r : preempted) {
    int64_t from = AsInt(r[1]);
    if (!std::holds_alternative<std::monostate>(r[3])) from = std::max(from, AsInt(r[3]));
    const int64_t lost_ms = std::max<int64_t>(0, AsInt(r[2]) - from);
    facts.lost_work_seconds.emplace_back(FRUGAL_TRY(AsTier(r[0])),
                                         static_cast<double>(lost_ms) / 1000.0);
  }
  return {};
}

std::string IdList(std::span<const int64_t> ids) {
  if (ids.empty()) return "(NULL)";
  return fmt::format("({})", fmt::join(ids, ", "));
}

}  // namespace frugal::ledger

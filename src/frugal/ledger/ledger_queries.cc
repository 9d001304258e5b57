// The ledger's read side: runs, their segments, events, samples and utilization.

#include <fmt/format.h>

#include "frugal/ledger/ledger.h"
#include "frugal/ledger/segment_facts.h"

namespace frugal::ledger {
namespace {

constexpr const char* kRunColumns =
    "id, name, command, spec, team, project, owner, status, start_ms, end_ms, heartbeat_ms, "
    "budget_micros, gpu_hours_cap";
constexpr const char* kSegmentColumns =
    "id, run_id, cloud, instance_type, region, zone, gpu, gpu_count, tier, "
    "price_micros_per_hour, on_demand_micros_per_hour, start_ms, end_ms, end_reason";

/// A segment read back; a tier the vocabulary does not know (a ledger written by something
/// else) is an error naming the segment, never a segment on some other tier.
Result<Segment> SegmentFromRow(const Row& r) {
  Segment s;
  s.id = AsInt(r[0]);
  s.run_id = AsInt(r[1]);
  s.offer.cloud = AsText(r[2]);
  s.offer.instance_type = AsText(r[3]);
  s.offer.region = AsText(r[4]);
  s.offer.zone = AsText(r[5]);
  s.offer.gpu = AsText(r[6]);
  s.offer.gpu_count = static_cast<int>(AsInt(r[7]));
  const Result<CapacityTier> tier = AsTier(r[8]);
  if (!tier)
    return Fail(ErrorCode::kFailed, fmt::format("segment {}: {}", s.id, tier.error().message));
  s.offer.tier = *tier;
  s.offer.price = Rate{Money::FromMicros(AsInt(r[9]))};
  if (!IsNull(r[10])) s.offer.on_demand_price = Rate{Money::FromMicros(AsInt(r[10]))};
  s.start = FromMillis(AsInt(r[11]));
  if (!IsNull(r[12])) s.end = FromMillis(AsInt(r[12]));
  if (!IsNull(r[13])) {
    Result<EndReason> reason = ParseEndReason(AsText(r[13]));
    if (reason) s.end_reason = *reason;
  }
  return s;
}

Run RunFromRow(const Row& r) {
  Run run;
  run.id = AsInt(r[0]);
  run.name = AsText(r[1]);
  run.command = AsText(r[2]);
  run.spec = AsText(r[3]);
  run.tags.team = AsText(r[4]);
  run.tags.project = AsText(r[5]);
  run.tags.owner = AsText(r[6]);
  run.status = ParseRunStatus(AsText(r[7])).value_or(RunStatus::kFailed);
  run.start = FromMillis(AsInt(r[8]));
  if (!IsNull(r[9])) run.end = FromMillis(AsInt(r[9]));
  if (!IsNull(r[10])) run.heartbeat = FromMillis(AsInt(r[10]));
  if (!IsNull(r[11])) run.budget = Money::FromMicros(AsInt(r[11]));
  run.gpu_hours_cap = AsOptionalDouble(r[12]);
  return run;
}

std::optional<double> Mean(const Value& n, const Value& sum) {
  const int64_t count = AsInt(n);
  if (count == 0) return std::nullopt;
  return AsDouble(sum) / static_cast<double>(count);
}

}  // namespace

Result<std::vector<Run>> Ledger::LoadRuns(std::string_view where, std::span<const Value> params) {
  std::vector<Row> rows =
      FRUGAL_TRY(db_->Query(fmt::format("SELECT {} FROM runs {}", kRunColumns, where), params));
  std::vector<Run> runs;
  runs.reserve(rows.size());
  for (const Row& r : rows) runs.push_back(RunFromRow(r));
  if (runs.empty()) return runs;
  // Extra tags for these runs in one query.
  std::map<RunId, Run*> by_id;
  for (Run& run : runs) by_id[run.id] = &run;
  std::vector<Row> tags =
      FRUGAL_TRY(db_->Query("SELECT run_id, key, value FROM run_tags WHERE run_id BETWEEN ? AND ?",
                            std::vector<Value>{by_id.begin()->first, by_id.rbegin()->first}));
  for (const Row& t : tags) {
    auto it = by_id.find(AsInt(t[0]));
    if (it != by_id.end()) it->second->tags.extra[AsText(t[1])] = AsText(t[2]);
  }
  return runs;
}

Result<std::vector<Segment>> Ledger::LoadSegments(std::string_view where,
                                                  std::span<const Value> params) {
  std::vector<Row> rows = FRUGAL_TRY(
      db_->Query(fmt::format("SELECT {} FROM segments {}", kSegmentColumns, where), params));
  std::vector<Segment> segments;
  segments.reserve(rows.size());
  for (const Row& r : rows) segments.push_back(FRUGAL_TRY(SegmentFromRow(r)));
  return segments;
}

Result<Run> Ledger::GetRun(RunId run) {
  std::vector<Run> runs = FRUGAL_TRY(LoadRuns("WHERE id = ?", std::vector<Value>{run}));
  if (runs.empty()) return Fail(ErrorCode::kBadInput, fmt::format("no run {} in the ledger", run));
  return runs.front();
}

Result<std::vector<Segment>> Ledger::SegmentsOf(RunId run) {
  return LoadSegments("WHERE run_id = ? ORDER BY start_ms, id", std::vector<Value>{run});
}

Result<Utilization> Ledger::UtilizationOf(RunId run) {
  std::vector<Row> rows = FRUGAL_TRY(db_->Query(
      "SELECT SUM(n), SUM(gpu_util_n), SUM(gpu_util_sum), SUM(cpu_util_n), SUM(cpu_util_sum), "
      "SUM(gpu_mem_n), SUM(gpu_mem_sum), SUM(power_n), SUM(power_sum), SUM(io_wait_n), "
      "SUM(io_wait_sum) FROM sample_rollup WHERE run_id = ?",
      std::vector<Value>{run}));
  Utilization u;
  if (rows.empty() || IsNull(rows[0][0])) return u;
  const Row& r = rows[0];
  u.samples = AsInt(r[0]);
  u.gpu_util = Mean(r[1], r[2]);
  u.cpu_util = Mean(r[3], r[4]);
  u.gpu_mem_bytes = Mean(r[5], r[6]);
  u.power_watts = Mean(r[7], r[8]);
  u.io_wait = Mean(r[9], r[10]);
  return u;
}

Result<RunDetail> Ledger::GetRunDetail(RunId run, Timestamp now) {
  RunDetail detail;
  detail.summary.run = FRUGAL_TRY(GetRun(run));
  detail.segments = FRUGAL_TRY(SegmentsOf(run));
  for (const Segment& s : detail.segments) {
    detail.summary.cost += s.Cost(now);
    detail.summary.gpu_hours += s.GpuHours(now);
    detail.summary.gpu = s.offer.gpu;
    detail.summary.tier = s.offer.tier;
  }
  detail.summary.segments = static_cast<int>(detail.segments.size());
  std::vector<Row> rows = FRUGAL_TRY(db_->Query(
      "SELECT id, segment_id, time_ms, type, payload FROM events WHERE run_id = ? ORDER BY "
      "time_ms, id",
      std::vector<Value>{run}));
  for (const Row& r : rows) {
    Event e;
    e.id = AsInt(r[0]);
    e.run_id = run;
    e.segment_id = AsOptionalInt(r[1]);
    e.time = FromMillis(AsInt(r[2]));
    e.type = ParseEventType(AsText(r[3])).value_or(EventType::kNote);
    e.payload = nlohmann::json::parse(AsText(r[4]), nullptr, /*allow_exceptions=*/false);
    detail.events.push_back(std::move(e));
  }
  detail.utilization = FRUGAL_TRY(UtilizationOf(run));
  return detail;
}

Result<std::vector<RunSummary>> Ledger::ListRuns(const RunFilter& filter, Timestamp now) {
  std::string where = "WHERE 1 = 1";
  std::vector<Value> params;
  if (filter.since) {
    where += " AND (end_ms IS NULL OR end_ms >= ?)";
    params.emplace_back(ToMillis(*filter.since));
  }
  if (filter.until) {
    where += " AND start_ms < ?";
    params.emplace_back(ToMillis(*filter.until));
  }
  if (filter.status) {
    where += " AND status = ?";
    params.emplace_back(std::string(RunStatusName(*filter.status)));
  }
  for (const auto& [key, value] : filter.tags) {
    if (key == "team" || key == "project" || key == "owner") {
      where += fmt::format(" AND {} = ?", key);
      params.emplace_back(value);
    } else {
      where +=
          " AND EXISTS (SELECT 1 FROM run_tags t WHERE t.run_id = runs.id AND t.key = ? AND "
          "t.value = ?)";
      params.emplace_back(key);
      params.emplace_back(value);
    }
  }
  where += " ORDER BY start_ms DESC, id DESC";
  if (filter.limit > 0) where += fmt::format(" LIMIT {}", filter.limit);
  std::vector<Run> runs = FRUGAL_TRY(LoadRuns(where, params));
  std::vector<RunSummary> out;
  for (Run& run : runs) {
    RunSummary summary;
    summary.run = std::move(run);
    std::vector<Segment> segments = FRUGAL_TRY(SegmentsOf(summary.run.id));
    for (const Segment& s : segments) {
      summary.cost += s.Cost(now);
      summary.gpu_hours += s.GpuHours(now);
      summary.gpu = s.offer.gpu;
      summary.tier = s.offer.tier;
    }
    summary.segments = static_cast<int>(segments.size());
    out.push_back(std::move(summary));
  }
  return out;
}

Result<std::vector<SegmentFact>> SegmentFactsWhere(Connection& db, std::string_view where,
                                                   std::span<const Value> params) {
  // One pass with the run columns reports group by; of the extra tags only `workload` (serving
  // apart from training) is read (a report over 100,000 runs reads only these rows).
  std::vector<Row> rows = FRUGAL_TRY(db.Query(
      fmt::format("SELECT s.id, s.run_id, s.cloud, s.instance_type, s.region, s.zone, s.gpu, "
                  "s.gpu_count, s.tier, s.price_micros_per_hour, s.on_demand_micros_per_hour, "
                  "s.start_ms, s.end_ms, s.end_reason, r.team, r.project, r.owner, r.status, "
                  "w.value FROM segments s JOIN runs r ON r.id = s.run_id LEFT JOIN run_tags w ON "
                  "w.run_id = r.id AND w.key = 'workload' WHERE {} ORDER BY s.run_id, s.start_ms",
                  where),
      params));
  std::vector<SegmentFact> facts;
  facts.reserve(rows.size());
  for (const Row& r : rows) {
    SegmentFact fact;
    fact.segment = FRUGAL_TRY(SegmentFromRow(r));
    fact.tags.team = AsText(r[14]);
    fact.tags.project = AsText(r[15]);
    fact.tags.owner = AsText(r[16]);
    fact.run_status = ParseRunStatus(AsText(r[17])).value_or(RunStatus::kFailed);
    if (const std::string workload = AsText(r[18]); !workload.empty())
      fact.tags.extra["workload"] = workload;
    facts.push_back(std::move(fact));
  }
  return facts;
}

Result<std::vector<SegmentFact>> Ledger::SegmentsBetween(Timestamp since, Timestamp until) {
  return SegmentFactsWhere(*db_, "s.start_ms < ? AND (s.end_ms IS NULL OR s.end_ms > ?)",
                           std::vector<Value>{ToMillis(until), ToMillis(since)});
}

Result<std::vector<Sample>> Ledger::SamplesOf(RunId run) {
  std::vector<Row> rows = FRUGAL_TRY(db_->Query(
      "SELECT time_ms, gpu_util, sm_active, tensor_active, gpu_mem_bytes, power_watts, cpu_util, "
      "rss_bytes, io_wait FROM samples WHERE run_id = ? ORDER BY time_ms",
      std::vector<Value>{run}));
  std::vector<Sample> samples;
  samples.reserve(rows.size());
  for (const Row& r : rows) {
    samples.push_back(Sample{FromMillis(AsInt(r[0])), AsOptionalDouble(r[1]),
                             AsOptionalDouble(r[2]), AsOptionalDouble(r[3]), AsOptionalDouble(r[4]),
                             AsOptionalDouble(r[5]), AsOptionalDouble(r[6]), AsOptionalDouble(r[7]),
                             AsOptionalDouble(r[8])});
  }
  return samples;
}

Result<Money> Ledger::TotalCost(Timestamp now) {
  std::vector<Segment> segments = FRUGAL_TRY(LoadSegments("", {}));
  Money total;
  for (const Segment& s : segments) total += s.Cost(now);
  return total;
}

Result<int64_t> Ledger::CountRows(std::string_view table) {
  std::vector<Row> rows = FRUGAL_TRY(db_->Query(fmt::format("SELECT COUNT(*) FROM {}", table)));
  return AsInt(rows.at(0).at(0));
}

}  // namespace frugal::ledger

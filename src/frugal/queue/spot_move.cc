#include "frugal/queue/spot_move.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "frugal/queue/scheduler.h"
#include "frugal/spot/live_advice.h"

namespace frugal::queue {
namespace {

const Seconds kDeadlineSafetySeconds = SchedulerOptions{}.safety_seconds;

/// The on-demand pool to move to: the job fits it; Slurm pools first (the job keeps running
/// where its checkpoints are shared), then the cheapest.
int OnDemandPool(const Capacity& capacity, const JobRequest& request) {
  int best = -1;
  for (size_t p = 0; p < capacity.pools.size(); ++p) {
    const Pool& pool = capacity.pools[p];
    if (pool.tier != CapacityTier::kOnDemand || !request.RuntimeOn(pool)) continue;
    if (best < 0) {
      best = static_cast<int>(p);
      continue;
    }
    const Pool& b = capacity.pools[static_cast<size_t>(best)];
    const bool slurm = pool.kind == PoolKind::kSlurm;
    const bool best_slurm = b.kind == PoolKind::kSlurm;
    if (slurm != best_slurm ? slurm : pool.price_per_gpu_hour < b.price_per_gpu_hour) {
      best = static_cast<int>(p);
    }
  }
  return best;
}

Duration Ms(int64_t ms) { return Duration(std::max<int64_t>(0, ms)); }

/// The run's history as the policy reads it: spot segments as available spans, the waits
/// between them (and since the last preemption) as unavailable ones.
struct History {
  std::vector<spot::AvailabilitySpan> spans;
  Duration work_done{};
  int64_t first_start_ms = 0;
};

History HistoryOf(const std::vector<ledger::RunSpanRow>& segments, int64_t fallback_start_ms,
                  int64_t now_ms) {
  History h;
  h.first_start_ms = segments.empty() ? fallback_start_ms : segments.front().start_ms;
  for (size_t i = 0; i < segments.size(); ++i) {
    const ledger::RunSpanRow& s = segments[i];
    const int64_t end = s.end_ms.value_or(now_ms);
    h.spans.push_back({s.tier == CapacityTier::kSpot, Ms(end - s.start_ms)});
    if (s.last_checkpoint_ms) h.work_done += Ms(*s.last_checkpoint_ms - s.start_ms);
    const int64_t next = i + 1 < segments.size() ? segments[i + 1].start_ms : now_ms;
    if (s.end_ms && next > end) h.spans.push_back({false, Ms(next - end)});
  }
  return h;
}

}  // namespace

Result<SpotAnswer> DecideAfterPreemption(ledger::Connection& db, const Capacity& capacity,
                                         const ledger::QueueJobRow& row, const JobRequest& request,
                                         int restarts, SpotNow spot_now, Seconds now) {
  SpotAnswer answer;
  answer.advice = spot::Mode::kIdle;
  const Pool* spot_pool = capacity.FindPool(row.pool);
  answer.pool = OnDemandPool(capacity, request);
  const std::string head = fmt::format("preempted on {} (restart {})", row.pool, restarts);
  if (spot_pool == nullptr || answer.pool < 0) {
    answer.reason = head + ": no on-demand pool fits it; Slurm starts it again on spot";
    return answer;
  }
  const Pool& od = capacity.pools[static_cast<size_t>(answer.pool)];
  if (request.deadline == kNever) {
    answer.reason = head + ": no deadline; Slurm starts it again on spot";
    return answer;
  }
  const std::vector<ledger::RunSpanRow> segments = FRUGAL_TRY(ledger::RunSpansOf(db, row.run_id));
  const History h = HistoryOf(segments, row.started_ms.value_or(now * 1000), now * 1000);
  spot::LiveJob job;
  job.compute = Duration(static_cast<int64_t>(request.RuntimeOn(*spot_pool).value_or(0) * 3.6e6));
  // The scheduler keeps a safety margin before every deadline; so does the policy here.
  job.deadline = Ms((request.deadline - kDeadlineSafetySeconds) * 1000 - h.first_start_ms);
  // The pool's preemption rate is the policy's prior for how long spot lasts.
  if (spot_pool->preemptions_per_hour > 0) {
    job.prior_lifetime = Duration(static_cast<int64_t>(3.6e6 / spot_pool->preemptions_per_hour));
  }
  job.changeover = spot_pool->changeover;
  job.checkpoint_cost = std::chrono::minutes(1);
  const double spot_price = spot_pool->price_per_gpu_hour.dollars();
  const double od_price = od.price_per_gpu_hour.dollars();
  if (spot_price > 0 && od_price > 0) job.price_ratio = od_price / spot_price;
  spot::LiveState state;
  state.elapsed = Ms(now * 1000 - h.first_start_ms);
  state.work_done = h.work_done;
  state.spot_available = spot_now == SpotNow::kRunningAgain;
  state.mode = state.spot_available ? spot::Mode::kSpot : spot::Mode::kIdle;
  const double left_hours = std::max(0.0, ToHours(job.compute - state.work_done));
  answer.cost_usd = od.UnitCost(now, now + static_cast<Seconds>(left_hours * 3600)) * request.units;
  const Result<spot::LiveAdvice> advice = spot::AdviseLive(job, h.spans, state);
  if (!advice) {
    // No time left to plan with (the deadline has passed): on-demand is the fastest finish.
    answer.move = true;
    answer.advice = spot::Mode::kOnDemand;
    answer.reason = fmt::format("{}: spot policy: {}; moved to {} (on-demand)", head,
                                advice.error().message, od.name);
    return answer;
  }
  answer.advice = advice->mode;
  answer.move = advice->mode == spot::Mode::kOnDemand;
  answer.reason = fmt::format("{}: spot policy says {} (work left {}, spare {} before {})", head,
                              spot::AdviceName(answer.advice), FormatDuration(advice->work_left),
                              FormatDuration(advice->spare),
                              FormatUtcTime(request.deadline - kDeadlineSafetySeconds));
  answer.reason += answer.move
                       ? fmt::format("; moved to {} (on-demand, ${:.2f})", od.name, answer.cost_usd)
                   : spot_now == SpotNow::kRunningAgain ? "; it runs on spot again"
                                                        : "; Slurm starts it again on spot";
  return answer;
}

}  // namespace frugal::queue

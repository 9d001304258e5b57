#include "frugal/queue/preemption.h"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

#include "frugal/queue/queue_service.h"
#include "frugal/spot/live_advice.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

constexpr Seconds kRecheckSeconds = 3600;
/// A job without a deadline loses nothing but time by waiting: a day without spot is enough.
constexpr Seconds kNoDeadlineWaitSeconds = 86400;

/// The job's hours of work on the fastest non-spot pool it fits: what on-demand would need.
double OnDemandHours(const Capacity& cap, const JobRequest& r) {
  double best = -1;
  for (const Pool& p : cap.pools) {
    if (p.tier == CapacityTier::kSpot) continue;
    if (const auto h = r.RuntimeOn(p); h && (best < 0 || *h < best)) best = *h;
  }
  return best > 0 ? best : std::max(r.runtime_hours, 1.0 / 60);
}

struct Prices {
  double on_demand = 0;
  double spot = 0;
  double paid_changeover_hours = -1;
};

Prices PricesFor(const Capacity& cap, const JobRequest& r, Seconds now) {
  Prices out;
  for (const Pool& p : cap.pools) {
    if (!r.RuntimeOn(p)) continue;
    const double price = p.PriceAt(now);
    if (p.tier == CapacityTier::kOnDemand && (out.on_demand == 0 || price < out.on_demand))
      out.on_demand = price;
    if (p.tier == CapacityTier::kSpot && (out.spot == 0 || price < out.spot)) out.spot = price;
    if (p.tier != CapacityTier::kSpot) {
      const double c = ToHours(p.changeover);
      if (out.paid_changeover_hours < 0 || c < out.paid_changeover_hours)
        out.paid_changeover_hours = c;
    }
  }
  return out;
}

struct Answer {
  spot::Mode mode = spot::Mode::kOnDemand;
  std::string why;
  Seconds recheck_after = kRecheckSeconds;  ///< while waiting: when to ask again
};

/// The policy's answer for the job as it stands at `now` (waiting since its last preemption),
/// with a line saying why.
Answer Advise(const Capacity& cap, const JobRequest& r, Seconds now) {
  const SpotHistory& h = r.spot;
  if (r.deadline == kNever) {
    if (now - h.preempted_at >= kNoDeadlineWaitSeconds) {
      return {spot::Mode::kOnDemand, "no deadline, and spot has been gone for a day"};
    }
    return {spot::Mode::kIdle, "no deadline: waiting costs only time"};
  }
  const Prices prices = PricesFor(cap, r, now);
  const double work = OnDemandHours(cap, r);
  spot::LiveJob live;
  live.compute = FromHours(work);
  live.deadline = std::chrono::seconds(std::max<Seconds>(1, r.deadline - h.first_start));
  live.changeover = FromHours(r.restart_hours + std::max(0.0, prices.paid_changeover_hours));
  live.price_ratio = prices.spot > 0 ? std::max(1.0, prices.on_demand / prices.spot) : 3.0;
  std::vector<spot::AvailabilitySpan> history;
  for (const auto& [up, seconds] : h.spans) history.push_back({up, std::chrono::seconds(seconds)});
  history.push_back({false, std::chrono::seconds(std::max<Seconds>(0, now - h.preempted_at))});
  spot::LiveState state;
  state.elapsed = std::chrono::seconds(std::max<Seconds>(0, now - h.first_start));
  state.work_done = FromHours(std::min(h.work_done_hours, work));
  if (state.elapsed < state.work_done) state.elapsed = state.work_done;
  if (live.deadline <= state.elapsed) return {spot::Mode::kOnDemand, "the deadline has passed"};
  const Result<spot::LiveAdvice> advice = spot::AdviseLive(live, history, state);
  if (!advice) return {spot::Mode::kOnDemand, advice.error().message};
  // Asked again before half the time to spare is gone, and at least hourly.
  const Seconds spare = std::chrono::duration_cast<std::chrono::seconds>(advice->spare).count();
  return {advice->mode,
          fmt::format("{} of {} work left, {} to spare beyond finishing on on-demand from now",
                      FormatDuration(advice->work_left), FormatDuration(live.compute),
                      FormatDuration(advice->spare)),
          std::clamp<Seconds>(spare / 2, 60, kRecheckSeconds)};
}

ledger::QueueDecisionRow SpotDecision(int64_t job_id, JobRequest& r, const Answer& answer,
                                      const std::string& event, Seconds now) {
  const std::string& why = answer.why;
  ledger::QueueDecisionRow d;
  d.job_id = job_id;
  d.time_ms = now * 1000;
  if (answer.mode == spot::Mode::kOnDemand) {
    r.spot.spot_allowed = false;
    r.spot.paid_allowed = true;
    d.verdict = "move_to_on_demand";
    d.reason = fmt::format("move_to_on_demand: {}; the spot policy moves it to on-demand ({})",
                           event, why);
  } else {
    r.spot.paid_allowed = false;
    r.spot.recheck_at = now + answer.recheck_after;
    d.verdict = "wait_for_spot";
    d.reason = fmt::format(
        "wait_for_spot: {}; the spot policy waits for spot to return ({}); "
        "asked again at {}",
        event, why, FormatUtcTime(r.spot.recheck_at));
  }
  return d;
}

}  // namespace

double WorkLeft(const Capacity& capacity, const JobRequest& request) {
  if (request.spot.work_done_hours <= 0) return 1.0;
  const double work = OnDemandHours(capacity, request);
  return std::clamp(1 - request.spot.work_done_hours / work, 0.01, 1.0);
}

ledger::QueueDecisionRow AfterPreemption(const Capacity& capacity, int64_t job_id,
                                         JobRequest& request, const Pool& pool, Seconds started,
                                         Seconds now) {
  SpotHistory& h = request.spot;
  if (h.first_start == 0) h.first_start = started;
  const bool on_spot = pool.tier == CapacityTier::kSpot;
  // The stretch it waited for spot before this start, then the stretch spot lasted.
  if (on_spot && h.preemptions > 0 && h.preempted_at > 0 && started > h.preempted_at) {
    h.spans.emplace_back(false, started - h.preempted_at);
  }
  if (on_spot) h.spans.emplace_back(true, std::max<Seconds>(0, now - started));
  ++h.preemptions;
  h.preempted_at = now;
  h.stint_start = 0;
  // Work done, in hours of the on-demand runtime: the stretch less its changeover, scaled from
  // this pool's runtime. A job that does not checkpoint starts over.
  if (!request.checkpoints) {
    h.work_done_hours = 0;
  } else if (const auto runtime = request.RuntimeOn(pool); runtime && *runtime > 0) {
    const double ran =
        std::max(0.0, static_cast<double>(now - started) / 3600 - ToHours(pool.changeover));
    const double work = OnDemandHours(capacity, request);
    h.work_done_hours = std::min(work * 0.99, h.work_done_hours + ran / *runtime * work);
  }
  const std::string event = fmt::format("preempted on {} ({} preemption{})", pool.name,
                                        h.preemptions, h.preemptions == 1 ? "" : "s");
  bool paid_fits = false;
  for (const Pool& p : capacity.pools)
    paid_fits = paid_fits || (p.tier != CapacityTier::kSpot && request.RuntimeOn(p));
  if (!on_spot || !h.spot_allowed || !paid_fits) {
    ledger::QueueDecisionRow d;
    d.job_id = job_id;
    d.time_ms = now * 1000;
    d.verdict = "requeue";
    d.reason = fmt::format("requeue: {}; waiting to resume from its checkpoint", event);
    return d;
  }
  return SpotDecision(job_id, request, Advise(capacity, request, now), event, now);
}

std::optional<ledger::QueueDecisionRow> RecheckSpotWait(const Capacity& capacity, int64_t job_id,
                                                        JobRequest& request, Seconds now) {
  const Answer answer = Advise(capacity, request, now);
  const std::string event = fmt::format(
      "spot gone for {}", FormatDuration(std::chrono::seconds(now - request.spot.preempted_at)));
  ledger::QueueDecisionRow d = SpotDecision(job_id, request, answer, event, now);
  if (answer.mode != spot::Mode::kOnDemand) return std::nullopt;
  return d;
}

Result<std::optional<std::string>> RecordPreemption(ledger::Connection& db,
                                                    const Capacity& capacity,
                                                    ledger::QueueJobRow& row, JobRequest& request,
                                                    Seconds now) {
  // A pool no longer in the capacity file: the job simply waits again (requeue).
  Pool gone;
  gone.name = row.pool;
  const Pool* pool = capacity.FindPool(row.pool);
  if (pool == nullptr) pool = &gone;
  const Seconds started = row.started_ms.value_or(now * 1000) / 1000;
  const ledger::QueueDecisionRow d =
      AfterPreemption(capacity, row.id, request, *pool, started, now);
  ledger::QueueJobRow f;
  f.request = RequestToJson(request);
  f.reason = d.reason;
  const std::vector<QueueJobState> from = {QueueJobState::kStarting, QueueJobState::kRunning};
  if (!FRUGAL_TRY(ledger::MoveQueueJob(db, row.id, from, QueueJobState::kWaiting, f, now * 1000))) {
    return std::optional<std::string>();
  }
  row.state = QueueJobState::kWaiting;
  row.reason = d.reason;
  const std::vector<ledger::QueueDecisionRow> ds = {d};
  FRUGAL_TRY(ledger::InsertQueueDecisions(db, ds));
  return std::optional<std::string>(fmt::format("job {} ({}) {}", row.id, row.name, d.reason));
}

Result<std::optional<std::string>> RecordSpotRecheck(ledger::Connection& db,
                                                     const Capacity& capacity,
                                                     ledger::QueueJobRow& row, JobRequest& request,
                                                     Seconds now) {
  const std::optional<ledger::QueueDecisionRow> d = RecheckSpotWait(capacity, row.id, request, now);
  ledger::QueueJobRow f;
  f.request = RequestToJson(request);
  if (d) f.reason = d->reason;
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  if (!FRUGAL_TRY(
          ledger::MoveQueueJob(db, row.id, waiting, QueueJobState::kWaiting, f, now * 1000)) ||
      !d) {
    return std::optional<std::string>();
  }
  row.reason = d->reason;
  const std::vector<ledger::QueueDecisionRow> ds = {*d};
  FRUGAL_TRY(ledger::InsertQueueDecisions(db, ds));
  return std::optional<std::string>(fmt::format("job {} ({}) {}", row.id, row.name, d->reason));
}

}  // namespace frugal::queue

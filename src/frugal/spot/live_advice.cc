#include "frugal/spot/live_advice.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

#include "frugal/spot/frugal_policy.h"

namespace frugal::spot {
namespace {

/// Plans kept for reuse: a few, since each holds its planner's table.
constexpr size_t kKeptPlans = 4;

std::atomic<int64_t> plans_solved{0};

/// Everything FrugalPolicy::Start reads, as one text.
std::string PlanKey(const PolicyContext& c) {
  const StepJob& j = c.job;
  std::string key =
      fmt::format("{} {} {} {} {} {} {} {:a} {:a} {:a}|", j.step_seconds, j.compute, j.deadline,
                  j.changeover, j.checkpoint_cost, j.checkpoint_every, j.notice, c.price_ratio,
                  c.prior_lifetime_steps, c.prior_outage_steps);
  key.append(c.past.begin(), c.past.end());
  return key;
}

/// A policy started on `context`: a copy of a kept one when the same context was planned
/// recently, else a new solve (then kept, the oldest dropped).
FrugalPolicy StartedPolicy(const PolicyContext& context) {
  struct Kept {
    std::string key;
    FrugalPolicy policy;
  };
  static std::mutex mu;
  static std::deque<Kept> kept;
  const std::string key = PlanKey(context);
  {
    const std::lock_guard<std::mutex> lock(mu);
    for (const Kept& k : kept) {
      if (k.key == key) return k.policy;
    }
  }
  FrugalPolicy policy;
  policy.Start(context);
  ++plans_solved;
  const std::lock_guard<std::mutex> lock(mu);
  kept.push_front({key, policy});
  if (kept.size() > kKeptPlans) kept.pop_back();
  return policy;
}

// A grid a sixth of the changeover fine (as the evaluation's 2-minute steps are to a 12-minute
// changeover), between a second and ten minutes.
int LiveStepSeconds(const LiveJob& job) {
  const auto changeover_seconds = static_cast<int>(job.changeover.count() / 1000);
  return std::clamp(changeover_seconds / 6, 1, 600);
}

int Steps(Duration d, int step_seconds) {
  return static_cast<int>(d.count() / (int64_t{step_seconds} * 1000));
}

}  // namespace

std::string AdviceName(Mode mode) {
  switch (mode) {
    case Mode::kIdle:
      return "wait_for_spot";
    case Mode::kSpot:
      return "spot";
    case Mode::kOnDemand:
      return "on_demand";
  }
  return "?";
}

std::optional<Mode> ParseAdvice(std::string_view name) {
  for (const Mode mode : {Mode::kIdle, Mode::kSpot, Mode::kOnDemand}) {
    if (AdviceName(mode) == name) return mode;
  }
  return std::nullopt;
}

Result<LiveAdvice> AdviseLive(const LiveJob& live, std::span<const AvailabilitySpan> history,
                              const LiveState& state) {
  LiveAdvice advice;
  advice.step_seconds = LiveStepSeconds(live);
  JobSpec spec;
  spec.compute = live.compute;
  spec.deadline = live.deadline;
  spec.changeover = live.changeover;
  spec.checkpoint_cost = live.checkpoint_cost;
  // The automatic checkpoint interval only matters to the simulator, not to a decision.
  const StepJob job = FRUGAL_TRY(ToSteps(spec, advice.step_seconds, 1.0));

  std::vector<uint8_t> past;
  for (const AvailabilitySpan& span : history) {
    const int n = std::max(1, Steps(span.length, advice.step_seconds));
    past.insert(past.end(), static_cast<size_t>(n), span.available ? 1 : 0);
  }
  PolicyContext context;
  context.job = job;
  context.past = past;
  context.price_ratio = live.price_ratio;
  const double step_ms = advice.step_seconds * 1000.0;
  context.prior_lifetime_steps = static_cast<double>(live.prior_lifetime.count()) / step_ms;
  context.prior_outage_steps = static_cast<double>(live.prior_outage.count()) / step_ms;
  FrugalPolicy policy = StartedPolicy(context);

  Observation obs;
  obs.step = Steps(state.elapsed, advice.step_seconds);
  obs.spot_available = state.spot_available;
  obs.mode = state.mode;
  obs.committed = std::min(Steps(state.work_done, advice.step_seconds), job.compute);
  obs.price_ratio = live.price_ratio;
  advice.mode = policy.Decide(obs);
  if (advice.mode == Mode::kSpot && !state.spot_available) advice.mode = Mode::kIdle;
  advice.planned = policy.planned();
  const auto step = std::chrono::seconds(advice.step_seconds);
  advice.work_left = (job.compute - obs.committed) * step;
  advice.spare = std::max(0, SpareSteps(job, obs)) * step;
  return advice;
}

int64_t LivePlansSolved() { return plans_solved.load(); }

}  // namespace frugal::spot

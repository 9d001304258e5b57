#include "frugal/spot/live_advice.h"

#include <algorithm>
#include <vector>

#include "frugal/spot/frugal_policy.h"

namespace frugal::spot {
namespace {

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
  FrugalPolicy policy;
  policy.Start(context);

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

}  // namespace frugal::spot

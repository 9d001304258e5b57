#include "frugal/spot/baseline_policies.h"

namespace frugal::spot {

void GreedyPolicy::Start(const PolicyContext& context) {
  job_ = context.job;
  locked_on_demand_ = false;
}

Mode GreedyPolicy::Decide(const Observation& obs) {
  if (locked_on_demand_) return Mode::kOnDemand;
  if (obs.mode != Mode::kOnDemand && SpareSteps(job_, obs) < 1) {
    locked_on_demand_ = true;
    return Mode::kOnDemand;
  }
  return obs.spot_available ? Mode::kSpot : Mode::kIdle;
}

void UniformProgressPolicy::Start(const PolicyContext& context) {
  job_ = context.job;
  locked_on_demand_ = false;
}

double UniformProgressPolicy::Expected(int step) const {
  return static_cast<double>(job_.compute) * step / job_.deadline;
}

Mode UniformProgressPolicy::Decide(const Observation& obs) {
  if (locked_on_demand_) return Mode::kOnDemand;
  const int progress =
      obs.committed + (job_.checkpoint_cost > 0 && obs.mode == Mode::kSpot ? 0 : obs.uncommitted);
  const int work_left = job_.compute - progress;
  const int time_left = job_.deadline - obs.step;
  const int save = job_.checkpoint_cost;
  // Rule 4, with our deadline guarantee as a backstop when checkpoints cost time.
  if (obs.mode != Mode::kOnDemand &&
      (time_left < work_left + 2 * job_.changeover + save || SpareSteps(job_, obs) < 1)) {
    locked_on_demand_ = true;
    return Mode::kOnDemand;
  }
  if (obs.mode == Mode::kOnDemand) {
    // Rule 3: hysteresis.
    if (progress < Expected(obs.step + 2 * job_.changeover)) return Mode::kOnDemand;
    // Backstop for checkpoint costs: never leave on-demand without time to come back.
    if (SpareAfterLeavingOnDemand(job_, obs) < 1) return Mode::kOnDemand;
    return obs.spot_available ? Mode::kSpot : Mode::kIdle;
  }
  // Rule 2: spot whenever available; a job on spot stays until preempted.
  if (obs.spot_available) return Mode::kSpot;
  // Rule 1: idle and behind the uniform line → on-demand.
  return progress < Expected(obs.step) ? Mode::kOnDemand : Mode::kIdle;
}

}  // namespace frugal::spot

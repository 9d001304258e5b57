#include "frugal/spot/policy.h"

#include "frugal/core/text.h"
#include "frugal/spot/baseline_policies.h"
#include "frugal/spot/frugal_policy.h"

namespace frugal::spot {

const std::vector<std::string>& PolicyNames() {
  static const std::vector<std::string> kNames = {"od", "greedy", "up", "frugal"};
  return kNames;
}

Result<std::unique_ptr<Policy>> MakePolicy(const std::string& name) {
  if (name == "od") return std::unique_ptr<Policy>(std::make_unique<OnDemandPolicy>());
  if (name == "greedy") return std::unique_ptr<Policy>(std::make_unique<GreedyPolicy>());
  if (name == "up") return std::unique_ptr<Policy>(std::make_unique<UniformProgressPolicy>());
  if (name == "frugal") return std::unique_ptr<Policy>(std::make_unique<FrugalPolicy>());
  return Fail(ErrorCode::kBadInput, "unknown policy '" + Abbreviate(name) + "'" +
                                        DidYouMean(name, PolicyNames()) +
                                        " (known: od, greedy, up, frugal, all)");
}

int StepsToFinishOnDemand(const StepJob& job, const Observation& obs) {
  if (obs.mode == Mode::kOnDemand) {
    // On-demand is never preempted, so uncommitted work there is kept.
    return obs.changeover_left + job.compute - obs.committed - obs.uncommitted;
  }
  // Worst case: the uncommitted work is lost, or saved at the checkpoint's cost first.
  const int save = job.checkpoint_cost > 0 ? job.checkpoint_cost : 0;
  return save + job.changeover + job.compute - obs.committed;
}

int SpareSteps(const StepJob& job, const Observation& obs) {
  return job.deadline - obs.step - StepsToFinishOnDemand(job, obs);
}

int SpareAfterLeavingOnDemand(const StepJob& job, const Observation& obs) {
  const int c = job.checkpoint_cost;
  const int save = obs.uncommitted > 0 ? c : 0;
  return job.deadline - obs.step - save -
         (c + job.changeover + job.compute - obs.committed - obs.uncommitted);
}

}  // namespace frugal::spot

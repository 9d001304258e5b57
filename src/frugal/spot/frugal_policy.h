#pragma once
// frugal's own deadline policy. Reasoning in docs/spot-policy.md. In short: learn the spot
// market from what has been seen (lifetimes and outages, by age: availability_model.h), and
// plan against that model — the deadline planner (deadline_planner.h) gives, for every spare
// time, work left, mode and age of the current run, the decision with the least expected
// cost to finish. The exact deadline rule (policy.h: SpareSteps) guards every decision, so
// the model can cost money when it is wrong but never a deadline.
//
// When the planner would exceed its budget (very long jobs on a fine step grid) the policy
// uses rules instead: wait for spot while the spare time is above a reserve of round trips;
// from on-demand, go back to spot only when the run's expected remaining life pays for the
// changeovers; enter spot from idle only when the run is expected to outlive its changeover;
// ride through outages expected to end within a changeover.

#include <cstdint>
#include <string>

#include "frugal/spot/availability_model.h"
#include "frugal/spot/deadline_planner.h"
#include "frugal/spot/policy.h"

namespace frugal::spot {

class FrugalPolicy final : public Policy {
 public:
  /// State updates one plan may cost (about 10–40 ms on one core); beyond it the planner
  /// runs on a coarser grid, and beyond every grid that keeps the changeover exact, the
  /// rules decide.
  static constexpr int64_t kPlannerBudget = 40'000'000;

  void Start(const PolicyContext& context) override;
  Mode Decide(const Observation& obs) override;
  [[nodiscard]] std::string name() const override { return "frugal"; }

  /// Plans against a known memoryless market instead of the one it learns: P(spot that is
  /// available stays so one more step) and P(an outage goes on one more step). With the true
  /// values of a memoryless market this is the best online policy there (bench/spot uses it
  /// to bound what any online policy can reach). Call before Start.
  void AssumeMemoryless(double stay_up, double stay_down);

  /// True when decisions come from the planner (false: the rules).
  [[nodiscard]] bool planned() const { return planner_.solved(); }
  /// Planner steps per job step of the current plan (1 = exact).
  [[nodiscard]] int plan_unit() const { return planner_.unit(); }
  /// The market model learned so far.
  [[nodiscard]] const AvailabilityModel& model() const { return model_; }

 private:
  void Plan();
  [[nodiscard]] Mode Guard(Mode want, const Observation& obs) const;
  [[nodiscard]] Mode Rules(const Observation& obs);
  [[nodiscard]] int ReserveSteps(const Observation& obs);
  [[nodiscard]] bool WorthLeavingOnDemand(const Observation& obs, int spare_after);
  /// Expected saving, in spot-price steps, of moving `from` idle or on-demand onto a spot run
  /// that has lasted `age` steps, with `work_left` to do; negative when it does not pay.
  [[nodiscard]] double SpotTripGain(int age, int work_left, int unsaved, Mode from);

  StepJob job_;
  double price_ratio_ = 3;
  AvailabilityModel model_;
  DeadlinePlanner planner_;
  int runs_at_plan_ = 0;             ///< runs the model had seen when the plan was made
  double known_stay_[2] = {-1, -1};  ///< AssumeMemoryless: outage, available (< 0: learn)
};

}  // namespace frugal::spot

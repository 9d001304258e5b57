#include "frugal/spot/frugal_policy.h"

#include <algorithm>
#include <cmath>

namespace frugal::spot {
namespace {

// Lifetime assumed before any has been seen: two hours, a middle-of-the-road spot market.
constexpr double kDefaultMeanUpHours = 2.0;
constexpr double kDefaultMeanDownHours = 1.0;
// Ages the planner tells apart, in job steps; older runs share the tail's survival.
constexpr int kPlannerAgeSteps = 48;

}  // namespace

void FrugalPolicy::Start(const PolicyContext& context) {
  job_ = context.job;
  price_ratio_ = context.price_ratio;
  model_.Reset(context.prior_lifetime_steps > 0 ? context.prior_lifetime_steps
                                                : kDefaultMeanUpHours / job_.step_hours(),
               context.prior_outage_steps > 0 ? context.prior_outage_steps
                                              : kDefaultMeanDownHours / job_.step_hours());
  for (uint8_t available : context.past) model_.Observe(available != 0);
  Plan();
}

void FrugalPolicy::AssumeMemoryless(double stay_up, double stay_down) {
  known_stay_[0] = stay_down;
  known_stay_[1] = stay_up;
}

void FrugalPolicy::Plan() {
  // Leaving a working mode writes a checkpoint before the changeover, so both count.
  const int enter = job_.changeover + job_.checkpoint_cost;
  PlannerInput input;
  input.compute = job_.compute;
  input.spare = std::max(job_.deadline - job_.compute, 0);
  input.changeover = enter;
  input.price_ratio = price_ratio_;
  // The finest grid within budget whose unit divides the changeover (so that it stays exact).
  planner_ = DeadlinePlanner();
  for (int unit = 1; unit <= std::max(enter, 1); ++unit) {
    if (enter > 0 && enter % unit != 0) continue;
    input.unit = unit;
    const bool known = known_stay_[0] >= 0;
    input.ages = known ? 1 : std::max(2, (kPlannerAgeSteps + unit - 1) / unit);
    if (DeadlinePlanner::Work(input) > kPlannerBudget) continue;
    if (known) {
      // A memoryless run stays for `unit` more steps with probability p^unit.
      input.stay_up = {static_cast<float>(std::pow(known_stay_[1], unit))};
      input.stay_down = {static_cast<float>(std::pow(known_stay_[0], unit))};
    } else {
      input.stay_up = model_.StayProbabilities(true, unit, input.ages);
      input.stay_down = model_.StayProbabilities(false, unit, input.ages);
    }
    planner_.Solve(input);
    break;
  }
  runs_at_plan_ = model_.runs(true).count() + model_.runs(false).count();
}

Mode FrugalPolicy::Decide(const Observation& obs) {
  model_.Observe(obs.spot_available);
  price_ratio_ = obs.price_ratio;  // follows a price series step by step
  if (!planner_.solved()) return Rules(obs);
  // Re-plan when the market seen has doubled since the plan (few past runs at the start).
  const int runs = model_.runs(true).count() + model_.runs(false).count();
  if (runs >= 2 * runs_at_plan_ + 4 && known_stay_[0] < 0) Plan();
  if (obs.changeover_left > 0) return Guard(obs.mode, obs);
  const int unsaved = obs.mode == Mode::kOnDemand ? 0 : obs.uncommitted;
  const int work_left = job_.compute - obs.committed - obs.uncommitted + unsaved;
  const int spare = job_.deadline - obs.step - work_left;
  const Mode want =
      planner_.Decide(spare, work_left, obs.mode, obs.spot_available, model_.current_age());
  return Guard(want, obs);
}

Mode FrugalPolicy::Guard(Mode want, const Observation& obs) const {
  if (want == Mode::kOnDemand) return want;
  if (want == Mode::kSpot && !obs.spot_available) want = Mode::kIdle;
  if (obs.mode == Mode::kOnDemand) {
    if (want == Mode::kOnDemand) return want;
    return SpareAfterLeavingOnDemand(job_, obs) >= 1 ? want : Mode::kOnDemand;
  }
  // A job working on spot loses no spare time while it works (nor, with free checkpoints,
  // when it is preempted), so it may ride spot down to zero spare; every other step off
  // on-demand spends one.
  const bool riding = want == Mode::kSpot && obs.mode == Mode::kSpot && obs.changeover_left == 0 &&
                      job_.checkpoint_cost == 0;
  return SpareSteps(job_, obs) >= (riding ? 0 : 1) ? want : Mode::kOnDemand;
}

int FrugalPolicy::ReserveSteps(const Observation& obs) {
  const int work_left = job_.compute - obs.committed;
  // No trips are worth holding time for in a market where a return to spot does not pay
  // (lifetimes short against the changeover): then waiting is all the spare time is for.
  if (SpotTripGain(0, work_left, 0, Mode::kOnDemand) <= 0) return 1;
  // Spare time kept for round trips spot → (preempted) → on-demand → spot: each costs two
  // changeovers (and a checkpoint) of spare time, and finishing the remaining work on spot
  // takes about work ÷ mean lifetime of them.
  const double trips = 1.0 + work_left / std::max(1.0, model_.Mean(true));
  const double per_trip = 2.0 * job_.changeover + job_.checkpoint_cost;
  return 1 + static_cast<int>(trips * per_trip);
}

double FrugalPolicy::SpotTripGain(int age, int work_left, int unsaved, Mode from) {
  const int d = job_.changeover;
  // The useful part of the spot run: its remaining life after the changeover, capped by the
  // work left.
  const RunLengths::Capped life =
      model_.runs(true).ExpectedRemainingCapped(age + d, work_left, model_.Mean(true));
  const double survive_changeover =
      d == 0 ? 1.0
             : 1.0 - model_.runs(true)
                         .ExpectedRemainingCapped(age, d, model_.Mean(true))
                         .ends_before_cap;
  // In spot-price units: each spot step instead of on-demand saves (ratio − 1); leaving costs
  // the spot changeover, a checkpoint billed at on-demand if one is due, and — when the run
  // ends before the work does — the changeover back at on-demand prices.
  const double save_cost = unsaved > 0 ? job_.checkpoint_cost * price_ratio_ : 0;
  const double return_cost =
      from == Mode::kOnDemand
          ? (1 - survive_changeover * (1 - life.ends_before_cap)) * d * price_ratio_
          : 0;
  const double gain = survive_changeover * life.expected * (price_ratio_ - 1);
  return gain - d - save_cost - return_cost;
}

bool FrugalPolicy::WorthLeavingOnDemand(const Observation& obs, int spare_after) {
  if (spare_after < job_.changeover + 1) return false;  // no time to change over safely
  const int work_left = job_.compute - obs.committed - obs.uncommitted;
  return SpotTripGain(model_.current_age(), work_left, obs.uncommitted, Mode::kOnDemand) > 0;
}

Mode FrugalPolicy::Rules(const Observation& obs) {
  const int d = job_.changeover;

  if (obs.mode == Mode::kOnDemand) {
    if (obs.spot_available) {
      return WorthLeavingOnDemand(obs, SpareAfterLeavingOnDemand(job_, obs)) ? Mode::kSpot
                                                                             : Mode::kOnDemand;
    }
    // During an outage stay: going idle would only buy a second changeover onto on-demand
    // when the spare time runs down again (spare time does not grow on on-demand).
    return Mode::kOnDemand;
  }

  const int spare = SpareSteps(job_, obs);
  if (spare < 1) return Mode::kOnDemand;  // the deadline guarantee
  if (obs.spot_available) {
    if (obs.mode == Mode::kSpot) return Mode::kSpot;
    // Entering spot spends a changeover of spare time; if that would leave none, the job
    // would be pulled onto on-demand before doing any work.
    if (spare < d + 1) return Mode::kOnDemand;
    // A run expected to die before its changeover pays for itself is better waited out.
    const int work_left = job_.compute - obs.committed;
    return SpotTripGain(model_.current_age(), work_left, 0, Mode::kIdle) > 0 ? Mode::kSpot
                                                                             : Mode::kIdle;
  }
  if (spare > ReserveSteps(obs)) {
    // Above the reserve, waiting costs nothing but spare time, and waiting keeps the option
    // that spot returns for the rest of the job. (Covering outages earlier — pacing the spare
    // time over the outages expected, or when the availability seen so far predicts too little
    // spot — lost on the synthetic families: see docs/spot-policy.md.)
    return Mode::kIdle;
  }
  // At the reserve: ride out an outage expected to end within a changeover, as long as the
  // spare time allows it; otherwise cover it with on-demand. (Waiting a changeover's length
  // into every outage first — ski rental — lost on both the AWS and the synthetic traces.)
  const double outage_left =
      model_.runs(false).ExpectedRemaining(model_.current_age(), model_.Mean(false));
  if (outage_left <= d && spare - outage_left >= d + 1) return Mode::kIdle;
  return Mode::kOnDemand;
}

}  // namespace frugal::spot

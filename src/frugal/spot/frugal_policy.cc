#include "frugal/spot/frugal_policy.h"

#include <algorithm>
#include <cmath>

namespace frugal::spot {
namespace {

// Lifetime assumed before any has been seen: two hours, a middle-of-the-road spot market.
constexpr double kDefaultMeanUpHours = 2.0;
constexpr double kDefaultMeanDownHours = 1.0;

}  // namespace

void RunLengths::Clear() {
  histogram_.assign(kMaxSteps + 1, 0);
  longer_count_.assign(kMaxSteps + 2, 0);
  longer_sum_.assign(kMaxSteps + 2, 0);
  dirty_ = false;
  max_length_ = 0;
  count_ = 0;
  total_ = 0;
}

void RunLengths::Add(int length) {
  if (histogram_.empty()) Clear();
  length = std::clamp(length, 1, kMaxSteps);
  ++histogram_[static_cast<size_t>(length)];
  max_length_ = std::max(max_length_, length);
  ++count_;
  total_ += length;
  dirty_ = true;
}

void RunLengths::Rebuild() {
  // Entries past the longest run are zero from Clear() and stay so; only [0, max] changes.
  for (int a = max_length_; a >= 0; --a) {
    const auto i = static_cast<size_t>(a);
    // Entries at index a sum over lengths > a.
    const double c = a + 1 <= kMaxSteps ? histogram_[i + 1] : 0;
    longer_count_[i] = longer_count_[i + 1] + c;
    longer_sum_[i] = longer_sum_[i + 1] + c * (a + 1);
  }
  dirty_ = false;
}

double RunLengths::ExpectedRemaining(int age, double fallback_mean) {
  if (count_ == 0 || age >= kMaxSteps) return fallback_mean;
  if (dirty_) Rebuild();
  const auto i = static_cast<size_t>(std::max(age, 0));
  // With few runs longer than `age`, blend in the memoryless guess so one lucky run does not
  // decide; the weight of the data grows with how many such runs were seen.
  const double n = longer_count_[i];
  if (n == 0) return fallback_mean;
  const double empirical = longer_sum_[i] / n - age;
  constexpr double kPriorWeight = 2.0;
  return (n * empirical + kPriorWeight * fallback_mean) / (n + kPriorWeight);
}

RunLengths::Capped RunLengths::ExpectedRemainingCapped(int age, int cap, double fallback_mean) {
  // Memoryless guess: E[min(X, cap)] and P(X < cap) for an exponential X of the given mean.
  const double m = std::max(fallback_mean, 1e-9);
  const double tail = std::exp(-cap / m);
  Capped prior{m * (1 - tail), 1 - tail};
  if (count_ == 0 || age >= kMaxSteps) return prior;
  if (dirty_) Rebuild();
  const auto a = static_cast<size_t>(std::max(age, 0));
  const auto b = static_cast<size_t>(std::min(age + std::max(cap, 0), kMaxSteps + 1));
  const double n = longer_count_[a];
  if (n == 0) return prior;
  // Runs ending within the cap contribute (ℓ − age); longer ones contribute the cap.
  const double ending = n - longer_count_[b];
  const double ending_sum = (longer_sum_[a] - longer_sum_[b]) - age * ending;
  const double capped = (ending_sum + cap * longer_count_[b]) / n;
  constexpr double kPriorWeight = 2.0;
  return Capped{(n * capped + kPriorWeight * prior.expected) / (n + kPriorWeight),
                (ending + kPriorWeight * prior.ends_before_cap) / (n + kPriorWeight)};
}

void FrugalPolicy::Start(const PolicyContext& context) {
  job_ = context.job;
  price_ratio_ = context.price_ratio;
  up_runs_.Clear();
  down_runs_.Clear();
  current_age_ = 0;
  up_steps_seen_ = 0;
  steps_seen_ = 0;
  current_available_ = !context.past.empty() && context.past.front() != 0;
  for (uint8_t available : context.past) Observe(available != 0);
}

void FrugalPolicy::Observe(bool available) {
  ++steps_seen_;
  up_steps_seen_ += available ? 1 : 0;
  if (current_age_ > 0 && available != current_available_) {
    (current_available_ ? up_runs_ : down_runs_).Add(current_age_);
    current_age_ = 0;
  }
  current_available_ = available;
  ++current_age_;
}

double FrugalPolicy::MeanUp() const {
  if (up_runs_.count() > 0) return up_runs_.mean();
  return kDefaultMeanUpHours / job_.step_hours();
}

double FrugalPolicy::MeanDown() const {
  if (down_runs_.count() > 0) return down_runs_.mean();
  return kDefaultMeanDownHours / job_.step_hours();
}

int FrugalPolicy::ReserveSteps(const Observation& obs) {
  const int work_left = job_.compute - obs.committed;
  // No trips are worth holding time for in a market where a return to spot does not pay
  // (lifetimes short against the changeover): then waiting is all the spare time is for.
  if (SpotTripGain(0, work_left, 0, Mode::kOnDemand) <= 0) return 1;
  // Spare time kept for round trips spot → (preempted) → on-demand → spot: each costs two
  // changeovers (and a checkpoint) of spare time, and finishing the remaining work on spot
  // takes about work / mean lifetime of them. Capped: past a few trips, holding more spare
  // time back costs more on-demand now than the trips it buys would save later (checked on
  // the synthetic families, docs/spot-policy.md).
  constexpr double kMaxTrips = 4;
  const double trips = 1.0 + std::min(kMaxTrips, work_left / std::max(1.0, MeanUp()));
  const double per_trip = 2.0 * job_.changeover + job_.checkpoint_cost;
  return 1 + static_cast<int>(trips * per_trip);
}

int FrugalPolicy::MaxReserveSteps() const {
  return 1 + static_cast<int>(5.0 * (2.0 * job_.changeover + job_.checkpoint_cost));
}

double FrugalPolicy::SpotTripGain(int age, int work_left, int unsaved, Mode from) {
  const int d = job_.changeover;
  // The useful part of the spot run: its remaining life after the changeover, capped by the
  // work left.
  const RunLengths::Capped life = up_runs_.ExpectedRemainingCapped(age + d, work_left, MeanUp());
  const double survive_changeover =
      d == 0 ? 1.0 : 1.0 - up_runs_.ExpectedRemainingCapped(age, d, MeanUp()).ends_before_cap;
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
  return SpotTripGain(current_age_, work_left, obs.uncommitted, Mode::kOnDemand) > 0;
}

Mode FrugalPolicy::Decide(const Observation& obs) {
  Observe(obs.spot_available);
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
    return SpotTripGain(current_age_, work_left, 0, Mode::kIdle) > 0 ? Mode::kSpot : Mode::kIdle;
  }
  if (spare > MaxReserveSteps() || spare > ReserveSteps(obs)) {
    // Above the reserve, waiting costs nothing but spare time, and waiting keeps the option
    // that spot returns for the rest of the job. (Covering outages earlier — pacing the spare
    // time over the outages expected, or when the availability seen so far predicts too little
    // spot — lost on the synthetic families: see docs/spot-policy.md.)
    return Mode::kIdle;
  }
  // At the reserve: ride out an outage expected to end within a changeover, as long as the
  // spare time allows it; otherwise cover it with on-demand.
  const double outage_left = down_runs_.ExpectedRemaining(current_age_, MeanDown());
  if (outage_left <= d && spare - outage_left >= d + 1) return Mode::kIdle;
  return Mode::kOnDemand;
}

}  // namespace frugal::spot

#pragma once
// frugal's own deadline policy. Reasoning in docs/spot-policy.md. In short: idle time is
// free and only spare time is spent by waiting, so wait for spot while the spare time is
// above a reserve; the reserve buys future round trips between on-demand and spot, sized by
// how often spot has been seen to die; from on-demand, go back to spot only when the spot
// run's expected remaining life (learned online from the trace's past) pays for the two
// changeovers; ride through outages expected to be shorter than a changeover.

#include <string>
#include <vector>

#include "frugal/spot/policy.h"

namespace frugal::spot {

/// Lengths of the runs of one state (available or not) seen so far, with the expected
/// remaining length of a run that has lasted `age` steps. Capped at kMaxSteps.
class RunLengths {
 public:
  static constexpr int kMaxSteps = 8192;
  void Clear();
  void Add(int length);
  [[nodiscard]] int count() const { return count_; }
  [[nodiscard]] double mean() const { return count_ == 0 ? 0 : total_ / count_; }
  /// E[length − age | length > age]; `fallback_mean` (memoryless) when nothing longer was seen.
  [[nodiscard]] double ExpectedRemaining(int age, double fallback_mean);
  /// E[min(length − age, cap) | length > age] and P(length − age < cap | length > age), each
  /// blended with a memoryless run of mean `fallback_mean` while few runs that long were seen.
  struct Capped {
    double expected = 0;
    double ends_before_cap = 0;
  };
  [[nodiscard]] Capped ExpectedRemainingCapped(int age, int cap, double fallback_mean);

 private:
  void Rebuild();
  std::vector<int> histogram_;
  std::vector<double> longer_count_;  ///< Σ_{ℓ>a} count[ℓ]
  std::vector<double> longer_sum_;    ///< Σ_{ℓ>a} ℓ·count[ℓ]
  bool dirty_ = false;
  int max_length_ = 0;
  int count_ = 0;
  double total_ = 0;
};

class FrugalPolicy final : public Policy {
 public:
  void Start(const PolicyContext& context) override;
  Mode Decide(const Observation& obs) override;
  [[nodiscard]] std::string name() const override { return "frugal"; }

 private:
  void Observe(bool available);
  [[nodiscard]] int ReserveSteps(const Observation& obs);
  /// The largest reserve ReserveSteps can return, without computing it.
  [[nodiscard]] int MaxReserveSteps() const;
  [[nodiscard]] bool WorthLeavingOnDemand(const Observation& obs, int spare_after);
  /// Expected saving, in spot-price steps, of moving `from` idle or on-demand onto a spot run
  /// that has lasted `age` steps, with `work_left` to do; negative when it does not pay.
  [[nodiscard]] double SpotTripGain(int age, int work_left, int unsaved, Mode from);
  [[nodiscard]] double MeanUp() const;
  [[nodiscard]] double MeanDown() const;

  StepJob job_;
  double price_ratio_ = 3;
  RunLengths up_runs_;
  RunLengths down_runs_;
  bool current_available_ = false;
  int current_age_ = 0;  ///< steps the current run (available or not) has lasted
  int up_steps_seen_ = 0;
  int steps_seen_ = 0;
};

}  // namespace frugal::spot

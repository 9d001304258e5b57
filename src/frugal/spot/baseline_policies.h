#pragma once
// The reference policies frugal's own is measured against.

#include <string>

#include "frugal/spot/policy.h"

namespace frugal::spot {

/// Always on-demand: the cost ceiling.
class OnDemandPolicy final : public Policy {
 public:
  void Start(const PolicyContext& context) override { job_ = context.job; }
  Mode Decide(const Observation& /*obs*/) override { return Mode::kOnDemand; }
  [[nodiscard]] std::string name() const override { return "od"; }

 private:
  StepJob job_;
};

/// Greedy with the safety net: spot whenever it is available, idle otherwise, and on-demand
/// for good once the spare time would drop below one step.
class GreedyPolicy final : public Policy {
 public:
  void Start(const PolicyContext& context) override;
  Mode Decide(const Observation& obs) override;
  [[nodiscard]] std::string name() const override { return "greedy"; }

 private:
  StepJob job_;
  bool locked_on_demand_ = false;
};

/// Uniform Progress (Wu et al., NSDI 2024), with expected progress ep(t) = C·t/D:
///  1. when idle and behind (cp(t) < ep(t)), go on-demand to catch up;
///  2. use spot whenever it is available, even when behind, and stay until preempted;
///  3. hysteresis: once on on-demand, stay until cp(t) ≥ ep(t + 2d);
///  4. safety net: when not on on-demand and the time left is under the work left + 2d, go
///     on-demand until the end.
/// Progress cp counts only checkpointed work when checkpoints cost time (work that a
/// preemption can take away is not progress yet).
class UniformProgressPolicy final : public Policy {
 public:
  void Start(const PolicyContext& context) override;
  Mode Decide(const Observation& obs) override;
  [[nodiscard]] std::string name() const override { return "up"; }

 private:
  [[nodiscard]] double Expected(int step) const;

  StepJob job_;
  bool locked_on_demand_ = false;
};

}  // namespace frugal::spot

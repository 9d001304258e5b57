#pragma once
// The online policy interface: at each step, given what has happened so far, choose idle,
// spot or on-demand. A policy never sees the future: the simulator hands it the past of the
// trace (before the job's start) once, then one observation per step.

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/spot/job.h"

namespace frugal::spot {

/// What a policy may know when the job starts.
struct PolicyContext {
  StepJob job;
  std::span<const uint8_t> past;  ///< availability before the job's start, oldest first
  double price_ratio = 3.0;       ///< on-demand ÷ spot at the start
  /// What the market is believed to do before any of it is seen: mean spot lifetime and mean
  /// outage, in steps (0: the policy's own default).
  double prior_lifetime_steps = 0;
  double prior_outage_steps = 0;
};

/// The state at the start of a step, before the decision.
struct Observation {
  int step = 0;                 ///< steps since the job started
  bool spot_available = false;  ///< spot can run during this step
  Mode mode = Mode::kIdle;      ///< the mode held now (idle right after a preemption)
  int changeover_left = 0;      ///< changeover steps still to pay in `mode`
  int committed = 0;            ///< work steps safe in a checkpoint
  int uncommitted = 0;          ///< work steps since the last checkpoint
  double price_ratio = 3.0;     ///< on-demand ÷ spot price of this step
};

class Policy {
 public:
  virtual ~Policy() = default;
  /// Called once before the first step; resets all state.
  virtual void Start(const PolicyContext& context) = 0;
  /// The mode wanted for this step. Spot when it is unavailable is read as idle.
  virtual Mode Decide(const Observation& obs) = 0;
  [[nodiscard]] virtual std::string name() const = 0;
};

/// The policies `frugal simulate --policy` knows: od, greedy, up, frugal.
[[nodiscard]] const std::vector<std::string>& PolicyNames();
/// A fresh policy by name; kBadInput with a suggestion for an unknown one.
[[nodiscard]] Result<std::unique_ptr<Policy>> MakePolicy(const std::string& name);

/// Steps to finish if the job committed to on-demand now, counting the worst case: a spot
/// preemption losing the uncommitted work, a checkpoint before leaving, the changeover.
/// On on-demand past its changeover it is just the work left.
[[nodiscard]] int StepsToFinishOnDemand(const StepJob& job, const Observation& obs);

/// Spare steps: steps left before the deadline minus StepsToFinishOnDemand. A policy that
/// picks anything but on-demand only while this is ≥ 1 never misses a deadline that could be
/// met at the start.
[[nodiscard]] int SpareSteps(const StepJob& job, const Observation& obs);

/// Spare steps the job would have if it left on-demand now (writing a checkpoint first when
/// work is unsaved): the SpareSteps of the idle state it would reach. Leaving is safe only
/// while this is ≥ 1.
[[nodiscard]] int SpareAfterLeavingOnDemand(const StepJob& job, const Observation& obs);

}  // namespace frugal::spot

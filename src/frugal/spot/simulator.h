#pragma once
// The trace-driven simulator: runs one job from one start step of a StepTrace under a policy.
//
// Each step: a job on spot whose spot vanished is preempted (its uncommitted work is lost);
// the policy chooses a mode; a change of mode out of a running mode with unsaved work first
// writes a checkpoint (the policy is not asked again until it is written); entering spot or
// on-demand pays the changeover; then the step is billed at the mode's price and does one
// unit of changeover, checkpoint or work. On spot the job checkpoints every
// `checkpoint_every` work steps, and when a notice announces a preemption far enough ahead
// it checkpoints at once. Past the deadline an unfinished job is finished on on-demand so
// its cost stays comparable; it counts as a miss.

#include <span>
#include <vector>

#include "frugal/spot/job.h"
#include "frugal/spot/policy.h"

namespace frugal::spot {

/// One run's outcome. Money in dollars as double here (the inner loop); convert to Money at
/// the edges.
struct RunResult {
  double cost_usd = 0;
  int spot_steps = 0;        ///< billed steps on spot (work, changeover, checkpoints)
  int on_demand_steps = 0;   ///< billed steps on on-demand
  int changeovers = 0;
  int preemptions = 0;
  int lost_steps = 0;        ///< work lost to preemptions
  int finish_step = 0;       ///< steps from start until the work was done
  bool deadline_met = false;
};

/// One step of a recorded run, for plots.
struct StepRecord {
  Mode mode = Mode::kIdle;
  bool available = false;
  int progress = 0;  ///< committed + uncommitted work after the step
};

/// Simulates `policy` on `trace` from `start`. The policy sees trace.available[0, start) as
/// its past. When `record` is not null it receives one entry per step.
[[nodiscard]] RunResult Simulate(const StepTrace& trace, int start, const StepJob& job,
                                 Policy& policy, std::vector<StepRecord>* record = nullptr);

/// Runs a fixed sequence of modes (one per step, idle after its end) instead of a policy;
/// used to check the optimum by brute force.
[[nodiscard]] RunResult SimulateSequence(const StepTrace& trace, int start, const StepJob& job,
                                         std::span<const Mode> modes);

}  // namespace frugal::spot

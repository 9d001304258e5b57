#pragma once
// The offline optimum: the cheapest way to finish a job by its deadline when the whole trace
// is known. An exact dynamic program, backwards over steps, on states (progress, mode,
// changeover or checkpoint steps remaining) with the simulator's step semantics:
//   idle; in mode m ∈ {spot, on-demand}: changing over (r steps left), ready (no unsaved
//   work), working (unsaved work), writing a checkpoint (s steps left).
// The optimum chooses when to checkpoint (it knows when preemptions come), so it never lets
// a preemption take work: a spot state with unsaved work has no way through an unavailable
// step. Any simulated policy's run maps onto a plan of the program with no more cost (each of
// its spot or on-demand stretches is matched by one that checkpoints once, at its end), so
// the optimum is a lower bound on every policy that meets the deadline, and equal to the best
// one when checkpoints are free.

#include "frugal/spot/job.h"

namespace frugal::spot {

struct OptimumResult {
  bool feasible = false;  ///< false when no plan finishes by the deadline
  double cost_usd = 0;
};

/// Solves the job started at `start` on `trace`. Time O(deadline · compute · states), memory
/// O(compute · states).
[[nodiscard]] OptimumResult SolveOptimum(const StepTrace& trace, int start, const StepJob& job);

}  // namespace frugal::spot

#pragma once
// The checkpoint interval both the planner (plan/checkpointing.h) and the spot simulator
// (spot/job.h) start from, in one place.

#include <cmath>

namespace frugal {

/// Young (1974): τ = √(2·C·M), the work between checkpoints that balances the time spent
/// writing them (cost C each) against the work lost to failures (mean time between them M).
/// Any unit, as long as C and M share it.
[[nodiscard]] inline double YoungInterval(double checkpoint_cost,
                                          double mean_time_between_failures) {
  return std::sqrt(2.0 * checkpoint_cost * mean_time_between_failures);
}

}  // namespace frugal

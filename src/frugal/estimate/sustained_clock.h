#pragma once
// The one rule for a low-power board's sustained clock: boards capped at 75 W (T4, L4, P4)
// cannot hold their boost clock under sustained tensor load, so they keep a share of their
// listed peak. Used by the cross-GPU training model and the serving replica model alike.

#include "frugal/catalog/gpu.h"

namespace frugal::estimate {

/// Boards at or below this board power are low-power boards.
inline constexpr double kLowPowerWatts = 75;
/// The share of the listed peak a low-power board keeps (fitted on the V100 → T4 rows of
/// bench/estimate/crossgpu/throughput.csv, docs/estimate.md).
inline constexpr double kLowPowerClock = 0.55;

/// kLowPowerClock for a board of at most kLowPowerWatts, else 1.
[[nodiscard]] inline double SustainedClockShare(const catalog::GpuSpec& g) {
  return g.tdp_watts && *g.tdp_watts <= kLowPowerWatts ? kLowPowerClock : 1.0;
}

}  // namespace frugal::estimate

#pragma once
// The one rule for what a board sustains against its datasheet: boards capped at 75 W (T4, L4,
// P4) cannot hold their boost clock under sustained tensor load, so they keep a share of their
// listed peak (the cross-GPU training model and the serving replica model); GeForce boards run
// a training step faster than their listed figures say (the cross-GPU training model).

#include "frugal/catalog/gpu.h"

namespace frugal::estimate {

/// Boards at or below this board power are low-power boards.
inline constexpr double kLowPowerWatts = 75;
/// The share of the listed peak a low-power board keeps (fitted on the V100 → T4 rows of
/// bench/estimate/crossgpu/throughput.csv, docs/estimate.md).
inline constexpr double kLowPowerClock = 0.55;

/// How much faster a GeForce board runs a training step than its listed peak and bandwidth
/// say, against the data-centre boards the models are fitted on: they boost past the rated
/// clock their datasheet quotes, and published rows of the same code on both kinds of board put
/// them 1.4-1.7 times ahead of the data-centre roofline's prediction (chosen leaving each source
/// out, bench/estimate/crossgpu/throughput.csv; docs/estimate.md). Workstation boards keep
/// their listed figures (their rows were within 10%).
inline constexpr double kConsumerSpeed = 1.4;

/// kConsumerSpeed for a GeForce board, else 1: the cross-GPU model's compute and memory rates
/// are multiplied by it. The prior (mfu_prior.h) does not take it: no whole training run on a
/// GeForce board is in its calibration table, and with it the planner would put small jobs on
/// marketplace GeForce boards on the strength of single-layer and CNN timings alone.
[[nodiscard]] inline double ConsumerSpeed(const catalog::GpuSpec& g) {
  return g.segment == catalog::GpuSegment::kConsumer ? kConsumerSpeed : 1.0;
}

/// kLowPowerClock for a board of at most kLowPowerWatts, else 1.
[[nodiscard]] inline double SustainedClockShare(const catalog::GpuSpec& g) {
  return g.tdp_watts && *g.tdp_watts <= kLowPowerWatts ? kLowPowerClock : 1.0;
}

}  // namespace frugal::estimate

#pragma once
// Small models on big GPUs: a micro-step whose matmuls take less time than the fixed cost of
// launching its kernels leaves the GPU idle between them, so utilization falls with model size
// and per-GPU batch. docs/estimate.md "Small work per step".

namespace frugal::estimate {

/// Fixed time per micro-step that does no math: kernel launches and synchronization per layer
/// (forward and backward), plus the step's own (input copy, loss, optimizer bookkeeping).
inline constexpr double kLaunchSecondsPerLayer = 0.25e-3;
inline constexpr double kFixedSecondsPerMicroStep = 1e-3;

/// The share of a micro-step spent on math: c / (c + overhead), where c = `flops_per_micro_step`
/// (on one GPU) ÷ (`peak_flops` × `utilization`) and overhead = layers × kLaunchSecondsPerLayer
/// + kFixedSecondsPerMicroStep. 1 when any input is not positive.
[[nodiscard]] double SmallWorkFactor(double flops_per_micro_step, double peak_flops,
                                     double utilization, int layers);

}  // namespace frugal::estimate

#pragma once
// Small models on big GPUs: a micro-step whose matmuls take less time than the fixed cost of
// launching its kernels leaves the GPU idle between them, so utilization falls with model size
// and per-GPU batch. docs/estimate.md "Small work per step".

namespace frugal::estimate {

/// Host time per micro-step that does no math: eager PyTorch dispatches each layer's forward,
/// backward and optimizer kernels one by one (about 60-70 operations of ~40 µs on the host),
/// plus the step's own (input copy, loss, optimizer bookkeeping). Fitted on BERT-base and
/// BERT-large steps whose time did not change with the batch on an H100 SXM and an H200
/// (2.7-2.9 ms per layer; bench/gpu, bench/RESULTS.md).
inline constexpr double kLaunchSecondsPerLayer = 2.7e-3;
inline constexpr double kFixedSecondsPerMicroStep = 1e-3;

/// The share of a micro-step spent on math: c / max(c, overhead), where c =
/// `flops_per_micro_step` (on one GPU) ÷ (`peak_flops` × `utilization`) and overhead = layers ×
/// kLaunchSecondsPerLayer + kFixedSecondsPerMicroStep. Launches are asynchronous, so the host's
/// dispatch overlaps the GPU's math: the step takes the longer of the two. 1 when any input is
/// not positive.
[[nodiscard]] double SmallWorkFactor(double flops_per_micro_step, double peak_flops,
                                     double utilization, int layers);

}  // namespace frugal::estimate

#pragma once
// Memory per GPU of one training configuration, term by term. The model and its constants are
// documented in docs/estimate.md; every term has a hand-computed unit test.

#include "frugal/estimate/model.h"
#include "frugal/estimate/training.h"

namespace frugal::estimate {

inline constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
/// CUDA context, cuBLAS/cuDNN workspaces and NCCL buffers a training process holds.
inline constexpr double kFixedOverheadBytes = 0.5 * kBytesPerGib;
/// Caching-allocator fragmentation, as a share of everything else.
inline constexpr double kAllocatorOverheadShare = 0.05;
/// NF4 with double quantization: 4 bits plus 0.127 bits of constants per weight (QLoRA paper).
inline constexpr double kNf4BytesPerParam = (4.0 + 0.127) / 8.0;

/// Bytes per GPU, by what holds them.
struct MemoryBreakdown {
  double weights = 0;           ///< model weights (frozen base and adapters included)
  double gradients = 0;         ///< gradients of the trainable weights (plus DDP buckets)
  double optimizer_states = 0;  ///< master copies and moments
  double activations = 0;       ///< saved for backward, per micro-batch
  double logits = 0;            ///< output logits, fp32 loss copies and their gradient
  double overhead = 0;          ///< fixed context plus allocator fragmentation

  [[nodiscard]] double Total() const {
    return weights + gradients + optimizer_states + activations + logits + overhead;
  }
};

/// Parameters that receive gradients: all of them for full training; for LoRA/QLoRA the
/// adapters, rank × (in + out) on every targeted linear layer of every transformer layer.
[[nodiscard]] double TrainableParams(const Model& m, const Training& t);

/// Activation bytes one transformer layer saves for backward for one micro-batch: Korthikanti
/// et al. 2022 (sbh(34 + 5as/h)) adjusted for flash attention (no s² terms; Q, K, V, O and the
/// fp32 log-sum-exp kept), no dropout masks, SwiGLU or GELU MLPs, grouped-query K/V and
/// selective recompute. Under full recompute this is the working set of the one layer being
/// rebuilt (see ActivationBytes).
[[nodiscard]] double LayerActivationBytes(const Model& m, const Training& t);

/// All saved activations for one micro-batch on one GPU.
[[nodiscard]] double ActivationBytes(const Model& m, const Training& t);

/// The full breakdown per GPU for `t` on t.gpus data-parallel GPUs.
[[nodiscard]] MemoryBreakdown EstimateMemory(const Model& m, const Training& t);

}  // namespace frugal::estimate

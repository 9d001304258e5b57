#pragma once
// Memory per GPU of one training configuration, term by term. The model and its constants are
// documented in docs/estimate.md; every term has a hand-computed unit test.

#include "frugal/estimate/model.h"
#include "frugal/estimate/training.h"

namespace frugal::estimate {

/// Bytes of a weight, gradient or activation element in the training precision.
[[nodiscard]] inline double ElementBytes(Precision p) { return IsMixedPrecision(p) ? 2.0 : 4.0; }

/// True when `t` trains with torch AMP's fp32 weights and gradients under 16-bit autocast.
[[nodiscard]] inline bool IsAutocast(const Training& t) {
  return IsMixedPrecision(t.precision) && t.master_weights == MasterWeights::kAmp;
}
/// Bytes of a trainable weight and of its gradient: fp32 under AMP, else the training
/// precision's element. Gradients are communicated at this width too.
[[nodiscard]] inline double TrainableElementBytes(const Training& t) {
  return IsAutocast(t) ? 4.0 : ElementBytes(t.precision);
}

inline constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;
/// CUDA context (about 0.3 GiB bare with lazy module loading, PyTorch issue #107667; well over
/// 1 GiB once the kernels of a training step are loaded, #55277), cuBLAS/cuDNN workspaces and
/// NCCL buffers a training process holds: what nvidia-smi shows beyond the caching allocator.
inline constexpr double kFixedOverheadBytes = 1.3 * kBytesPerGib;
/// Chunks a chunked or fused cross-entropy splits the sequence into (torchtune's default 8).
inline constexpr double kLossChunks = 8.0;
/// Caching-allocator fragmentation, as a share of everything else.
inline constexpr double kAllocatorOverheadShare = 0.05;
/// The share of a GPU's usable memory a plan keeps free by default: allocation spikes,
/// longer batches than the estimate's, a library's workspace; options whose peak is inside it
/// are flagged (docs/estimate.md, `training.memory_headroom`, `--memory-headroom`).
inline constexpr double kDefaultMemoryHeadroom = 0.10;
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
  double context = 0;           ///< the part of overhead outside the caching allocator: the
                                ///< CUDA context, cuBLAS/cuDNN workspaces, NCCL buffers

  [[nodiscard]] double Total() const {
    return weights + gradients + optimizer_states + activations + logits + overhead;
  }
};

/// The peak as `basis` counts it: kAllocated the tensors alone (everything but overhead),
/// kReserved adds the allocator's fragmentation, kNvidiaSmi the context too (Total()).
[[nodiscard]] double MemoryInBasis(const MemoryBreakdown& b, MemoryBasis basis);

/// Parameters that receive gradients: all of them for full training; for LoRA/QLoRA the
/// adapters, rank × (in + out) on every targeted linear layer of every transformer layer.
[[nodiscard]] double TrainableParams(const Model& m, const Training& t);

/// Share of the model's parameters the most loaded GPU of one model replica holds under tensor
/// and pipeline parallelism (before ZeRO): its stage's layers and the input embedding, split
/// over the tensor-parallel ranks; 1 without either.
[[nodiscard]] double ModelShare(const Model& m, const Training& t);

/// Activation bytes one transformer layer saves for backward for one micro-batch: Korthikanti
/// et al. 2022 (sbh(34 + 5as/h)) adjusted for flash attention (no s² terms; Q, K, V, O and the
/// fp32 log-sum-exp kept) unless attention is eager (Korthikanti's 5·a·s² score term kept),
/// no dropout masks, SwiGLU or GELU MLPs, grouped-query K/V, selective recompute, and tensor
/// (with or without sequence) parallelism as Korthikanti et al. split them. Under full recompute
/// this is the working set of the one layer being rebuilt (see ActivationBytes).
[[nodiscard]] double LayerActivationBytes(const Model& m, const Training& t);

/// All saved activations on one GPU: one micro-batch, or under pipeline parallelism the first
/// stage's layers for min(stages, micro-batches) micro-batches in flight (1F1B).
[[nodiscard]] double ActivationBytes(const Model& m, const Training& t);

/// The full breakdown per GPU for `t` on t.gpus GPUs (the most loaded GPU under pipeline
/// parallelism, counted as if one stage held both embeddings and the logits).
[[nodiscard]] MemoryBreakdown EstimateMemory(const Model& m, const Training& t);

}  // namespace frugal::estimate

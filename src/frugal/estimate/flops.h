#pragma once
// Training FLOPs: the useful model FLOPs (what MFU counts) and the extra FLOPs recompute adds.

#include "frugal/estimate/model.h"
#include "frugal/estimate/training.h"

namespace frugal::estimate {

struct Flops {
  double model = 0;      ///< useful work: 6·N·D + 12·L·h·s·D for full training
  double recompute = 0;  ///< extra forward work recompute performs
  [[nodiscard]] double Total() const { return model + recompute; }
};

/// FLOPs to train on `tokens` tokens. N is the matmul parameter count (Model::MatmulParams);
/// full training never counts less than 6 × all parameters × tokens;
/// the attention term is 12·layers·hidden·seq per token (QKᵀ and AV, forward and backward,
/// counted without causal savings as PaLM's MFU does). LoRA/QLoRA: the frozen base needs
/// forward (2N) and input gradients (2N) only, so 4·N·D plus 6 × adapters × D. Full recompute
/// adds one more forward (2·N·D + 4·L·h·s·D); selective recompute only element-wise work,
/// counted as zero FLOPs (its time cost is in the runtime model). Inference (weights-only): one
/// forward, 2·N·D + 4·L·h·s·D, nothing more.
[[nodiscard]] Flops TrainingFlops(const Model& m, const Training& t, double tokens);

/// Share of a training step's FLOPs the forward pass takes (the rest is backward, with any
/// recompute): about 1/3 for full training, 1/4 under full recompute, 1/2 for LoRA; 1 for
/// inference. It bounds the communication the forward pass can hide (parallelism.h).
[[nodiscard]] double ForwardShare(const Model& m, const Training& t);

/// Share of a training step's FLOPs in attention's QKᵀ and AV (forward, backward and any
/// recompute): the compute context parallelism's K/V exchange overlaps.
[[nodiscard]] double AttentionShare(const Model& m, const Training& t);

}  // namespace frugal::estimate

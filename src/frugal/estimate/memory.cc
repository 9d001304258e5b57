#include "frugal/estimate/memory.h"

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"

namespace frugal::estimate {

namespace {

/// Bytes per trainable parameter of the optimizer's moments, and whether they live on the GPU.
double MomentBytesPerParam(const Model& m, Optimizer o) {
  switch (o) {
    case Optimizer::kAdamW:
    case Optimizer::kPagedAdamW:
      return 8.0;
    case Optimizer::kAdam8bit:
    case Optimizer::kPagedAdam8bit:
      return 2.0;
    case Optimizer::kSgd:
      return 4.0;
    // Row and column fp32 statistics per h×h matrix: 4·2h bytes over h² weights.
    case Optimizer::kAdafactor:
      return 8.0 / D(m.hidden);
  }
  return 8.0;
}

double ShardFor(int zero_stage, int needed_stage, const Training& t) {
  return zero_stage >= needed_stage ? D(t.ShardParallel()) : 1.0;
}

/// Layers one pipeline stage holds (the first stage when they do not divide evenly).
double StageLayers(const Model& m, const Training& t) {
  return std::ceil(D(m.layers) / D(t.pipeline_parallel));
}

/// Parameters of one transformer layer on one GPU (tensor-parallel shard).
double LayerShardParams(const Model& m, const Training& t) {
  return m.LayerParams() / D(t.tensor_parallel);
}

/// Micro-batches whose activations one GPU holds at once: under the 1F1B pipeline schedule the
/// first stage keeps one per stage (fewer when there are fewer micro-batches); else one.
double InFlightMicroBatches(const Training& t) {
  if (t.pipeline_parallel <= 1) return 1.0;
  return D(std::min(t.pipeline_parallel, t.AccumulationSteps()));
}

double WeightBytes(const Model& m, const Training& t) {
  const double element = ElementBytes(t.precision);
  const double share = ModelShare(m, t);
  if (t.method == Method::kInference) return m.params * share * element;
  const double trainable = TrainableElementBytes(t);
  const double adapters = t.method == Method::kFull ? 0.0 : TrainableParams(m, t) * trainable;
  double base = m.params * (t.method == Method::kFull ? trainable : element);
  if (t.method == Method::kQlora) {
    // Linear layers of the blocks are NF4; embeddings, head and norms stay 16-bit.
    const double linear = D(m.layers) * m.LayerLinearParams();
    const double quantized = std::min(linear, m.params);
    base = quantized * kNf4BytesPerParam + (m.params - quantized) * 2.0;
  }
  // Autocast casts each fp32 matmul weight to 16 bits in the forward pass and autograd keeps
  // the copy for backward (the input gradient needs it): a 16-bit copy of every matmul weight.
  const double autocast_copies =
      IsAutocast(t) && t.method == Method::kFull ? m.MatmulParams() * share * element : 0.0;
  // FSDP/ZeRO-3 gathers the current layer and prefetches the next in full; with parameters
  // offloaded that working set is all the GPU holds.
  const double gathered = 2.0 * LayerShardParams(m, t) * element;
  if (t.offload == Offload::kAll) return gathered + adapters * share;
  double bytes = (base + adapters) * share / ShardFor(t.zero_stage, 3, t) + autocast_copies;
  if (t.zero_stage == 3 && t.ShardParallel() > 1) bytes += gathered;
  return bytes;
}

double GradientBytes(const Model& m, const Training& t) {
  if (t.method == Method::kInference) return 0;
  const double element = TrainableElementBytes(t);
  const double grads = TrainableParams(m, t) * ModelShare(m, t) * element;
  if (t.optimizer_in_backward) {
    // Each parameter is stepped as soon as its gradient is ready and the gradient freed: the
    // largest single matrix is the most held at once.
    const double largest = t.method == Method::kFull
                               ? std::max(D(m.vocab), D(m.ffn)) * D(m.hidden) / D(t.tensor_parallel)
                               : grads / D(m.layers);
    return std::min(grads, largest * element);
  }
  if (t.offload == Offload::kAll) return std::min(grads, 2.0 * LayerShardParams(m, t) * element);
  if (t.zero_stage >= 2) return grads / D(t.ShardParallel());
  // Plain DDP copies gradients into communication buckets of the same total size.
  const double buckets = (t.zero_stage == 0 && t.ShardParallel() > 1) ? grads : 0.0;
  return grads + buckets;
}

double OptimizerBytes(const Model& m, const Training& t) {
  if (t.method == Method::kInference || t.offload != Offload::kNone) return 0;
  // AMP's weights are fp32 already: no separate master copy.
  const bool has_master = IsMixedPrecision(t.precision) && t.master_weights == MasterWeights::kFp32;
  const double master = has_master ? 4.0 : 0.0;
  // Paged moments sit in CUDA unified memory and page out to the host when the GPU is full.
  const bool paged =
      t.optimizer == Optimizer::kPagedAdam8bit || t.optimizer == Optimizer::kPagedAdamW;
  const double moments = paged ? 0.0 : MomentBytesPerParam(m, t.optimizer);
  return TrainableParams(m, t) * ModelShare(m, t) * (master + moments) /
         ShardFor(t.zero_stage, 1, t);
}

double LogitBytes(const Model& m, const Training& t) {
  const double element = ElementBytes(t.precision);
  const bool mixed = IsMixedPrecision(t.precision);
  double per_element = 0;
  if (t.method == Method::kInference) {
    per_element = mixed ? element + 4.0 : 4.0;  // the head's output and its fp32 copy
  } else {
    switch (t.loss) {
      // The head's output in the training precision, its fp32 upcast for the loss, and the
      // fp32 gradient the loss returns; fp32 training has no separate upcast.
      case Loss::kStandard:
        per_element = mixed ? element + 4.0 + 4.0 : 4.0 + 4.0;
        break;
      // The output is kept; only one chunk at a time is upcast and differentiated.
      case Loss::kChunked:
        per_element = element + 8.0 / kLossChunks;
        break;
      // Head matmul, loss and gradient fused per chunk: one chunk's logits exist at a time.
      case Loss::kFused:
        per_element = (element + 8.0) / kLossChunks;
        break;
    }
  }
  return D(m.seq) / D(t.context_parallel) * D(t.micro_batch) * D(m.vocab) / D(t.tensor_parallel) *
         per_element;
}

}  // namespace

double ModelShare(const Model& m, const Training& t) {
  if (t.tensor_parallel <= 1 && t.pipeline_parallel <= 1 && t.expert_parallel <= 1) return 1.0;
  const double arch = ArchitectureParams(m);
  if (!(arch > 0)) return 1.0;
  // The first stage holds its layers and the input embedding; a single stage holds both
  // embedding matrices. Everything is split over the tensor-parallel group, and the experts
  // also over the expert-parallel group.
  const double embeddings =
      t.pipeline_parallel > 1 ? D(m.vocab) * D(m.hidden) : m.EmbeddingParams();
  const double experts_elsewhere =
      m.experts > 1 ? D(m.experts) * m.ExpertParams() * (1.0 - 1.0 / D(t.expert_parallel)) : 0.0;
  const double stage = StageLayers(m, t) * (m.LayerParams() - experts_elsewhere) + embeddings;
  return std::min(1.0, stage / D(t.tensor_parallel) / arch);
}

double TrainableParams(const Model& m, const Training& t) {
  if (t.method == Method::kFull) return m.params;
  if (t.method == Method::kInference) return 0;
  const double h = D(m.hidden);
  const double kv = h * m.KvRatio();
  const double f = D(m.ffn);
  // rank × (in + out) for q, k, v, o and the MLP matrices (or q and v, or q, k and v; a fused
  // QKV projection is one h → h + 2·kv layer).
  double widths = 0;
  switch (t.lora_targets) {
    case LoraTargets::kAllLinear:
      widths = (h + h) + 2.0 * (h + kv) + (h + h) + (m.mlp == Mlp::kSwiGlu ? 3.0 : 2.0) * (h + f);
      break;
    case LoraTargets::kAttentionQv:
      widths = (h + h) + (h + kv);
      break;
    case LoraTargets::kAttentionQkv:
      widths = (h + h) + 2.0 * (h + kv);
      break;
    case LoraTargets::kFusedQkv:
      widths = h + (h + 2.0 * kv);
      break;
  }
  return D(m.layers) * D(t.lora_rank) * widths;
}

double LayerActivationBytes(const Model& m, const Training& t) {
  // Context parallelism keeps each GPU's share of the sequence (its queries against every key).
  const double sb = D(m.seq) / D(t.context_parallel) * D(t.micro_batch);
  const double h = D(m.hidden);
  const double f = D(m.ffn);
  const double g = m.KvRatio();
  const double tp = D(t.tensor_parallel);
  // Counts below are in units of 16-bit elements × 2 bytes, per sequence position. `whole`
  // terms are full-width tensors every tensor-parallel rank holds unless sequence parallelism
  // splits them; `split` terms are divided over the tensor-parallel ranks.
  double whole = 0;
  double split = 0;
  switch (t.recompute) {
    case Recompute::kNone:
    case Recompute::kFull:  // the working set of the layer being recomputed
      // Attention: norm input, QKV input (norm output); Q, K and V (GQA width), output.
      // MLP: norm input, MLP input; SwiGLU: gate, SiLU(gate), up, product; GELU: pre-, post-act.
      whole = 2.0 * h + 2.0 * h + 2.0 * h + 2.0 * h;
      split = (2.0 + 4.0 * g + 2.0) * h + (m.mlp == Mlp::kSwiGlu ? 8.0 : 4.0) * f;
      break;
    case Recompute::kSelective:
      // Norm outputs and element-wise results are recomputed: layer input, Q, K, V, output;
      // MLP block input; SwiGLU keeps gate and up; GELU keeps the pre-activation.
      whole = 2.0 * h + 2.0 * h;
      split = (2.0 + 4.0 * g + 2.0) * h + (m.mlp == Mlp::kSwiGlu ? 4.0 : 2.0) * f;
      break;
  }
  // A mixture of experts runs each token through experts_per_token MLPs: their intermediates
  // are kept once per expert the token visits.
  const bool selective = t.recompute == Recompute::kSelective;
  const double mlp_terms =
      (m.mlp == Mlp::kSwiGlu ? (selective ? 4.0 : 8.0) : (selective ? 2.0 : 4.0)) * f;
  split += (D(m.experts_per_token) - 1.0) * mlp_terms;
  const double whole_share = t.sequence_parallel ? tp : 1.0;
  const double scale = ElementBytes(t.precision) / 2.0;
  double bytes = sb * (whole / whole_share + split / tp) * scale;
  if (t.attention == Attention::kEager && t.recompute != Recompute::kSelective) {
    // Korthikanti et al.: scores, softmax output and dropout mask, 5·a·s² bytes per sequence;
    // selective recompute rebuilds exactly these.
    bytes += 5.0 * D(m.heads) / tp * D(m.seq) * sb;
  } else if (t.attention == Attention::kFlash) {
    bytes += 4.0 * sb * D(m.heads) / tp;  // fp32 log-sum-exp per head and position
  }
  return bytes;
}

double ActivationBytes(const Model& m, const Training& t) {
  const double element = ElementBytes(t.precision);
  const double whole_share = t.sequence_parallel ? D(t.tensor_parallel) : 1.0;
  const double sbh =
      D(m.seq) / D(t.context_parallel) * D(t.micro_batch) * D(m.hidden) / whole_share;
  // Embedding output and final-norm input.
  const double ends = 2.0 * sbh * element;
  // A forward pass keeps nothing for backward: only the layer being computed.
  if (t.method == Method::kInference) {
    Training working = t;
    working.recompute = Recompute::kNone;
    return LayerActivationBytes(m, working) + ends;
  }
  const double layers = StageLayers(m, t) * InFlightMicroBatches(t);
  if (t.recompute == Recompute::kFull) {
    // Each layer's input is checkpointed; one layer at a time is rebuilt in full.
    return layers * sbh * element + LayerActivationBytes(m, t) + ends;
  }
  return layers * LayerActivationBytes(m, t) + ends;
}

MemoryBreakdown EstimateMemory(const Model& m, const Training& t) {
  MemoryBreakdown b;
  b.weights = WeightBytes(m, t);
  b.gradients = GradientBytes(m, t);
  b.optimizer_states = OptimizerBytes(m, t);
  b.activations = ActivationBytes(m, t);
  b.logits = LogitBytes(m, t);
  const double dynamic = b.weights + b.gradients + b.optimizer_states + b.activations + b.logits;
  b.context = kFixedOverheadBytes;
  b.overhead = b.context + kAllocatorOverheadShare * dynamic;
  return b;
}

double MemoryInBasis(const MemoryBreakdown& b, MemoryBasis basis) {
  switch (basis) {
    case MemoryBasis::kAllocated:
      return b.Total() - b.overhead;
    case MemoryBasis::kReserved:
      return b.Total() - b.context;
    case MemoryBasis::kNvidiaSmi:
      return b.Total();
  }
  return b.Total();
}

}  // namespace frugal::estimate

#include "frugal/estimate/memory.h"

#include <algorithm>

namespace frugal::estimate {

namespace {

double D(int v) { return static_cast<double>(v); }

/// Bytes of a weight, gradient or activation element in the training precision.
double ElementBytes(Precision p) { return IsMixedPrecision(p) ? 2.0 : 4.0; }

/// Optimizer bytes per trainable parameter: the fp32 master copy under mixed precision plus
/// the moments of the optimizer.
double OptimizerBytesPerParam(const Model& m, const Training& t) {
  const bool has_master = IsMixedPrecision(t.precision) && t.master_weights == MasterWeights::kFp32;
  const double master = has_master ? 4.0 : 0.0;
  double moments = 0;
  switch (t.optimizer) {
    case Optimizer::kAdamW:
      moments = 8.0;
      break;
    case Optimizer::kAdam8bit:
      moments = 2.0;
      break;
    case Optimizer::kSgd:
      moments = 4.0;
      break;
    // Row and column fp32 statistics per h×h matrix: 4·2h bytes over h² weights.
    case Optimizer::kAdafactor:
      moments = 8.0 / D(m.hidden);
      break;
  }
  return master + moments;
}

double ShardFor(int zero_stage, int needed_stage, int gpus) {
  return zero_stage >= needed_stage ? D(gpus) : 1.0;
}

double WeightBytes(const Model& m, const Training& t) {
  const double element = ElementBytes(t.precision);
  const double adapters = t.method == Method::kFull ? 0.0 : TrainableParams(m, t) * element;
  double base = m.params * element;
  if (t.method == Method::kQlora) {
    // Linear layers of the blocks are NF4; embeddings, head and norms stay 16-bit.
    const double linear = D(m.layers) * m.LayerLinearParams();
    const double quantized = std::min(linear, m.params);
    base = quantized * kNf4BytesPerParam + (m.params - quantized) * 2.0;
  }
  const double shard = ShardFor(t.zero_stage, 3, t.gpus);
  double bytes = (base + adapters) / shard;
  if (t.zero_stage == 3 && t.gpus > 1) {
    // FSDP/ZeRO-3 gathers the current layer and prefetches the next in full.
    bytes += 2.0 * m.LayerParams() * element;
  }
  return bytes;
}

double GradientBytes(const Model& m, const Training& t) {
  const double grads = TrainableParams(m, t) * ElementBytes(t.precision);
  if (t.zero_stage >= 2) return grads / D(t.gpus);
  // Plain DDP copies gradients into communication buckets of the same total size.
  const double buckets = (t.zero_stage == 0 && t.gpus > 1) ? grads : 0.0;
  return grads + buckets;
}

double LogitBytes(const Model& m, const Training& t) {
  // The head's output in the training precision, its fp32 upcast for the loss, and the fp32
  // gradient the loss returns; fp32 training has no separate upcast.
  const double per_element = IsMixedPrecision(t.precision) ? 2.0 + 4.0 + 4.0 : 4.0 + 4.0;
  return D(m.seq) * D(t.micro_batch) * D(m.vocab) * per_element;
}

}  // namespace

double TrainableParams(const Model& m, const Training& t) {
  if (t.method == Method::kFull) return m.params;
  const double h = D(m.hidden);
  const double kv = h * m.KvRatio();
  const double f = D(m.ffn);
  // rank × (in + out) for q, k, v, o and the MLP matrices (or q and v only).
  double widths = (h + h) + (h + kv);
  if (t.lora_targets == LoraTargets::kAllLinear) {
    widths += (h + kv) + (h + h) + (m.mlp == Mlp::kSwiGlu ? 3.0 : 2.0) * (h + f);
  }
  return D(m.layers) * D(t.lora_rank) * widths;
}

double LayerActivationBytes(const Model& m, const Training& t) {
  const double sb = D(m.seq) * D(t.micro_batch);
  const double h = D(m.hidden);
  const double f = D(m.ffn);
  const double g = m.KvRatio();
  const double lse = 4.0 * sb * D(m.heads);  // flash attention's fp32 log-sum-exp per head
  // Counts below are in units of 16-bit elements × 2 bytes, per sequence position.
  double attention = 0;
  double mlp = 0;
  switch (t.recompute) {
    case Recompute::kNone:
    case Recompute::kFull:  // the working set of the layer being recomputed
      // norm input, QKV input (norm output), Q, K and V (GQA width), attention output.
      attention = (2.0 + 2.0 + 2.0 + 4.0 * g + 2.0) * h;
      // norm input, MLP input; SwiGLU: gate, SiLU(gate), up, product; GELU: pre-act, post-act.
      mlp = 4.0 * h + (m.mlp == Mlp::kSwiGlu ? 8.0 : 4.0) * f;
      break;
    case Recompute::kSelective:
      // Norm outputs and element-wise results are recomputed: layer input, Q, K, V, output.
      attention = (2.0 + 2.0 + 4.0 * g + 2.0) * h;
      // MLP block input; SwiGLU keeps gate and up; GELU keeps the pre-activation.
      mlp = 2.0 * h + (m.mlp == Mlp::kSwiGlu ? 4.0 : 2.0) * f;
      break;
  }
  const double scale = ElementBytes(t.precision) / 2.0;
  return (sb * (attention + mlp)) * scale + lse;
}

double ActivationBytes(const Model& m, const Training& t) {
  const double element = ElementBytes(t.precision);
  const double sbh = D(m.seq) * D(t.micro_batch) * D(m.hidden);
  // Embedding output and final-norm input.
  const double ends = 2.0 * sbh * element;
  if (t.recompute == Recompute::kFull) {
    // Each layer's input is checkpointed; one layer at a time is rebuilt in full.
    return D(m.layers) * sbh * element + LayerActivationBytes(m, t) + ends;
  }
  return D(m.layers) * LayerActivationBytes(m, t) + ends;
}

MemoryBreakdown EstimateMemory(const Model& m, const Training& t) {
  MemoryBreakdown b;
  b.weights = WeightBytes(m, t);
  b.gradients = GradientBytes(m, t);
  b.optimizer_states =
      TrainableParams(m, t) * OptimizerBytesPerParam(m, t) / ShardFor(t.zero_stage, 1, t.gpus);
  b.activations = ActivationBytes(m, t);
  b.logits = LogitBytes(m, t);
  const double dynamic = b.weights + b.gradients + b.optimizer_states + b.activations + b.logits;
  b.overhead = kFixedOverheadBytes + kAllocatorOverheadShare * dynamic;
  return b;
}

}  // namespace frugal::estimate

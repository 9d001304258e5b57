#include "frugal/estimate/parallelism.h"

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"
#include "frugal/estimate/flops.h"
#include "frugal/estimate/memory.h"

namespace frugal::estimate {

namespace {

/// Share of a ring collective's buffer each rank sends: (n − 1) / n.
double RingShare(int n) { return n <= 1 ? 0.0 : D(n - 1) / D(n); }

/// Exposed seconds of one pass over `layers` layers whose collectives (`comm` seconds per
/// layer) are prefetched one layer ahead of the compute (`compute` seconds per layer): the
/// first layer's collective waits with nothing to hide behind, and every later one shows
/// whatever its layer's compute does not cover.
double PrefetchedPassExposed(double comm, double compute, double layers) {
  return comm + std::max(0.0, layers - 1.0) * std::max(0.0, comm - compute);
}

/// ZeRO-3 / FSDP: what of `total` seconds of gathers and reduce-scatters per step the compute
/// cannot hide. Per micro-batch the forward pass gathers each layer's weights (a third of the
/// bytes, as many collectives) behind the forward compute; backward gathers them again and
/// reduce-scatters the gradients behind the backward (and recompute) compute.
double ShardedExposed(const Model& m, const Training& t, double total, double compute_seconds) {
  const double micro_batches = D(t.AccumulationSteps());
  const double layers = std::ceil(D(m.layers) / D(t.pipeline_parallel));
  const double element = ElementBytes(t.precision);
  const double weights = m.params * ModelShare(m, t) * element;
  const double gradients = TrainableParams(m, t) * ModelShare(m, t) * TrainableElementBytes(t);
  const double forward_part = weights / (2.0 * weights + gradients);
  const double per_layer = total / micro_batches / layers;
  const double compute_per_layer = compute_seconds / micro_batches / layers;
  const double forward_share = ForwardShare(m, t);
  return micro_batches * (PrefetchedPassExposed(forward_part * per_layer,
                                                forward_share * compute_per_layer, layers) +
                          PrefetchedPassExposed((1.0 - forward_part) * per_layer,
                                                (1.0 - forward_share) * compute_per_layer, layers));
}

}  // namespace

double CollectiveBytesPerSecond(const Hardware& hw, int group, int ranks_per_node) {
  if (group <= kGpusPerNode) {
    // nvlink_gbps is the bidirectional total per GPU (GB/s); a collective uses one direction.
    if (hw.nvlink_gbps > 0) return hw.nvlink_gbps * 1e9 / 2.0 * kNvlinkEfficiency;
    return kPcieBytesPerSecond;
  }
  const double network_gbps = hw.network_gbps > 0 ? hw.network_gbps : kDefaultNetworkGbps;
  const double per_gpu = network_gbps * 1e9 / 8.0 / D(kGpusPerNode) * kNetworkEfficiency;
  return per_gpu * D(std::clamp(ranks_per_node, 1, kGpusPerNode));
}

double DataParallelLatency(const Model& m, const Training& t) {
  const int dp = t.ShardParallel();
  if (dp <= 1 || t.gpus <= kGpusPerNode || t.method == Method::kInference) return 0;
  if (t.zero_stage == 3) {
    const double layers = std::ceil(D(m.layers) / D(t.pipeline_parallel));
    return D(t.AccumulationSteps()) * layers * 3.0 * D(dp - 1) * kRingHopSeconds;
  }
  const double gradients = TrainableParams(m, t) * ModelShare(m, t) * TrainableElementBytes(t);
  const double buckets = std::ceil(gradients / kGradientBucketBytes);
  return buckets * 2.0 * std::log2(D(dp)) * kRingHopSeconds;
}

double DataParallelBytes(const Model& m, const Training& t) {
  const int dp = t.ShardParallel();
  if (dp <= 1 || t.method == Method::kInference) return 0;
  const double element = ElementBytes(t.precision);
  const double share = ModelShare(m, t);
  const double gradients = TrainableParams(m, t) * share * TrainableElementBytes(t);
  const double ring = RingShare(dp);
  if (t.zero_stage < 3) return 2.0 * ring * gradients;
  const double weights = m.params * share * element;
  return D(t.AccumulationSteps()) * ring * (2.0 * weights + gradients);
}

double TensorParallelBytes(const Model& m, const Training& t) {
  if (t.tensor_parallel <= 1) return 0;
  const double activation =
      D(m.seq) / D(t.context_parallel) * D(t.micro_batch) * D(m.hidden) * ElementBytes(t.precision);
  const double per_layer = t.recompute == Recompute::kFull ? 6.0 : 4.0;
  const double layers = D(m.layers) / D(t.pipeline_parallel);
  // Ring all-reduce: each rank sends 2(t − 1)/t of the buffer.
  return D(t.AccumulationSteps()) * layers * per_layer * 2.0 * RingShare(t.tensor_parallel) *
         activation;
}

double ExpertParallelBytes(const Model& m, const Training& t) {
  if (t.expert_parallel <= 1 || m.experts <= 1) return 0;
  const double tokens =
      D(m.seq) / D(t.context_parallel) * D(t.micro_batch) * D(m.experts_per_token);
  const double exchange = tokens * D(m.hidden) * ElementBytes(t.precision);
  const double layers = std::ceil(D(m.layers) / D(t.pipeline_parallel));
  const double per_layer = t.method == Method::kInference ? 2.0 : 4.0;
  return D(t.AccumulationSteps()) * layers * per_layer * RingShare(t.expert_parallel) * exchange;
}

double ContextParallelBytes(const Model& m, const Training& t) {
  const int cp = t.context_parallel;
  if (cp <= 1) return 0;
  const double kv =
      2.0 * D(m.seq) * D(t.micro_batch) * D(m.hidden) * m.KvRatio() * ElementBytes(t.precision);
  // Forward: K and V of the other ranks; backward: K and V again and their gradients back;
  // full recompute runs the forward ring once more.
  double passes = t.method == Method::kInference ? 1.0 : 3.0;
  if (t.method != Method::kInference && t.recompute == Recompute::kFull) passes += 1.0;
  const double layers = std::ceil(D(m.layers) / D(t.pipeline_parallel));
  return D(t.AccumulationSteps()) * layers * passes * RingShare(cp) * kv;
}

StepTime EstimateStepTime(const Model& m, const Training& t, const Hardware& hw,
                          double compute_seconds) {
  StepTime s;
  s.compute = compute_seconds;
  if (t.pipeline_parallel > 1) {
    s.bubble = compute_seconds * D(t.pipeline_parallel - 1) /
               (D(t.virtual_stages) * D(t.AccumulationSteps()));
  }
  // A tensor-parallel group larger than a node all-reduces as a flat ring over its ranks: each
  // GPU's bytes cross the network through its own share of the node's NICs, every layer.
  s.tensor_parallel =
      TensorParallelBytes(m, t) / CollectiveBytesPerSecond(hw, t.tensor_parallel, 1);
  // Context-parallel ranks sit next to the tensor-parallel ones (Megatron's order): one node
  // while TP × CP fits in it. The ring passes each chunk point to point, over each GPU's own
  // link, and overlaps the attention it feeds.
  const double cp_rate = CollectiveBytesPerSecond(hw, t.tensor_parallel * t.context_parallel, 1);
  s.context_parallel = ContextParallelBytes(m, t) / cp_rate;
  s.exposed_context_parallel =
      std::max(0.0, s.context_parallel - AttentionShare(m, t) * compute_seconds);
  const int tp_pp = t.tensor_parallel * t.pipeline_parallel;
  // Expert-parallel ranks are data-parallel ranks: one node when ep × TP × PP fits in it.
  const int ep_span = t.expert_parallel * std::min(kGpusPerNode, tp_pp);
  // All-to-all: every GPU sends its own tokens, over its own NIC when the group spans nodes.
  s.expert_parallel = ExpertParallelBytes(m, t) / CollectiveBytesPerSecond(hw, ep_span, 1);
  // The data-parallel group crosses nodes as soon as the job does; the GPUs of a node in the
  // data-parallel group are those tensor and pipeline parallelism leave. DDP and ZeRO-1/2
  // all-reduce hierarchically (inside the node first), so those GPUs share the node's NICs.
  // ZeRO-3 and FSDP gather and reduce-scatter every layer over all data-parallel ranks as flat
  // rings: each GPU's bytes cross the network through its own share of the node's NICs.
  const int model_parallel_in_node = std::min(kGpusPerNode, tp_pp);
  const int ranks_per_node =
      t.zero_stage == 3 ? 1 : std::max(1, kGpusPerNode / model_parallel_in_node);
  s.data_parallel = DataParallelBytes(m, t) / CollectiveBytesPerSecond(hw, t.gpus, ranks_per_node) +
                    DataParallelLatency(m, t);
  if (t.zero_stage == 3) {
    s.exposed_data_parallel = ShardedExposed(m, t, s.data_parallel, compute_seconds);
  } else if (s.data_parallel > 0) {
    // Gradient reduction overlaps the backward pass (and its recompute).
    const double backward = (1.0 - ForwardShare(m, t)) * compute_seconds;
    s.exposed_data_parallel = std::max(0.0, s.data_parallel - backward);
  }
  return s;
}

}  // namespace frugal::estimate

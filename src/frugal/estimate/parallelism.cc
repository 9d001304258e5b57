#include "frugal/estimate/parallelism.h"

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"
#include "frugal/estimate/memory.h"

namespace frugal::estimate {

namespace {

/// Share of a ring collective's buffer each rank sends: (n − 1) / n.
double RingShare(int n) { return n <= 1 ? 0.0 : D(n - 1) / D(n); }

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
  const int dp = t.DataParallel();
  if (dp <= 1 || t.gpus <= kGpusPerNode || t.method == Method::kInference) return 0;
  if (t.zero_stage == 3) {
    const double layers = std::ceil(D(m.layers) / D(t.pipeline_parallel));
    return D(t.AccumulationSteps()) * layers * 3.0 * D(dp - 1) * kRingHopSeconds;
  }
  const double gradients = TrainableParams(m, t) * ModelShare(m, t) * ElementBytes(t.precision);
  const double buckets = std::ceil(gradients / kGradientBucketBytes);
  return buckets * 2.0 * std::log2(D(dp)) * kRingHopSeconds;
}

double DataParallelBytes(const Model& m, const Training& t) {
  const int dp = t.DataParallel();
  if (dp <= 1 || t.method == Method::kInference) return 0;
  const double element = ElementBytes(t.precision);
  const double share = ModelShare(m, t);
  const double gradients = TrainableParams(m, t) * share * element;
  const double ring = RingShare(dp);
  if (t.zero_stage < 3) return 2.0 * ring * gradients;
  const double weights = m.params * share * element;
  return D(t.AccumulationSteps()) * ring * (2.0 * weights + gradients);
}

double TensorParallelBytes(const Model& m, const Training& t) {
  if (t.tensor_parallel <= 1) return 0;
  const double activation = D(m.seq) * D(t.micro_batch) * D(m.hidden) * ElementBytes(t.precision);
  const double per_layer = t.recompute == Recompute::kFull ? 6.0 : 4.0;
  const double layers = D(m.layers) / D(t.pipeline_parallel);
  // Ring all-reduce: each rank sends 2(t − 1)/t of the buffer.
  return D(t.AccumulationSteps()) * layers * per_layer * 2.0 * RingShare(t.tensor_parallel) *
         activation;
}

double ExpertParallelBytes(const Model& m, const Training& t) {
  if (t.expert_parallel <= 1 || m.experts <= 1) return 0;
  const double tokens = D(m.seq) * D(t.micro_batch) * D(m.experts_per_token);
  const double exchange = tokens * D(m.hidden) * ElementBytes(t.precision);
  const double layers = std::ceil(D(m.layers) / D(t.pipeline_parallel));
  const double per_layer = t.method == Method::kInference ? 2.0 : 4.0;
  return D(t.AccumulationSteps()) * layers * per_layer * RingShare(t.expert_parallel) * exchange;
}

StepTime EstimateStepTime(const Model& m, const Training& t, const Hardware& hw,
                          double compute_seconds) {
  StepTime s;
  s.compute = compute_seconds;
  if (t.pipeline_parallel > 1) {
    s.bubble = compute_seconds * D(t.pipeline_parallel - 1) /
               (D(t.virtual_stages) * D(t.AccumulationSteps()));
  }
  s.tensor_parallel = TensorParallelBytes(m, t) /
                      CollectiveBytesPerSecond(hw, t.tensor_parallel, t.tensor_parallel);
  // Expert-parallel ranks are data-parallel ranks: one node when ep × TP × PP fits in it.
  const int ep_span = t.expert_parallel * std::min(kGpusPerNode, t.ModelParallel());
  // All-to-all: every GPU sends its own tokens, over its own NIC when the group spans nodes.
  s.expert_parallel = ExpertParallelBytes(m, t) / CollectiveBytesPerSecond(hw, ep_span, 1);
  // The data-parallel group crosses nodes as soon as the job does; the GPUs of a node that
  // in the data-parallel group are those tensor and pipeline parallelism leave.
  const int model_parallel_in_node = std::min(kGpusPerNode, t.ModelParallel());
  const int ranks_per_node = std::max(1, kGpusPerNode / model_parallel_in_node);
  s.data_parallel = DataParallelBytes(m, t) / CollectiveBytesPerSecond(hw, t.gpus, ranks_per_node) +
                    DataParallelLatency(m, t);
  // Gradient reduction overlaps the backward pass (two thirds of the compute); ZeRO-3 also
  // prefetches the forward pass's gathers.
  const double window = t.zero_stage == 3 ? 1.0 : 2.0 / 3.0;
  s.exposed_data_parallel = std::max(0.0, s.data_parallel - window * compute_seconds);
  return s;
}

}  // namespace frugal::estimate

#pragma once
// Time of one optimizer step beyond pure compute: the pipeline bubble, tensor-parallel
// all-reduces and the data-parallel (DDP, ZeRO, FSDP) traffic over the instance's interconnect
// — NVLink or PCIe inside a node, the network between nodes. The model and its constants are
// documented in docs/estimate.md ("Parallelism").

#include "frugal/estimate/mfu_prior.h"
#include "frugal/estimate/model.h"
#include "frugal/estimate/training.h"

namespace frugal::estimate {

/// GPUs of one node (instance) that share NVLink or PCIe; groups larger than this cross the
/// network.
inline constexpr int kGpusPerNode = 8;
/// Share of a link's nominal bandwidth a collective achieves (NCCL bus bandwidth): NVLink,
/// PCIe and the network between nodes.
inline constexpr double kNvlinkEfficiency = 0.75;
inline constexpr double kNetworkEfficiency = 0.75;
/// Per-GPU bandwidth of collectives over PCIe (no NVLink), bytes/s.
inline constexpr double kPcieBytesPerSecond = 16e9;
/// Inter-node bandwidth assumed when neither the offer nor the user names one: 100 Gbit/s per
/// node, the plain Ethernet of an instance without a training fabric.
inline constexpr double kDefaultNetworkGbps = 100.0;
/// Latency of one hop of a ring collective between nodes, seconds (judgement: InfiniBand and
/// EFA put a few microseconds on the wire, NCCL's protocol adds more). Ring all-gathers and
/// reduce-scatters over n ranks take n − 1 hops, so ZeRO-3's per-layer collectives grow
/// slower with every node added.
inline constexpr double kRingHopSeconds = 8e-6;
/// DDP and ZeRO-1/2 reduce gradients in buckets of this many bytes (PyTorch DDP's 25 MB).
inline constexpr double kGradientBucketBytes = 25e6;

/// Seconds of one optimizer step, by what they are spent on.
struct StepTime {
  double compute = 0;  ///< every micro-batch's FLOPs at the compute utilization
  double bubble = 0;   ///< pipeline fill and drain: compute × (stages − 1) / micro-batches
  double tensor_parallel = 0;           ///< tensor-parallel all-reduces (on the critical path)
  double expert_parallel = 0;           ///< mixture-of-experts all-to-all token exchange (ditto)
  double context_parallel = 0;          ///< context-parallel K/V ring exchange in total
  double exposed_context_parallel = 0;  ///< the part of it the attention compute does not hide
  double data_parallel = 0;             ///< data-parallel traffic in total
  double exposed_data_parallel = 0;     ///< the part of it compute does not hide

  [[nodiscard]] double Total() const {
    return compute + bubble + tensor_parallel + expert_parallel + exposed_context_parallel +
           exposed_data_parallel;
  }
};

/// Bytes per second at which each GPU moves its part of a collective among `group` GPUs of
/// `hw`: NVLink or PCIe when the group fits in one node; else the network, where the
/// `ranks_per_node` GPUs of one node in the group split the bytes over their NICs
/// (hierarchical collectives), so each gets ranks_per_node / 8 of the node's bandwidth.
[[nodiscard]] double CollectiveBytesPerSecond(const Hardware& hw, int group, int ranks_per_node);

/// Latency of the data-parallel collectives of one step: ZeRO-3 runs three ring collectives
/// (gather, gather, reduce-scatter) per layer and micro-batch; DDP and ZeRO-1/2 one tree
/// all-reduce per gradient bucket. Zero inside one node.
[[nodiscard]] double DataParallelLatency(const Model& m, const Training& t);

/// Bytes each GPU sends per optimizer step for data parallelism: 2(D−1)/D × gradients for DDP
/// and ZeRO-1/2; for ZeRO-3 every micro-batch gathers the weights twice (forward, backward) and
/// reduce-scatters the gradients.
[[nodiscard]] double DataParallelBytes(const Model& m, const Training& t);

/// Bytes each GPU all-reduces per optimizer step for tensor parallelism: per layer and
/// micro-batch two all-reduces of s·b·h forward and two backward (two more under full
/// recompute); sequence parallelism moves the same bytes as all-gather + reduce-scatter.
[[nodiscard]] double TensorParallelBytes(const Model& m, const Training& t);

/// Bytes each GPU exchanges per optimizer step for expert parallelism: per MoE layer and
/// micro-batch, tokens are dispatched to their experts and combined back, forward and backward
/// (four all-to-alls of s·b·h × experts_per_token), (ep − 1)/ep of them leaving the GPU.
[[nodiscard]] double ExpertParallelBytes(const Model& m, const Training& t);

/// Bytes each GPU receives per optimizer step for context parallelism (ring attention): per
/// layer and micro-batch the K and V of the other cp − 1 ranks' chunks forward, again with
/// their gradients backward (three passes of 2·s·b·h_kv, (cp − 1)/cp of it from elsewhere; four
/// under full recompute).
[[nodiscard]] double ContextParallelBytes(const Model& m, const Training& t);

/// The step given its compute time (`compute_seconds`, all micro-batches): DDP and ZeRO-1/2
/// gradient traffic overlaps the backward pass; ZeRO-3 / FSDP gathers and reduce-scatters are
/// prefetched one layer ahead, each pass's behind that pass's compute, so at a small batch per
/// GPU what the layer's compute cannot cover is exposed; tensor-parallel traffic is never
/// hidden, and the 1F1B pipeline idles (stages − 1) / virtual_stages micro-batch slots.
[[nodiscard]] StepTime EstimateStepTime(const Model& m, const Training& t, const Hardware& hw,
                                        double compute_seconds);

}  // namespace frugal::estimate

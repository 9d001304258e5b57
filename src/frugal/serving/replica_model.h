#pragma once
// The throughput and latency of one serving replica (GPUs of one model under tensor
// parallelism, or one CPU instance), and its memory fit.
//
// Decoders: a decode step reads every weight once and the KV cache of every running request,
// so it is memory-bandwidth bound until the batch is large; the prompt's prefill is compute
// bound. Encoders and CNNs: one forward pass per item, compute bound at the batch the latency
// allows, never faster than reading the weights. The model's constants are below; docs/
// inference-spec.md derives every formula, and bench/serving/ measures it against published
// throughput.

#include <optional>
#include <string>

#include "frugal/catalog/gpu.h"
#include "frugal/serving/inference_spec.h"

namespace frugal::serving {

// Judgement constants (fitted where bench/serving/ says so).
/// Share of the GPU's peak memory bandwidth a decode step achieves.
inline constexpr double kGpuBandwidthEfficiency = 0.75;
/// Share of the GPU's dense peak a prefill or an encoder batch achieves.
inline constexpr double kGpuComputeEfficiency = 0.5;
/// Fixed time per layer per step or batch (kernel launches, scheduling), GPU and CPU.
inline constexpr double kGpuLayerOverheadSeconds = 30e-6;
inline constexpr double kCpuLayerOverheadSeconds = 20e-6;
/// A vCPU's fp32 peak (half a core with two AVX-512 FMA units at 3 GHz) and the share of it
/// inference runtimes reach; memory bandwidth per vCPU.
inline constexpr double kCpuPeakFlopsPerVcpu = 96e9;
inline constexpr double kCpuComputeEfficiency = 0.5;
inline constexpr double kCpuBandwidthPerVcpu = 4e9;
inline constexpr double kCpuBandwidthEfficiency = 0.7;
/// Share of the memory the weights and the runtime leave that the KV cache (or the batch's
/// activations) may take on a GPU (the rest: allocator slack; TensorRT-LLM's default
/// kv_cache_free_gpu_mem_fraction), against the catalog's usable memory
/// (catalog::GpuSpec::UsableMemoryGib); the share of a CPU instance's RAM the server may use.
inline constexpr double kGpuFreeMemoryShare = 0.9;
inline constexpr double kCpuUsableMemory = 0.8;
/// Runtime overhead per device: CUDA context and workspaces; a CPU runtime.
inline constexpr double kGpuRuntimeBytes = 1.0 * (1ull << 30);
inline constexpr double kCpuRuntimeBytes = 0.5 * (1ull << 30);
/// Largest concurrency (decoder) or batch (encoder) considered.
inline constexpr int kMaxBatch = 256;
/// Tokens of prompt prefilled per step (chunked prefill), whose activations are reserved.
inline constexpr int kPrefillChunkTokens = 2048;
/// Tokens of one block of a paged KV cache: a request holds its context so far, rounded up.
inline constexpr int kKvBlockTokens = 16;
/// Percentile factors over the modelled mean (judgement: queueing at the headroom's load).
inline constexpr double kTtftP95Factor = 1.5;
inline constexpr double kTpotP95Factor = 1.2;
inline constexpr double kRequestP50Factor = 1.5;  ///< wait for the batch in flight, then run
inline constexpr double kRequestP95Factor = 2.0;

/// One replica's hardware.
struct ReplicaHardware {
  std::string gpu;                   ///< canonical GPU name; empty for a CPU instance
  int gpus = 0;                      ///< tensor-parallel degree; 0 for a CPU instance
  double memory_bytes = 0;           ///< per device, usable (a CPU instance: its RAM)
  double bandwidth_bytes_per_s = 0;  ///< per device, peak
  double peak_flops = 0;             ///< per device, dense, at the serving precision, sustained
  bool nvlink = false;
  /// Bytes/s each GPU moves in a tensor-parallel all-reduce (NVLink or PCIe, the training
  /// model's estimate::CollectiveBytesPerSecond); 0 for one device.
  double collective_bytes_per_s = 0;
  double vcpus = 0;
  [[nodiscard]] bool cpu() const { return gpus == 0; }
  [[nodiscard]] int devices() const { return gpus == 0 ? 1 : gpus; }
};

/// A GPU replica of `gpus` GPUs: the catalog's usable memory, the dense peak at the precision
/// the weights compute in (fp8 tensor cores for fp8; int8 for w8a8: Int8DenseTops; 16 bits for
/// weight-only int8/int4; tf32 for fp32) times the low-power board's sustained share
/// (estimate/sustained_clock.h). kBadInput when the GPU publishes no memory bandwidth or no
/// dense peak.
[[nodiscard]] Result<ReplicaHardware> GpuReplica(const catalog::GpuSpec& gpu, int gpus,
                                                 WeightFormat weights);
/// Dense int8 tensor TOPS: every tensor-core part since Turing lists int8 at twice its 16-bit
/// dense rate (T4 130 vs 65, A100 624 vs 312, L4 242 vs 121, H100 SXM 1979 vs 989, MI300X
/// 2615 vs 1307); Volta and older have no int8 tensor math: their 16-bit rate.
[[nodiscard]] std::optional<double> Int8DenseTops(const catalog::GpuSpec& gpu);
/// Empty when the serving engines' kernels for `weights` run on `gpu`, else why not. vLLM's
/// AWQ and int8 (w8a8) kernels need CUDA compute capability 7.5 (Turing) or later, its fp8
/// ones 8.0 (weight-only on Ampere, fp8 math from Ada); 16- and 32-bit weights run anywhere.
/// Non-NVIDIA parts (no compute capability) are not screened here.
[[nodiscard]] std::string KernelSupport(WeightFormat weights, const catalog::GpuSpec& gpu);
/// A CPU instance with `vcpus` and `ram_gib` (0: 4 GiB per vCPU assumed).
[[nodiscard]] ReplicaHardware CpuReplica(double vcpus, double ram_gib);

/// Memory per device, in bytes.
struct MemoryFit {
  double weights = 0;
  double kv_cache = 0;  ///< decoder: the KV cache at the concurrency; encoder: activations
  double overhead = 0;  ///< runtime, prefill chunk
  double capacity = 0;  ///< usable
  [[nodiscard]] double total() const { return weights + kv_cache + overhead; }
  [[nodiscard]] bool fits() const { return total() <= capacity; }
};

/// Bytes of the whole model's weights: linear layers in the weight format, embeddings and
/// norms in 16 bits (32 for fp32 weights). A mixture of experts holds every expert.
[[nodiscard]] double ModelWeightBytes(const ServedModel& m);
/// Parameters a token multiplies by: all but the input embedding's rows and, in a mixture of
/// experts, the experts it is not routed to.
[[nodiscard]] double ActiveMatmulParams(const ServedModel& m);
/// Weight bytes one forward step over `tokens` tokens reads: every dense weight but the input
/// embedding's rows, and of each layer's E experts the ones some token is routed to, in
/// expectation E·(1 − (1 − k/E)^tokens) for top-k routing.
[[nodiscard]] double WeightBytesRead(const ServedModel& m, double tokens);
/// Seconds of a tensor-parallel replica's all-reduces in one forward step over `tokens`
/// tokens: two per layer of tokens × hidden 16-bit activations, each a ring moving
/// 2(n − 1)/n of them at hw.collective_bytes_per_s plus log2(n) hops of the training model's
/// estimate::kRingHopSeconds. 0 on one device.
[[nodiscard]] double AllReduceSeconds(const ServedModel& m, const ReplicaHardware& hw,
                                      double tokens);
/// KV-cache bytes one token keeps: 2 (K and V) × layers × hidden × kv_heads/heads × bytes.
[[nodiscard]] double KvBytesPerToken(const ServedModel& m);
/// Forward FLOPs of one encoder/cnn item (flops_per_item, else 2·linear params·tokens plus
/// attention 4·layers·hidden·tokens²).
[[nodiscard]] double ItemFlops(const ServedModel& m, const Workload& w);
/// Memory per device at `batch` concurrent requests (decoder) or items (encoder/cnn).
[[nodiscard]] MemoryFit Memory(const ServedModel& m, const Workload& w, const ReplicaHardware& hw,
                               int batch);

/// Decoder: seconds of one decode step of `batch` requests at `context` tokens each.
[[nodiscard]] double DecodeStepSeconds(const ServedModel& m, const ReplicaHardware& hw, int batch,
                                       double context, double scale = 1.0);
/// Decoder: seconds to prefill one prompt of `tokens`.
[[nodiscard]] double PrefillSeconds(const ServedModel& m, const ReplicaHardware& hw, int tokens,
                                    double scale = 1.0);
/// Encoder/cnn: seconds of one forward pass over `items`.
[[nodiscard]] double BatchSeconds(const ServedModel& m, const Workload& w,
                                  const ReplicaHardware& hw, int items, double scale = 1.0);

/// One replica at one batch.
struct ReplicaPerformance {
  int batch = 0;          ///< concurrent requests (decoder) or items per batch
  double per_second = 0;  ///< output tokens/s (decoder) or items/s
  double requests_per_second = 0;
  LatencyObjective latency;  ///< predicted, seconds
  MemoryFit memory;          ///< at `batch`
  bool meets_latency = true;
  std::string latency_miss;  ///< "tpot_p95 120 ms > 100 ms" when it misses
  bool measured = false;     ///< throughput from a measured profile
  /// At an offered load: the replica's capacity (per_second at the largest batch that fits);
  /// saturated when that is below the load (the queue grows; latencies are at capacity).
  std::optional<double> capacity_per_second;
  bool saturated = false;
};

/// The replica at `batch`; `scale` multiplies every efficiency (a measured calibration).
[[nodiscard]] ReplicaPerformance PerformanceAt(const ServedModel& m, const Workload& w,
                                               const LatencyObjective& objective,
                                               const ReplicaHardware& hw, int batch,
                                               double scale = 1.0);

/// The replica sized: at the workload's point when it states one (its concurrency or batch;
/// at an offered load, the smallest batch whose capacity carries it, throughput the offered
/// load's, or the largest that fits and `saturated` when none does); else the largest batch up
/// to kMaxBatch that fits in memory and meets the objective; when even one request misses it,
/// batch 1 with meets_latency false. nullopt when the weights (or the stated point) do not fit.
[[nodiscard]] std::optional<ReplicaPerformance> SizeReplica(const ServedModel& m, const Workload& w,
                                                            const LatencyObjective& objective,
                                                            const ReplicaHardware& hw,
                                                            double scale = 1.0);

/// "tpot_p95 120 ms > 100 ms" for the first objective `predicted` misses; empty when it meets
/// all of them.
[[nodiscard]] std::string LatencyMiss(const LatencyObjective& objective,
                                      const LatencyObjective& predicted);

}  // namespace frugal::serving

#include "frugal/serving/replica_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"
#include "frugal/estimate/parallelism.h"
#include "frugal/estimate/sustained_clock.h"

namespace frugal::serving {
namespace {

double BandwidthPerSecond(const ReplicaHardware& hw, double scale) {
  const double eff = hw.cpu() ? kCpuBandwidthEfficiency : kGpuBandwidthEfficiency;
  return D(hw.devices()) * hw.bandwidth_bytes_per_s * eff * scale;
}

double FlopsPerSecond(const ReplicaHardware& hw, double scale) {
  const double eff = hw.cpu() ? kCpuComputeEfficiency : kGpuComputeEfficiency;
  return D(hw.devices()) * hw.peak_flops * eff * scale;
}

double LayerOverhead(const ServedModel& m, const ReplicaHardware& hw) {
  return D(m.shape.layers) * (hw.cpu() ? kCpuLayerOverheadSeconds : kGpuLayerOverheadSeconds);
}

/// The share of the parameters in the transformer blocks' linear layers (the quantized part).
double LinearShare(const ServedModel& m) {
  const double arch = estimate::ArchitectureParams(m.shape);
  if (arch <= 0) return 1.0;
  return std::clamp(D(m.shape.layers) * m.shape.LayerLinearParams() / arch, 0.0, 1.0);
}

/// Bytes per weight outside the quantized linear layers (embeddings, head, norms).
double RestBytes(const ServedModel& m) { return m.weights == WeightFormat::kFp32 ? 4.0 : 2.0; }

/// Parameters of every expert's MLP over all layers (0 for a dense model): from the shape, or
/// from the stated active parameters (the inactive ones are (E − k)/E of them).
double ExpertParamsTotal(const ServedModel& m) {
  const estimate::Model& s = m.shape;
  if (s.experts <= 1) return 0;
  if (m.active_params) {
    const double inactive = std::max(0.0, s.params - *m.active_params);
    return inactive * D(s.experts) / D(s.experts - s.experts_per_token);
  }
  return std::min(s.params, D(s.layers) * D(s.experts) * s.ExpertParams());
}

/// The share of the experts some of `tokens` tokens is routed to: 1 − (1 − k/E)^tokens.
double ExpertShareTouched(const ServedModel& m, double tokens) {
  const estimate::Model& s = m.shape;
  if (s.experts <= 1) return 1.0;
  const double miss = 1.0 - D(s.experts_per_token) / D(s.experts);
  return 1.0 - std::pow(miss, std::max(1.0, tokens));
}

/// Expert parameters one token is not routed to (0 for a dense model).
double InactiveParams(const ServedModel& m) {
  return ExpertParamsTotal(m) * (1.0 - ExpertShareTouched(m, 1));
}

std::string Ms(double seconds) {
  return seconds >= 1 ? fmt::format("{:.2f} s", seconds) : fmt::format("{:.1f} ms", seconds * 1e3);
}

}  // namespace

std::optional<double> Int8DenseTops(const catalog::GpuSpec& gpu) {
  const std::optional<double> half = gpu.DenseTflops(catalog::Precision::kFp16);
  const bool int8_tensor =
      gpu.tensor_cores && gpu.architecture != "Volta" && gpu.release_year >= 2018;
  if (!half || !int8_tensor) return half;
  return 2.0 * *half;
}

std::string KernelSupport(WeightFormat weights, const catalog::GpuSpec& gpu) {
  double needs = 0;
  std::string_view what;
  switch (weights) {
    case WeightFormat::kInt4:
      needs = 7.5, what = "4-bit (AWQ/GPTQ) kernels";
      break;
    case WeightFormat::kW8A8:
      needs = 7.5, what = "int8 (w8a8) kernels";
      break;
    case WeightFormat::kFp8:
      needs = 8.0, what = "fp8 kernels";
      break;
    default:
      return "";
  }
  const std::optional<double> cc = catalog::ComputeCapability(gpu.architecture);
  if (!cc || *cc >= needs) return "";
  return fmt::format("{} need CUDA compute capability {:.1f} or later; {} ({}) is {:.1f}", what,
                     needs, gpu.name, gpu.architecture, *cc);
}

Result<ReplicaHardware> GpuReplica(const catalog::GpuSpec& gpu, int gpus, WeightFormat weights) {
  ReplicaHardware hw;
  hw.gpu = gpu.name;
  hw.gpus = std::max(gpus, 1);
  hw.memory_bytes = gpu.UsableMemoryGib() * kGib;
  hw.bandwidth_bytes_per_s = gpu.memory_bandwidth_gbps * 1e9;
  hw.nvlink = gpu.nvlink_gbps.has_value();
  if (hw.gpus > 1) {
    estimate::Hardware link;
    link.has_nvlink = hw.nvlink;
    link.nvlink_gbps = gpu.nvlink_gbps.value_or(0.0);
    hw.collective_bytes_per_s = estimate::CollectiveBytesPerSecond(link, hw.gpus, hw.gpus);
  }
  // Weight-only quantization (int8/int4) dequantizes into 16-bit math; fp8 weights use the
  // fp8 tensor cores where the GPU has them, w8a8 the int8 ones; fp32 computes in tf32.
  std::optional<double> tflops;
  if (weights == WeightFormat::kW8A8) {
    tflops = Int8DenseTops(gpu);
  } else {
    const catalog::Precision p = weights == WeightFormat::kFp8    ? catalog::Precision::kFp8
                                 : weights == WeightFormat::kFp32 ? catalog::Precision::kTf32
                                                                  : catalog::Precision::kFp16;
    tflops = gpu.DenseTflops(p);
  }
  if (!(hw.bandwidth_bytes_per_s > 0) || !tflops || !(hw.memory_bytes > 0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: no published memory bandwidth or dense peak", gpu.name));
  }
  hw.peak_flops = *tflops * 1e12 * estimate::SustainedClockShare(gpu);
  return hw;
}

ReplicaHardware CpuReplica(double vcpus, double ram_gib) {
  ReplicaHardware hw;
  hw.vcpus = vcpus;
  hw.memory_bytes = (ram_gib > 0 ? ram_gib : 4.0 * vcpus) * kGib;
  hw.bandwidth_bytes_per_s = kCpuBandwidthPerVcpu * vcpus;
  hw.peak_flops = kCpuPeakFlopsPerVcpu * vcpus;
  return hw;
}

double ModelWeightBytes(const ServedModel& m) {
  const double params = m.shape.params;
  const double linear = params * LinearShare(m);
  return linear * WeightBytes(m.weights) + (params - linear) * RestBytes(m);
}

double ActiveMatmulParams(const ServedModel& m) {
  return std::max(m.shape.MatmulParams() - InactiveParams(m), 0.0);
}

double WeightBytesRead(const ServedModel& m, double tokens) {
  const double embed_bytes =
      m.shape.tied_embeddings ? 0.0 : D(m.shape.vocab) * D(m.shape.hidden) * RestBytes(m);
  const double total = ModelWeightBytes(m);
  const double dense = std::max(total - embed_bytes, total * 0.5);
  const double expert_bytes = ExpertParamsTotal(m) * WeightBytes(m.weights);
  const double unread = expert_bytes * (1.0 - ExpertShareTouched(m, tokens));
  return std::max(dense - unread, 0.0);
}

double AllReduceSeconds(const ServedModel& m, const ReplicaHardware& hw, double tokens) {
  if (hw.gpus <= 1 || !(hw.collective_bytes_per_s > 0)) return 0;
  const double n = D(hw.gpus);
  const double bytes = tokens * D(m.shape.hidden) * 2.0;
  const double one = 2.0 * (n - 1) / n * bytes / hw.collective_bytes_per_s +
                     std::log2(n) * estimate::kRingHopSeconds;
  return 2.0 * D(m.shape.layers) * one;
}

double KvBytesPerToken(const ServedModel& m) {
  return 2.0 * D(m.shape.layers) * D(m.shape.hidden) * m.shape.KvRatio() * m.kv_cache_bytes;
}

double ItemFlops(const ServedModel& m, const Workload& w) {
  if (m.flops_per_item) return *m.flops_per_item;
  const double tokens = D(w.tokens_per_item);
  const double linear = m.shape.params * LinearShare(m) - InactiveParams(m);
  return 2.0 * std::max(linear, 0.0) * tokens +
         4.0 * D(m.shape.layers) * D(m.shape.hidden) * tokens * tokens;
}

MemoryFit Memory(const ServedModel& m, const Workload& w, const ReplicaHardware& hw, int batch) {
  MemoryFit f;
  const double devices = D(hw.devices());
  f.weights = ModelWeightBytes(m) / devices;
  const double runtime = hw.cpu() ? kCpuRuntimeBytes : kGpuRuntimeBytes;
  const double h = D(m.shape.hidden);
  const double ffn = D(m.shape.ffn);
  if (m.architecture == Architecture::kDecoder) {
    // A paged cache holds each request's context so far: over the requests in flight, on
    // average the prompt and half the output, in whole blocks.
    const double context =
        std::ceil((D(w.input_tokens) + D(w.output_tokens) / 2) / kKvBlockTokens) * kKvBlockTokens;
    f.kv_cache = D(batch) * context * KvBytesPerToken(m) / devices;
    const double chunk = std::min<double>(kPrefillChunkTokens, D(w.input_tokens) * D(batch));
    f.overhead = runtime + chunk * (4.0 * h + 2.0 * ffn) * 2.0 / devices;
  } else if (m.architecture == Architecture::kEncoder) {
    // One layer's activations live at a time: its inputs, Q/K/V, the MLP and the scores.
    const double tokens = D(w.tokens_per_item);
    const double per_item =
        tokens * (4.0 * h + 2.0 * ffn) * 2.0 + D(m.shape.heads) * tokens * tokens * 2.0;
    f.kv_cache = D(batch) * per_item / devices;
    f.overhead = runtime;
  } else {
    // No shapes for a cnn: about one byte of live activation per thousand FLOPs (ResNet-50:
    // 8 MB per 224 px image).
    f.kv_cache = D(batch) * ItemFlops(m, w) / 1000.0 / devices;
    f.overhead = runtime;
  }
  // A CPU server takes a share of the RAM; a GPU engine's cache a share of what the weights and
  // the runtime leave.
  f.capacity =
      hw.cpu() ? hw.memory_bytes * kCpuUsableMemory
               : f.weights + f.overhead +
                     kGpuFreeMemoryShare * std::max(0.0, hw.memory_bytes - f.weights - f.overhead);
  return f;
}

double DecodeStepSeconds(const ServedModel& m, const ReplicaHardware& hw, int batch, double context,
                         double scale) {
  const double bytes = WeightBytesRead(m, D(batch)) + D(batch) * context * KvBytesPerToken(m);
  const double flops = D(batch) * (2.0 * ActiveMatmulParams(m) +
                                   4.0 * D(m.shape.layers) * D(m.shape.hidden) * context);
  return std::max(bytes / BandwidthPerSecond(hw, scale), flops / FlopsPerSecond(hw, scale)) +
         AllReduceSeconds(m, hw, D(batch)) + LayerOverhead(m, hw);
}

double PrefillSeconds(const ServedModel& m, const ReplicaHardware& hw, int tokens, double scale) {
  const double t = D(tokens);
  // Causal attention: QKᵀ and AV over half the square on average.
  const double flops =
      2.0 * ActiveMatmulParams(m) * t + 2.0 * D(m.shape.layers) * D(m.shape.hidden) * t * t;
  return std::max(flops / FlopsPerSecond(hw, scale),
                  WeightBytesRead(m, t) / BandwidthPerSecond(hw, scale)) +
         AllReduceSeconds(m, hw, t) + LayerOverhead(m, hw);
}

double BatchSeconds(const ServedModel& m, const Workload& w, const ReplicaHardware& hw, int items,
                    double scale) {
  const double compute = D(items) * ItemFlops(m, w) / FlopsPerSecond(hw, scale);
  const double tokens = m.architecture == Architecture::kEncoder ? D(w.tokens_per_item) : 1.0;
  const double read = WeightBytesRead(m, D(items) * tokens) / BandwidthPerSecond(hw, scale);
  const int layers = m.architecture == Architecture::kCnn ? 50 : m.shape.layers;
  const double overhead =
      D(layers) * (hw.cpu() ? kCpuLayerOverheadSeconds : kGpuLayerOverheadSeconds);
  const double all_reduce =
      m.architecture == Architecture::kEncoder ? AllReduceSeconds(m, hw, D(items) * tokens) : 0.0;
  return std::max(compute, read) + all_reduce + overhead;
}

std::string LatencyMiss(const LatencyObjective& objective, const LatencyObjective& predicted) {
  struct Check {
    const char* name;
    const std::optional<double>& goal;
    const std::optional<double>& value;
  };
  const Check checks[] = {{"ttft_p50", objective.ttft_p50, predicted.ttft_p50},
                          {"ttft_p95", objective.ttft_p95, predicted.ttft_p95},
                          {"tpot_p50", objective.tpot_p50, predicted.tpot_p50},
                          {"tpot_p95", objective.tpot_p95, predicted.tpot_p95},
                          {"request_p50", objective.request_p50, predicted.request_p50},
                          {"request_p95", objective.request_p95, predicted.request_p95}};
  for (const Check& c : checks) {
    if (c.goal && c.value && *c.value > *c.goal) {
      return fmt::format("{} {} > {}", c.name, Ms(*c.value), Ms(*c.goal));
    }
  }
  return "";
}

ReplicaPerformance PerformanceAt(const ServedModel& m, const Workload& w,
                                 const LatencyObjective& objective, const ReplicaHardware& hw,
                                 int batch, double scale) {
  ReplicaPerformance p;
  p.batch = batch;
  p.memory = Memory(m, w, hw, batch);
  if (m.architecture == Architecture::kDecoder) {
    const double out = D(w.output_tokens);
    const double step = DecodeStepSeconds(m, hw, batch, D(w.input_tokens) + out / 2, scale);
    const double prefill = PrefillSeconds(m, hw, w.input_tokens, scale);
    // Continuous batching: while `batch` requests each make `out` tokens, the replica also
    // prefills `batch` new prompts. Per request: prefill + out steps shared by the batch.
    p.requests_per_second = D(batch) / (out * step + D(batch) * prefill);
    p.per_second = p.requests_per_second * out;
    const double tpot = step + D(batch - 1) * prefill / out;
    const double ttft = prefill + step;
    p.latency.ttft_p50 = ttft;
    p.latency.ttft_p95 = ttft * kTtftP95Factor;
    p.latency.tpot_p50 = tpot;
    p.latency.tpot_p95 = tpot * kTpotP95Factor;
  } else {
    const double t = BatchSeconds(m, w, hw, batch, scale);
    p.per_second = D(batch) / t;
    p.requests_per_second = p.per_second / w.items_per_request;
    p.latency.request_p50 = t * kRequestP50Factor;
    p.latency.request_p95 = t * kRequestP95Factor;
  }
  p.latency_miss = LatencyMiss(objective, p.latency);
  p.meets_latency = p.latency_miss.empty();
  return p;
}

namespace {

/// The largest batch in [lo, kMaxBatch] for which `ok` holds, given that it holds at lo and
/// fails beyond some batch (memory use and latency grow with the batch).
template <typename Ok>
int LargestBatch(int lo, Ok ok) {
  int hi = kMaxBatch + 1;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (ok(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// At an offered load: in steady state the replica runs the batch whose capacity equals the
/// load (Little's law: b requests in flight, each for b ÷ capacity(b) seconds), so the
/// smallest batch that carries it; saturated at the largest that fits when none does.
std::optional<ReplicaPerformance> AtOfferedLoad(const ServedModel& m, const Workload& w,
                                                const LatencyObjective& objective,
                                                const ReplicaHardware& hw, int smallest,
                                                double scale) {
  auto at = [&](int b) { return PerformanceAt(m, w, objective, hw, b, scale); };
  const double load = *w.offered_rps;
  const int most = LargestBatch(smallest, [&](int b) { return at(b).memory.fits(); });
  const ReplicaPerformance full = at(most);
  ReplicaPerformance p = full;
  if (full.requests_per_second < load) {
    p.saturated = true;
  } else {
    int lo = smallest - 1;  // carries less than the load (or below the smallest batch)
    int hi = most;          // carries it
    while (hi - lo > 1) {
      const int mid = lo + (hi - lo) / 2;
      (at(mid).requests_per_second >= load ? hi : lo) = mid;
    }
    p = at(hi);
    const double units = p.per_second / p.requests_per_second;
    p.requests_per_second = load;
    p.per_second = load * units;
  }
  p.capacity_per_second = full.per_second;
  return p;
}

}  // namespace

std::optional<ReplicaPerformance> SizeReplica(const ServedModel& m, const Workload& w,
                                              const LatencyObjective& objective,
                                              const ReplicaHardware& hw, double scale) {
  // A stated point: the replica runs there or not at all.
  if (w.concurrency || w.batch) {
    const ReplicaPerformance p =
        PerformanceAt(m, w, objective, hw, w.concurrency ? *w.concurrency : *w.batch, scale);
    if (!p.memory.fits()) return std::nullopt;
    return p;
  }
  // A request's items share one batch: the smallest batch holds them all.
  const int smallest =
      m.architecture == Architecture::kDecoder
          ? 1
          : std::clamp(static_cast<int>(std::ceil(w.items_per_request)), 1, kMaxBatch);
  const ReplicaPerformance first = PerformanceAt(m, w, objective, hw, smallest, scale);
  if (!first.memory.fits()) return std::nullopt;
  if (w.offered_rps) return AtOfferedLoad(m, w, objective, hw, smallest, scale);
  if (!first.meets_latency) return first;
  const int lo = LargestBatch(smallest, [&](int b) {
    const ReplicaPerformance p = PerformanceAt(m, w, objective, hw, b, scale);
    return p.memory.fits() && p.meets_latency;
  });
  return PerformanceAt(m, w, objective, hw, lo, scale);
}

}  // namespace frugal::serving

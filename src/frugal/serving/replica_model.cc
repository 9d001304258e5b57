#include "frugal/serving/replica_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/numbers.h"

namespace frugal::serving {
namespace {

/// Tensor parallelism's all-reduces cost time: a factor on every step of a multi-GPU replica.
double TensorParallelEfficiency(const ReplicaHardware& hw) {
  if (hw.gpus <= 1) return 1.0;
  return hw.nvlink ? 0.9 : 0.75;
}

double BandwidthPerSecond(const ReplicaHardware& hw, double scale) {
  const double eff = hw.cpu() ? kCpuBandwidthEfficiency : kGpuBandwidthEfficiency;
  return D(hw.devices()) * hw.bandwidth_bytes_per_s * eff * scale * TensorParallelEfficiency(hw);
}

double FlopsPerSecond(const ReplicaHardware& hw, double scale) {
  const double eff = hw.cpu() ? kCpuComputeEfficiency : kGpuComputeEfficiency;
  return D(hw.devices()) * hw.peak_flops * eff * scale * TensorParallelEfficiency(hw);
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

/// Weight bytes a decode step or a forward pass reads: all but the input embedding's rows.
double WeightBytesRead(const ServedModel& m) {
  const double embed_bytes =
      m.shape.tied_embeddings
          ? 0.0
          : D(m.shape.vocab) * D(m.shape.hidden) * (m.weights == WeightFormat::kFp32 ? 4.0 : 2.0);
  const double total = ModelWeightBytes(m);
  return std::max(total - embed_bytes, total * 0.5);
}

std::string Ms(double seconds) {
  return seconds >= 1 ? fmt::format("{:.2f} s", seconds) : fmt::format("{:.1f} ms", seconds * 1e3);
}

}  // namespace

Result<ReplicaHardware> GpuReplica(const catalog::GpuSpec& gpu, int gpus, WeightFormat weights) {
  ReplicaHardware hw;
  hw.gpu = gpu.name;
  hw.gpus = std::max(gpus, 1);
  hw.memory_bytes = gpu.memory_gib * kGib;
  hw.bandwidth_bytes_per_s = gpu.memory_bandwidth_gbps * 1e9;
  hw.nvlink = gpu.nvlink_gbps.has_value();
  // Weight-only quantization (int8/int4) dequantizes into 16-bit math; fp8 weights use the
  // fp8 tensor cores where the GPU has them; fp32 weights compute in tf32 or fp32.
  const catalog::Precision p = weights == WeightFormat::kFp8    ? catalog::Precision::kFp8
                               : weights == WeightFormat::kFp32 ? catalog::Precision::kTf32
                                                                : catalog::Precision::kFp16;
  const std::optional<double> tflops = gpu.DenseTflops(p);
  if (!(hw.bandwidth_bytes_per_s > 0) || !tflops || !(hw.memory_bytes > 0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: no published memory bandwidth or dense peak", gpu.name));
  }
  hw.peak_flops = *tflops * 1e12;
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
  const double rest_bytes = m.weights == WeightFormat::kFp32 ? 4.0 : 2.0;
  return linear * WeightBytes(m.weights) + (params - linear) * rest_bytes;
}

double KvBytesPerToken(const ServedModel& m) {
  return 2.0 * D(m.shape.layers) * D(m.shape.hidden) * m.shape.KvRatio() * m.kv_cache_bytes;
}

double ItemFlops(const ServedModel& m, const Workload& w) {
  if (m.flops_per_item) return *m.flops_per_item;
  const double tokens = D(w.tokens_per_item);
  const double linear = m.shape.params * LinearShare(m);
  return 2.0 * linear * tokens + 4.0 * D(m.shape.layers) * D(m.shape.hidden) * tokens * tokens;
}

MemoryFit Memory(const ServedModel& m, const Workload& w, const ReplicaHardware& hw, int batch) {
  MemoryFit f;
  const double devices = D(hw.devices());
  f.capacity = hw.memory_bytes * (hw.cpu() ? kCpuUsableMemory : kGpuUsableMemory);
  f.weights = ModelWeightBytes(m) / devices;
  const double runtime = hw.cpu() ? kCpuRuntimeBytes : kGpuRuntimeBytes;
  const double h = D(m.shape.hidden);
  const double ffn = D(m.shape.ffn);
  if (m.architecture == Architecture::kDecoder) {
    // Every running request may reach its full context: reserve it all.
    const double context = D(w.input_tokens + w.output_tokens);
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
  return f;
}

double DecodeStepSeconds(const ServedModel& m, const ReplicaHardware& hw, int batch, double context,
                         double scale) {
  const double bytes = WeightBytesRead(m) + D(batch) * context * KvBytesPerToken(m);
  const double flops = D(batch) * (2.0 * m.shape.MatmulParams() +
                                   4.0 * D(m.shape.layers) * D(m.shape.hidden) * context);
  return std::max(bytes / BandwidthPerSecond(hw, scale), flops / FlopsPerSecond(hw, scale)) +
         LayerOverhead(m, hw);
}

double PrefillSeconds(const ServedModel& m, const ReplicaHardware& hw, int tokens, double scale) {
  const double t = D(tokens);
  // Causal attention: QKᵀ and AV over half the square on average.
  const double flops =
      2.0 * m.shape.MatmulParams() * t + 2.0 * D(m.shape.layers) * D(m.shape.hidden) * t * t;
  return std::max(flops / FlopsPerSecond(hw, scale),
                  WeightBytesRead(m) / BandwidthPerSecond(hw, scale)) +
         LayerOverhead(m, hw);
}

double BatchSeconds(const ServedModel& m, const Workload& w, const ReplicaHardware& hw, int items,
                    double scale) {
  const double compute = D(items) * ItemFlops(m, w) / FlopsPerSecond(hw, scale);
  const double read = ModelWeightBytes(m) / BandwidthPerSecond(hw, scale);
  const int layers = m.architecture == Architecture::kCnn ? 50 : m.shape.layers;
  const double overhead =
      D(layers) * (hw.cpu() ? kCpuLayerOverheadSeconds : kGpuLayerOverheadSeconds);
  return std::max(compute, read) + overhead;
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

std::optional<ReplicaPerformance> SizeReplica(const ServedModel& m, const Workload& w,
                                              const LatencyObjective& objective,
                                              const ReplicaHardware& hw, double scale) {
  // A request's items share one batch: the smallest batch holds them all.
  const int smallest =
      m.architecture == Architecture::kDecoder
          ? 1
          : std::clamp(static_cast<int>(std::ceil(w.items_per_request)), 1, kMaxBatch);
  const ReplicaPerformance first = PerformanceAt(m, w, objective, hw, smallest, scale);
  if (!first.memory.fits()) return std::nullopt;
  if (!first.meets_latency) return first;
  // Memory use and latency grow with the batch: bisect for the largest that passes both.
  auto ok = [&](int b) {
    const ReplicaPerformance p = PerformanceAt(m, w, objective, hw, b, scale);
    return p.memory.fits() && p.meets_latency;
  };
  int lo = smallest;
  int hi = kMaxBatch + 1;
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (ok(mid)) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return PerformanceAt(m, w, objective, hw, lo, scale);
}

}  // namespace frugal::serving

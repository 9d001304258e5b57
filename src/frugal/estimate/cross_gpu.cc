#include "frugal/estimate/cross_gpu.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "frugal/core/text.h"
#include "frugal/estimate/parallelism.h"
#include "frugal/estimate/sustained_clock.h"

namespace frugal::estimate {
namespace {

using catalog::GpuSpec;
using catalog::Precision;

// Share of the peak that compute-bound kernels of ordinary training code reach. Fitted with
// the other constants below on bench/estimate/crossgpu/throughput.csv (docs/estimate.md gives the
// fit and the accuracy on the rows left out).
constexpr double kComputeEfficiency = 0.7;
constexpr double kRnnComputeEfficiency = 0.3;
// Per-GPU batch assumed when the job does not say, in units of work.
constexpr double kDefaultUnitsPerStep = 32;
// Data-parallel overhead per doubling of the GPU count (input pipeline, stragglers, the
// collective's latency), and the share of the gradient all-reduce not hidden behind backward.
constexpr double kNvlinkLossPerDoubling = 0.01;
constexpr double kPcieLossPerDoubling = 0.05;
constexpr double kNetworkLossPerDoubling = 0.05;
constexpr double kExposedAllReduce = 0.3;
constexpr double kPcieBytesPerSecond = 12e9;       // PCIe 3/4 x16 as all-reduce achieves it
constexpr double kNetworkBytesPerSecond = 12.5e9;  // 100 Gb/s per GPU between nodes
// Part of a step that no GPU speeds up (kernel launches and host dispatch, synchronizations,
// the input pipeline): this share of the job's roofline time on the reference GPU, the same
// number of seconds on every GPU. Chosen with the family intensities on the `fit` rows of
// bench/estimate/crossgpu/throughput.csv (docs/estimate.md "Fixed share").
constexpr double kFixedShareOfReference = 0.2;
// The reference GPU for that share: A100-80GB SXM (data/gpus.csv): 312 TFLOPS at 16 bits, 156
// for fp32 code on TF32, 2039 GB/s.
constexpr double kReferenceFlops16 = 312e12;
constexpr double kReferenceFlops32 = 156e12;
constexpr double kReferenceBytesPerSecond = 2039e9;

// Arithmetic intensity (training FLOPs per DRAM byte, in the additive roofline below) of a
// family when the job gives neither FLOPs nor bytes per unit: the family priors. Transformers
// and RNNs were chosen with the fixed share above on the `fit` rows of the published NVIDIA
// tables; the CNN's was chosen on them before the fixed share and kept (docs/estimate.md
// "Family priors" says why). Recommenders (embedding lookups: a few FLOPs per byte gathered)
// and tree ensembles are memory-bound by construction, and the NCF rows, held out, confirm the
// recommender's.
double FamilyIntensity(ModelFamily f) {
  switch (f) {
    case ModelFamily::kTransformer:
      return 80;
    case ModelFamily::kCnn:
      return 40;
    case ModelFamily::kRnn:
      return 14;
    case ModelFamily::kRecommender:
      return 5;
    case ModelFamily::kTreeEnsemble:
      return 2;
    case ModelFamily::kOther:
      return 30;
  }
  return 30;
}

// Boards capped at 75 W keep a share of their listed peak: estimate/sustained_clock.h.
double Sustained(const GpuSpec& g) { return SustainedClockShare(g); }

/// Seconds per FLOP of compute-bound work and per byte of memory traffic on one GPU.
struct DeviceRates {
  double per_flop = 0;
  double per_byte = 0;
  double peak_flops = 0;  ///< listed peak for the precision, for the explanation
};

/// The share of the peak a family's compute-bound kernels reach. Recurrent layers run a chain
/// of small GEMMs (one per time step, batch × hidden) that fill a GPU's tensor cores far less
/// than a transformer's or a CNN's large ones: kRnnComputeEfficiency, chosen on the GNMT
/// training and Tacotron 2 rows of bench/estimate/crossgpu/throughput.csv (docs/estimate.md).
double FamilyComputeEfficiency(ModelFamily f) {
  return f == ModelFamily::kRnn ? kRnnComputeEfficiency : kComputeEfficiency;
}

Result<DeviceRates> RatesFor(const GpuSpec& g, Precision p, ModelFamily f) {
  const double flops = FRUGAL_TRY(ComputeFlopsFor(g, p));
  if (!(g.memory_bandwidth_gbps > 0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} publishes no memory bandwidth, so throughput cannot be carried "
                            "to it",
                            g.name));
  }
  const double speed = ConsumerSpeed(g);
  return DeviceRates{1.0 / (flops * FamilyComputeEfficiency(f) * Sustained(g) * speed),
                     1.0 / (g.memory_bandwidth_gbps * 1e9 * speed), flops};
}

/// Seconds per FLOP and per byte on the reference GPU, for the fixed share.
DeviceRates ReferenceRates(Precision p, ModelFamily f) {
  const double flops =
      p == Precision::kFp32 || p == Precision::kTf32 ? kReferenceFlops32 : kReferenceFlops16;
  return DeviceRates{1.0 / (flops * FamilyComputeEfficiency(f)), 1.0 / kReferenceBytesPerSecond,
                     flops};
}

double LinkBytesPerSecond(const GpuSpec& g, int gpus) {
  if (gpus > kGpusPerNode) return kNetworkBytesPerSecond;
  // The table lists NVLink as the total of both directions; a ring uses one.
  if (g.nvlink_gbps) return *g.nvlink_gbps * 1e9 / 2;
  return kPcieBytesPerSecond;
}

/// The measurements as single-GPU throughput per distinct GPU model (multi-GPU ones divided by
/// their count and data-parallel efficiency; repeats of a model averaged).
struct PerGpu {
  const GpuSpec* gpu;
  double per_second;
};

std::vector<PerGpu> SingleGpuFigures(const std::vector<DeviceMeasurement>& measured,
                                     const WorkloadShape& shape) {
  std::vector<PerGpu> out;
  std::vector<int> counts;
  for (const DeviceMeasurement& m : measured) {
    double single = m.per_second / m.gpus;
    if (m.gpus > 1) {
      const double step = shape.units_per_gpu_step.value_or(kDefaultUnitsPerStep) / single;
      single /= DataParallelEfficiency(*m.gpu, m.gpus, shape.params, shape.precision, step);
    }
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const PerGpu& p) { return p.gpu->name == m.gpu->name; });
    if (it == out.end()) {
      out.push_back({m.gpu, single});
      counts.push_back(1);
    } else {
      const size_t i = static_cast<size_t>(it - out.begin());
      it->per_second = (it->per_second * counts[i] + single) / (counts[i] + 1);
      ++counts[i];
    }
  }
  return out;
}

/// Non-negative least squares of t_d = a·per_flop_d + b·per_byte_d on relative error.
/// Returns {a, b}, or nullopt when the devices cannot tell the two terms apart.
std::optional<std::pair<double, double>> FitTerms(const std::vector<DeviceRates>& rates,
                                                  const std::vector<double>& seconds) {
  double uu = 0, uv = 0, vv = 0, u1 = 0, v1 = 0;
  for (size_t i = 0; i < rates.size(); ++i) {
    const double u = rates[i].per_flop / seconds[i];
    const double v = rates[i].per_byte / seconds[i];
    uu += u * u;
    uv += u * v;
    vv += v * v;
    u1 += u;
    v1 += v;
  }
  const double det = uu * vv - uv * uv;
  if (det > 1e-9 * uu * vv) {
    const double a = (u1 * vv - v1 * uv) / det;
    const double b = (v1 * uu - u1 * uv) / det;
    if (a >= 0 && b >= 0) return std::make_pair(a, b);
  }
  // On the boundary: one term alone, whichever fits the measurements better.
  auto residual = [&](double a, double b) {
    double r = 0;
    for (size_t i = 0; i < rates.size(); ++i) {
      const double e = (a * rates[i].per_flop + b * rates[i].per_byte) / seconds[i] - 1;
      r += e * e;
    }
    return r;
  };
  const double a_only = u1 / uu;
  const double b_only = v1 / vv;
  if (det <= 1e-9 * uu * vv) return std::nullopt;
  return residual(a_only, 0) <= residual(0, b_only) ? std::make_pair(a_only, 0.0)
                                                    : std::make_pair(0.0, b_only);
}

/// Seconds per unit on a GPU = per_flop × its seconds per FLOP + per_byte × its seconds per
/// byte + fixed_seconds.
struct TimeTerms {
  double per_flop = 0;
  double per_byte = 0;
  double fixed_seconds = 0;  ///< the part no GPU speeds up
  std::string how;           ///< for the basis
};

/// One measured GPU model (or several that cannot tell the terms apart): its time split by the
/// job's arithmetic intensity, from the shape or the family's default, plus the fixed part:
/// kFixedShareOfReference of the roofline time on the reference GPU.
TimeTerms SplitByIntensity(const GpuSpec& gpu, double per_second, const DeviceRates& rates,
                           const WorkloadShape& shape) {
  const bool from_shape = shape.flops_per_unit && shape.bytes_per_unit &&
                          *shape.flops_per_unit > 0 && *shape.bytes_per_unit > 0;
  const double intensity =
      from_shape ? *shape.flops_per_unit / *shape.bytes_per_unit : FamilyIntensity(shape.family);
  const DeviceRates ref = ReferenceRates(shape.precision, shape.family);
  const double fixed = kFixedShareOfReference * (ref.per_flop * intensity + ref.per_byte);
  const double per_unit_cost = rates.per_flop * intensity + rates.per_byte + fixed;
  const double scale = 1.0 / (per_second * per_unit_cost);  // bytes per unit, as measured
  TimeTerms t{scale * intensity, scale, scale * fixed, ""};
  t.how = fmt::format(
      "roofline from {} ({:.4g}/s): {:.0f} FLOPs per byte ({}), compute-bound share {:.2f} and "
      "fixed share {:.2f} there",
      gpu.name, per_second, intensity,
      from_shape ? "the job's FLOPs and bytes per unit"
                 : fmt::format("{} default", ModelFamilyName(shape.family)),
      rates.per_flop * intensity / per_unit_cost, fixed / per_unit_cost);
  return t;
}

}  // namespace

std::string_view ModelFamilyName(ModelFamily f) {
  switch (f) {
    case ModelFamily::kTransformer:
      return "transformer";
    case ModelFamily::kCnn:
      return "cnn";
    case ModelFamily::kRnn:
      return "rnn";
    case ModelFamily::kRecommender:
      return "recommender";
    case ModelFamily::kTreeEnsemble:
      return "tree_ensemble";
    case ModelFamily::kOther:
      return "other";
  }
  return "other";
}

Result<ModelFamily> ParseModelFamily(std::string_view text) {
  const std::string t = ToLower(Trim(text));
  if (t == "transformer" || t == "llm" || t == "bert" || t == "vit")
    return ModelFamily::kTransformer;
  if (t == "cnn" || t == "vision" || t == "convnet" || t == "resnet") return ModelFamily::kCnn;
  if (t == "rnn" || t == "lstm" || t == "gru") return ModelFamily::kRnn;
  if (t == "recommender" || t == "dlrm" || t == "recsys") return ModelFamily::kRecommender;
  if (t == "tree_ensemble" || t == "tree" || t == "xgboost" || t == "lightgbm" || t == "gbdt" ||
      t == "random_forest")
    return ModelFamily::kTreeEnsemble;
  if (t == "other") return ModelFamily::kOther;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown model family '{}' (expected transformer, cnn, rnn, "
                          "recommender, tree_ensemble or other)",
                          text));
}

Result<DeviceMeasurement> ParseDeviceMeasurement(std::string_view text,
                                                 const catalog::Catalog& catalog) {
  const size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("'{}': expected GPU=THROUGHPUT, e.g. A100-80GB=1450 (units per second "
                            "on one GPU) or A100-80GB:8=9000 (on 8)",
                            text));
  }
  std::string_view name = Trim(text.substr(0, eq));
  int gpus = 1;
  if (const size_t colon = name.find(':'); colon != std::string_view::npos) {
    auto count = ParseInt(name.substr(colon + 1));
    if (!count || *count < 1 || *count > 100000) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("'{}': the GPU count after ':' must be a whole number from 1", text));
    }
    gpus = static_cast<int>(*count);
    name = name.substr(0, colon);
  }
  const GpuSpec* gpu = FRUGAL_TRY(catalog.RequireGpu(name));
  auto value = ParseDouble(Trim(text.substr(eq + 1)));
  if (!value || !(*value > 0) || !std::isfinite(*value)) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("'{}': the throughput must be a positive number of units per second", text));
  }
  return DeviceMeasurement{gpu, gpus, *value};
}

Result<double> ComputeFlopsFor(const GpuSpec& g, Precision p) {
  std::optional<double> tflops;
  switch (p) {
    case Precision::kBf16:
      if (!g.supports_bf16) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{} ({}) has no bf16: use --dtype fp16", g.name,
                                g.architecture.empty() ? "unknown" : g.architecture));
      }
      tflops = g.bf16_tflops ? g.bf16_tflops : g.fp32_tflops;
      break;
    case Precision::kFp16:
      tflops = g.bf16_tflops ? g.bf16_tflops : g.fp32_tflops;
      break;
    case Precision::kTf32:
      if (!g.tf32_tflops) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{} has no TF32 tensor cores: use --dtype fp32 (or fp16)", g.name));
      }
      tflops = g.tf32_tflops;
      break;
    case Precision::kFp32:
      tflops = g.tf32_tflops ? g.tf32_tflops : g.fp32_tflops;
      break;
    case Precision::kFp8:
      if (!g.fp8_tflops) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{} has no fp8 tensor cores: use --dtype bf16 or fp16", g.name));
      }
      tflops = g.fp8_tflops;
      break;
  }
  if (!tflops || !(*tflops > 0)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} publishes no compute figures, so throughput cannot be carried "
                            "to it",
                            g.name));
  }
  return *tflops * 1e12;
}

double DataParallelEfficiency(const GpuSpec& gpu, int gpus, std::optional<double> params,
                              Precision p, double step_seconds) {
  if (gpus <= 1) return 1.0;
  const double doublings = std::log2(static_cast<double>(gpus));
  double base = 1.0;
  if (gpus > kGpusPerNode) {
    base = 1.0 - kNvlinkLossPerDoubling * 3 - kNetworkLossPerDoubling * (doublings - 3);
  } else {
    base = 1.0 - (gpu.nvlink_gbps ? kNvlinkLossPerDoubling : kPcieLossPerDoubling) * doublings;
  }
  base = std::max(base, 0.3);
  if (!params || !(step_seconds > 0)) return base;
  const double grad_bytes = *params * (p == Precision::kFp32 || p == Precision::kTf32 ? 4 : 2);
  const double n = static_cast<double>(gpus);
  const double all_reduce = 2.0 * (n - 1) / n * grad_bytes / LinkBytesPerSecond(gpu, gpus);
  return base / (1.0 + kExposedAllReduce * all_reduce / step_seconds);
}

Result<CrossGpuPrediction> PredictThroughput(const std::vector<DeviceMeasurement>& measured,
                                             const GpuSpec& target, int target_gpus,
                                             const WorkloadShape& shape) {
  if (measured.empty()) {
    return Fail(ErrorCode::kBadInput, "a prediction needs at least one measured throughput");
  }
  if (target_gpus < 1) return Fail(ErrorCode::kBadInput, "--gpus must be at least 1");
  for (const DeviceMeasurement& m : measured) {
    if (m.gpu == nullptr || !(m.per_second > 0) || !std::isfinite(m.per_second) || m.gpus < 1) {
      return Fail(ErrorCode::kBadInput,
                  "a measured throughput must be a positive number on at least one GPU");
    }
  }
  const DeviceRates to = FRUGAL_TRY(RatesFor(target, shape.precision, shape.family));
  const std::vector<PerGpu> singles = SingleGpuFigures(measured, shape);
  std::vector<DeviceRates> rates;
  std::vector<double> seconds;
  for (const PerGpu& s : singles) {
    rates.push_back(FRUGAL_TRY(RatesFor(*s.gpu, shape.precision, shape.family)));
    seconds.push_back(1.0 / s.per_second);
  }
  CrossGpuPrediction out;
  std::optional<std::pair<double, double>> fit;
  if (singles.size() >= 2) fit = FitTerms(rates, seconds);
  TimeTerms t;
  if (fit) {
    t.per_flop = fit->first;
    t.per_byte = fit->second;
    out.fitted = true;
    t.how =
        fmt::format("compute and memory terms fitted on {} measured GPU models", singles.size());
  } else {
    t = SplitByIntensity(*singles[0].gpu, singles[0].per_second, rates[0], shape);
  }
  const double a = t.per_flop, b = t.per_byte, c = t.fixed_seconds;
  const std::string& how = t.how;
  const double target_seconds = a * to.per_flop + b * to.per_byte + c;
  out.single_gpu_per_second = 1.0 / target_seconds;
  out.compute_share_target = a * to.per_flop / target_seconds;
  out.fixed_share_target = c / target_seconds;
  const double step = shape.units_per_gpu_step.value_or(kDefaultUnitsPerStep) * target_seconds;
  out.data_parallel_efficiency =
      DataParallelEfficiency(target, target_gpus, shape.params, shape.precision, step);
  out.per_second = out.single_gpu_per_second * target_gpus * out.data_parallel_efficiency;
  const std::string sustained = Sustained(target) < 1
                                    ? fmt::format(" at {:.0f}% sustained clock ({:g} W board)",
                                                  100 * Sustained(target), *target.tdp_watts)
                                    : "";
  const std::string small_gemms =
      shape.family == ModelFamily::kRnn
          ? fmt::format(" (rnn: small GEMMs, compute at {:.0f}% of peak)",
                        100 * kRnnComputeEfficiency)
          : "";
  out.basis = fmt::format(
      "{}{}; {} {} {:.3g} TFLOPS{}, {:g} GB/s: compute-bound share {:.2f}, fixed share "
      "{:.2f}; {} GPU(s), data-parallel efficiency {:.2f}",
      how, small_gemms, target.name, catalog::PrecisionName(shape.precision), to.peak_flops / 1e12,
      sustained, target.memory_bandwidth_gbps, out.compute_share_target, out.fixed_share_target,
      target_gpus, out.data_parallel_efficiency);
  return out;
}

}  // namespace frugal::estimate

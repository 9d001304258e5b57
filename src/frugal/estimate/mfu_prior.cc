#include "frugal/estimate/mfu_prior.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "frugal/core/text.h"

namespace frugal::estimate {

std::string_view InterconnectName(Interconnect i) {
  switch (i) {
    case Interconnect::kSingle:
      return "single";
    case Interconnect::kNvlink:
      return "nvlink";
    case Interconnect::kPcie:
      return "pcie";
    case Interconnect::kMultiNode:
      return "multi_node";
  }
  return "?";
}

Interconnect InterconnectFor(bool has_nvlink, int gpus) {
  if (gpus <= 1) return Interconnect::kSingle;
  if (gpus > 8) return Interconnect::kMultiNode;
  return has_nvlink ? Interconnect::kNvlink : Interconnect::kPcie;
}

namespace {

struct FamilyBase {
  std::string_view architecture;
  double utilization;
};

// Compute utilization of 16-bit training of a ≥3B-parameter model, as a share of the dense
// tensor peak; communication between GPUs is added by the step model (parallelism.h).
// Ampere (28 time rows) and Hopper (27 time rows) are fitted on bench/estimate/calibration.csv
// (the median ratio of predicted to published GPU-hours brought to 1; docs/estimate.md lists
// the runs). The other families have no published run in the table yet: their bases are
// judgement, set below Ampere where kernels are less mature or the part is memory-bound.
constexpr std::array<FamilyBase, 8> kFamilyBase = {{
    {"volta", 0.40},
    {"turing", 0.30},
    {"ampere", 0.53},
    {"ada lovelace", 0.35},
    {"hopper", 0.45},
    {"blackwell", 0.35},
    {"cdna 3", 0.30},
    {"tpu v5e", 0.45},
}};
constexpr double kUnknownFamilyBase = 0.35;
constexpr double kSelectiveFactor = 0.97;
constexpr double kMinHfu = 0.05;
constexpr double kMaxHfu = 0.75;

double PrecisionFactor(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return 1.3;  // non-tensor fp32 peak is low and easy to approach
    case Precision::kTf32:
      return 0.8;
    case Precision::kBf16:
    case Precision::kFp16:
      return 1.0;
    case Precision::kFp8:
      return 0.65;  // fp8 doubles the peak but not the realized speed
  }
  return 1.0;
}

struct SizeBand {
  const char* what;
  double factor;
};

// Small matmuls cannot fill the tensor cores at their high peak. Fp32 without tensor cores has a
// peak about 15 times lower that the same matmuls do fill: no size penalty there (a GPT-2 125M
// step in fp32 on an H100 SXM reached 0.64 of the fp32 peak; bench/gpu, bench/RESULTS.md).
SizeBand SizeFactor(double params, Precision p) {
  if (p == Precision::kFp32) return {"fp32 (no tensor cores): any model size", 1.0};
  if (params < 0.3e9) return {"model < 0.3B", 0.55};
  if (params < 1e9) return {"model 0.3-1B", 0.75};
  if (params < 3e9) return {"model 1-3B", 0.9};
  return {"model >= 3B", 1.0};
}

/// Host offload: the CPU optimizer step and PCIe transfers (judgement: ZeRO-Offload reports
/// most of the GPU throughput kept for large batches, parameter offload much less).
double OffloadFactor(Offload o) {
  switch (o) {
    case Offload::kNone:
      return 1.0;
    case Offload::kOptimizer:
      return 0.8;
    case Offload::kAll:
      return 0.5;
  }
  return 1.0;
}

double MethodFactor(Method m) {
  switch (m) {
    case Method::kFull:
      return 1.0;
    case Method::kLora:
      return 0.85;  // small adapter matmuls and kernel launches
    case Method::kQlora:
      return 0.6;  // NF4 dequantization on every forward and backward
    case Method::kInference:
      return 1.0;
  }
  return 1.0;
}

}  // namespace

double FamilyBaseUtilization(std::string_view architecture) {
  const std::string lower = ToLower(architecture);
  for (const FamilyBase& f : kFamilyBase) {
    if (f.architecture == lower) return f.utilization;
  }
  return kUnknownFamilyBase;
}

double PriorHfu(const Hardware& hw, const Training& t, double params) {
  double hfu = FamilyBaseUtilization(hw.architecture) * PrecisionFactor(t.precision) *
               SizeFactor(params, t.precision).factor * MethodFactor(t.method) *
               OffloadFactor(t.offload);
  if (t.recompute == Recompute::kSelective) hfu *= kSelectiveFactor;
  return std::clamp(hfu, kMinHfu, kMaxHfu);
}

MfuPrior PriorUtilization(const Hardware& hw, const Training& t, double params) {
  MfuPrior prior;
  prior.factors.push_back(
      {fmt::format("{} base", hw.architecture.empty() ? "unknown" : hw.architecture),
       FamilyBaseUtilization(hw.architecture)});
  prior.factors.push_back({"precision", PrecisionFactor(t.precision)});
  const SizeBand size = SizeFactor(params, t.precision);
  prior.factors.push_back({size.what, size.factor});
  prior.factors.push_back({fmt::format("method {}", MethodName(t.method)), MethodFactor(t.method)});
  if (t.offload != Offload::kNone) {
    prior.factors.push_back(
        {fmt::format("offload {}", OffloadName(t.offload)), OffloadFactor(t.offload)});
  }
  if (t.recompute == Recompute::kSelective) {
    prior.factors.push_back({"selective recompute (element-wise work)", kSelectiveFactor});
  }
  double hfu = 1.0;
  for (const MfuFactor& f : prior.factors) hfu *= f.factor;
  prior.hfu = std::clamp(hfu, kMinHfu, kMaxHfu);
  return prior;
}

}  // namespace frugal::estimate

#pragma once
// Measure once, predict everywhere: a job's throughput measured on one or more GPUs, carried
// to another GPU and GPU count with a roofline-style model. docs/estimate.md "Cross-GPU
// prediction" gives the model and bench/crossgpu/ its accuracy on published tables.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/catalog/gpu.h"
#include "frugal/core/error.h"

namespace frugal::estimate {

/// What kind of model a job trains, for the defaults that depend on it.
enum class ModelFamily { kTransformer, kCnn, kRnn, kRecommender, kTreeEnsemble, kOther };
/// "transformer", "cnn", "rnn", "recommender", "tree_ensemble", "other".
[[nodiscard]] std::string_view ModelFamilyName(ModelFamily f);
/// Accepts the names above (and "tree", "xgboost", "lstm", "gru", "dlrm", "vision"); kBadInput
/// naming the choices otherwise.
[[nodiscard]] Result<ModelFamily> ParseModelFamily(std::string_view text);

/// One measured throughput: `per_second` units (samples, tokens, images: the job's own) per
/// second of the whole job on `gpus` GPUs of `gpu`.
struct DeviceMeasurement {
  const catalog::GpuSpec* gpu = nullptr;
  int gpus = 1;
  double per_second = 0;
};

/// Parses "A100-80GB=1450" (1450 units per second on one such GPU) or "A100-80GB:8=9000" (on 8
/// of them together). kBadInput naming the text for a missing '=', an unknown GPU (with "did
/// you mean") or a throughput that is not a positive number.
[[nodiscard]] Result<DeviceMeasurement> ParseDeviceMeasurement(std::string_view text,
                                                               const catalog::Catalog& catalog);

/// What is known of the job beyond its measurements; every field is optional but the family.
struct WorkloadShape {
  ModelFamily family = ModelFamily::kTransformer;
  catalog::Precision precision = catalog::Precision::kBf16;
  std::optional<double> params;              ///< parameters (for gradient all-reduce volume)
  std::optional<double> flops_per_unit;      ///< training FLOPs per unit of work
  std::optional<double> bytes_per_unit;      ///< DRAM bytes moved per unit of work
  std::optional<double> units_per_gpu_step;  ///< per-GPU batch, in units (default 32)
};

struct CrossGpuPrediction {
  double per_second = 0;             ///< whole job on the target GPUs
  double single_gpu_per_second = 0;  ///< one target GPU
  double compute_share_target = 0;   ///< share of a step's time that is compute-bound
  double fixed_share_target = 0;     ///< share no GPU speeds up (launches, host, input)
  double data_parallel_efficiency = 1;
  bool fitted = false;  ///< compute and memory terms fitted on two or more devices
  std::string basis;    ///< how the figure was reached, for people
};

/// The compute rate (FLOP/s) a GPU offers code written for `p`: fp32 code runs on TF32 tensor
/// cores where the GPU has them (as cuDNN and the frameworks' defaults do), fp16/bf16 on the
/// 16-bit tensor (or packed) rate. kBadInput naming the flag to change for a precision the GPU
/// lacks ("T4 has no bf16: use --dtype fp16") or a GPU without compute figures.
[[nodiscard]] Result<double> ComputeFlopsFor(const catalog::GpuSpec& gpu, catalog::Precision p);

/// Predicts the throughput of the job on `target_gpus` GPUs of `target` from `measured` (at
/// least one). One measurement: the time per unit is split into a compute-bound and a
/// memory-bound part by the job's arithmetic intensity (FLOPs per byte, from the shape or the
/// family's default), each scaling with that GPU's rate, and a fixed part that no GPU speeds
/// up (a share of the job's roofline time on a reference A100). Two or more measurements on
/// different GPU models: the two parts are fitted (non-negative least squares on relative
/// error). The whole-job figure multiplies the single-GPU one by the GPU count and a
/// data-parallel efficiency that falls with the count and with small per-GPU work. kBadInput
/// for an empty or non-positive measurement, or a precision a GPU cannot run.
[[nodiscard]] Result<CrossGpuPrediction> PredictThroughput(
    const std::vector<DeviceMeasurement>& measured, const catalog::GpuSpec& target, int target_gpus,
    const WorkloadShape& shape);

/// Data-parallel efficiency of `gpus` GPUs of `gpu` (a share of linear scaling): an overhead
/// per doubling by interconnect (NVLink in one node, PCIe, or several nodes), times
/// compute / (compute + the exposed part of the gradient all-reduce) when the parameter count
/// and the per-GPU step time are known (`step_seconds` > 0).
[[nodiscard]] double DataParallelEfficiency(const catalog::GpuSpec& gpu, int gpus,
                                            std::optional<double> params, catalog::Precision p,
                                            double step_seconds);

}  // namespace frugal::estimate

#pragma once
// Calibration: published training runs and measured memory peaks (bench/estimate/
// calibration.csv), the estimator's error on each, and the family base utilizations that fit
// them best. Format (CSV, header row, version 1):
//
//   id, kind, layers, hidden, heads, kv_heads, ffn, vocab, seq, mlp, tied, method, lora_rank,
//   lora_targets, dtype, master_weights, optimizer, micro_batch, recompute, zero, gpu, gpus,
//   tokens, published, source, confidence, notes
//
// kind says what `published` is: gpu_hours (for the whole run), model_tflops_per_gpu (achieved
// model FLOP/s per GPU, in TFLOPS), hardware_tflops_per_gpu (the same counting recompute), or
// memory_gb_allocated (peak torch.cuda.max_memory_allocated in 1e9 bytes, which leaves out the
// CUDA context), tokens_per_second_per_gpu (measured throughput per GPU; tokens is any positive
// amount to convert it to GPU-hours) or memory_gib_reserved (peak memory the caching allocator
// reserved, GiB: tensors and allocator slack, without the context) or memory_gib_nvidia_smi
// (what nvidia-smi showed for the process, GiB: the context included). confidence is free text
// ("verified", "paper-from-memory", ...).
//
// Optional columns (version 2; a table without them reads as before): family (the model family
// a leave-one-family-out evaluation holds out together; default: the id up to its first '-'),
// tensor_parallel, pipeline_parallel, sequence_parallel (true/false), global_batch (sequences
// per step; 0 or empty: micro_batch × data-parallel GPUs), virtual_stages, network_gbps (between
// nodes, per node), attention (flash/eager), loss (standard/chunked/fused), offload
// (none/optimizer/all), optimizer_in_backward (true/false), experts, experts_per_token,
// expert_parallel. Empty fields take the defaults.

#include <filesystem>
#include <string>
#include <vector>

#include "frugal/catalog/gpu.h"
#include "frugal/estimate/estimator.h"

namespace frugal::estimate {

enum class CalibrationKind {
  kGpuHours,
  kModelTflopsPerGpu,
  kHardwareTflopsPerGpu,
  kMemoryGbAllocated,
  kTokensPerSecondPerGpu,
  kMemoryGibReserved,
  kMemoryGibNvidiaSmi,
};
/// True for the memory kinds (each compared on its own basis, memory.h MemoryInBasis).
[[nodiscard]] inline bool IsMemoryKind(CalibrationKind k) {
  return k == CalibrationKind::kMemoryGbAllocated || k == CalibrationKind::kMemoryGibReserved ||
         k == CalibrationKind::kMemoryGibNvidiaSmi;
}

struct CalibrationRow {
  std::string id;
  std::string family;  ///< model family, held out together by LeaveOneFamilyOut
  CalibrationKind kind = CalibrationKind::kGpuHours;
  Model model;
  Training training;
  const catalog::GpuSpec* gpu = nullptr;  ///< borrowed from the table passed to the reader
  double tokens = 0;
  double published = 0;
  double network_gbps = 0;  ///< between nodes, per node; 0: the estimator's default
  std::string source;
  std::string confidence;
};

/// Reads the table; GPUs are resolved against `gpus` by canonical name. kBadInput names
/// file:line:column and the column on any bad field.
[[nodiscard]] Result<std::vector<CalibrationRow>> ReadCalibration(
    const std::filesystem::path& path, const std::vector<catalog::GpuSpec>& gpus);
/// The rows borrow their GPU from `gpus`: a temporary table would leave them dangling.
Result<std::vector<CalibrationRow>> ReadCalibration(const std::filesystem::path& path,
                                                    std::vector<catalog::GpuSpec>&& gpus) = delete;

/// One row's comparison. Time rows compare GPU-hours (throughput rows are converted with the
/// estimator's own FLOP count); memory rows compare GB allocated.
struct CalibrationResult {
  const CalibrationRow* row = nullptr;
  bool is_memory = false;
  std::string family;    ///< GPU architecture
  double predicted = 0;  ///< GPU-hours or GB
  double published = 0;  ///< GPU-hours or GB
  [[nodiscard]] double Ratio() const { return predicted / published; }
};

/// Runs the estimator (with the shipped prior) on every row.
[[nodiscard]] Result<std::vector<CalibrationResult>> EvaluateCalibration(
    const std::vector<CalibrationRow>& rows);

/// The median of |ratio − 1| over time rows (or memory rows).
[[nodiscard]] double MedianAbsError(const std::vector<CalibrationResult>& results, bool memory);
/// The median of |ln ratio| over time rows (or memory rows).
[[nodiscard]] double MedianAbsLog(const std::vector<CalibrationResult>& results, bool memory);
/// The median of a list (0 when empty).
[[nodiscard]] double Median(std::vector<double> values);

/// Family base utilization that makes the median time ratio of the family's rows 1.
struct FamilyFit {
  std::string family;
  size_t rows = 0;
  double shipped_base = 0;
  double fitted_base = 0;
};
[[nodiscard]] std::vector<FamilyFit> FitFamilyBases(const std::vector<CalibrationResult>& results);

/// Leave-one-family-out ratio of a time row: predicted / published had the GPU family's base
/// been fitted on the rows of every other model family (its ratio divided by the median ratio
/// of the other families' rows on the same GPU family); nullopt when no other model family has
/// a row on that GPU family. Memory rows have no fitted constant: their ratio as is.
[[nodiscard]] std::optional<double> LeaveOneFamilyOutRatio(
    const std::vector<CalibrationResult>& results, size_t index);

/// Leave-one-out error of a time row: its ratio divided by the median ratio of the other rows
/// of its family, minus one (the error had the base been fitted without it); nullopt when the
/// family has no other row.
[[nodiscard]] std::optional<double> LeaveOneOutError(const std::vector<CalibrationResult>& results,
                                                     size_t index);

}  // namespace frugal::estimate

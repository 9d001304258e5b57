#pragma once
// GPU models and their published specifications (data/gpus.csv).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::catalog {

/// Numeric precision of training math.
enum class Precision { kFp32, kTf32, kBf16, kFp16, kFp8 };
[[nodiscard]] std::string_view PrecisionName(Precision p);
[[nodiscard]] Result<Precision> ParsePrecision(std::string_view text);
/// Bytes per element of the precision's storage (fp32/tf32: 4, bf16/fp16: 2, fp8: 1).
[[nodiscard]] double BytesPerElement(Precision p);

/// The share of the nameplate memory taken as usable for a GPU data/gpu_memory.csv does not
/// list: between the HBM boards' ~99% and the ECC GDDR boards' ~92.5%.
inline constexpr double kDefaultUsableShare = 0.95;

/// Who a part is sold to (data/gpus.csv's `segment`): it sets how much of its datasheet peak a
/// board sustains (estimate/sustained_clock.h).
enum class GpuSegment {
  kDataCentre,   ///< data-centre boards (A100, H100, L4, ...)
  kWorkstation,  ///< professional RTX and Quadro boards (RTX A6000, RTX 6000 Ada, ...)
  kConsumer,     ///< GeForce boards (RTX 3090, RTX 4090, ...)
};
[[nodiscard]] std::string_view GpuSegmentName(GpuSegment s);
/// The segment named `name` (data_centre, workstation, consumer); kBadInput naming the three.
[[nodiscard]] Result<GpuSegment> ParseGpuSegment(std::string_view name);

struct GpuSpec {
  std::string name;  ///< canonical: "A100-80GB", "H100-80GB-SXM", "L4"
  double memory_gib = 0;
  double memory_bandwidth_gbps = 0;   ///< GB/s
  std::optional<double> fp32_tflops;  ///< dense peaks, per GPU
  std::optional<double> tf32_tflops;
  std::optional<double> bf16_tflops;  ///< bf16/fp16 tensor (fp16 only on Turing/Volta)
  std::optional<double> fp8_tflops;
  std::optional<double> nvlink_gbps;  ///< per-GPU NVLink bandwidth, absent for PCIe-only parts
  std::optional<double> tdp_watts;
  std::string architecture;  ///< "Ampere", "Hopper", ...
  int release_year = 0;
  std::string source_url;
  std::string notes;
  bool supports_bf16 = true;  ///< false on Turing and Volta (fp16 only)
  bool tensor_cores = true;   ///< false before Volta (Pascal, Maxwell, Kepler) and on MI25
  /// True where a figure is derived (from sparse, boost, per-board or community figures) rather
  /// than a vendor's dense per-GPU datasheet value; `notes` gives the derivation.
  bool estimated = false;
  /// What a job can allocate (data/gpu_memory.csv): the nameplate less the driver's reservation
  /// and, on GDDR boards with ECC on, the ECC share; unset: kDefaultUsableShare of it.
  std::optional<double> usable_memory_gib;
  GpuSegment segment = GpuSegment::kDataCentre;

  /// usable_memory_gib, else kDefaultUsableShare × memory_gib.
  [[nodiscard]] double UsableMemoryGib() const;

  /// Dense peak TFLOPS at a precision, falling back to the next-best the GPU has (fp8 → bf16,
  /// tf32 → fp32); nullopt when the GPU publishes no figure at all.
  [[nodiscard]] std::optional<double> DenseTflops(Precision p) const;
};

/// CUDA compute capability of an NVIDIA architecture name as gpus.csv spells it (the lowest of
/// its parts where they differ: Ampere 8.0 for the A100, 8.6 for the rest), from NVIDIA's table
/// (developer.nvidia.com/cuda-gpus); nullopt for other vendors and unknown names.
[[nodiscard]] std::optional<double> ComputeCapability(std::string_view architecture);

}  // namespace frugal::catalog

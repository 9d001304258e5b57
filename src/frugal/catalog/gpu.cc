#include "frugal/catalog/gpu.h"

#include <fmt/format.h>

#include <array>

#include "frugal/core/text.h"

namespace frugal::catalog {

std::string_view PrecisionName(Precision p) {
  switch (p) {
    case Precision::kFp32:
      return "fp32";
    case Precision::kTf32:
      return "tf32";
    case Precision::kBf16:
      return "bf16";
    case Precision::kFp16:
      return "fp16";
    case Precision::kFp8:
      return "fp8";
  }
  return "fp32";
}

Result<Precision> ParsePrecision(std::string_view text) {
  const std::string t = ToLower(text);
  if (t == "fp32" || t == "float32") return Precision::kFp32;
  if (t == "tf32") return Precision::kTf32;
  if (t == "bf16" || t == "bfloat16") return Precision::kBf16;
  if (t == "fp16" || t == "float16") return Precision::kFp16;
  if (t == "fp8") return Precision::kFp8;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown precision '{}' (expected fp32, tf32, bf16, fp16 or fp8)", text));
}

std::string_view GpuSegmentName(GpuSegment s) {
  switch (s) {
    case GpuSegment::kDataCentre:
      return "data_centre";
    case GpuSegment::kWorkstation:
      return "workstation";
    case GpuSegment::kConsumer:
      return "consumer";
  }
  return "?";
}

Result<GpuSegment> ParseGpuSegment(std::string_view name) {
  for (const GpuSegment s :
       {GpuSegment::kDataCentre, GpuSegment::kWorkstation, GpuSegment::kConsumer}) {
    if (GpuSegmentName(s) == name) return s;
  }
  return Fail(
      ErrorCode::kBadInput,
      fmt::format("unknown segment '{}' (expected data_centre, workstation or consumer)", name));
}

double BytesPerElement(Precision p) {
  switch (p) {
    case Precision::kFp32:
    case Precision::kTf32:
      return 4;
    case Precision::kBf16:
    case Precision::kFp16:
      return 2;
    case Precision::kFp8:
      return 1;
  }
  return 4;
}

double GpuSpec::UsableMemoryGib() const {
  return usable_memory_gib.value_or(kDefaultUsableShare * memory_gib);
}

std::optional<double> GpuSpec::DenseTflops(Precision p) const {
  switch (p) {
    case Precision::kFp8:
      if (fp8_tflops) return fp8_tflops;
      [[fallthrough]];
    case Precision::kBf16:
    case Precision::kFp16:
      if (bf16_tflops) return bf16_tflops;
      [[fallthrough]];
    case Precision::kTf32:
      if (tf32_tflops) return tf32_tflops;
      [[fallthrough]];
    case Precision::kFp32:
      return fp32_tflops;
  }
  return std::nullopt;
}

std::optional<double> ComputeCapability(std::string_view architecture) {
  static constexpr std::array<std::pair<std::string_view, double>, 9> kCapability = {{
      {"Kepler", 3.5},
      {"Maxwell", 5.0},
      {"Pascal", 6.0},
      {"Volta", 7.0},
      {"Turing", 7.5},
      {"Ampere", 8.0},
      {"Ada Lovelace", 8.9},
      {"Hopper", 9.0},
      {"Blackwell", 10.0},
  }};
  for (const auto& [name, cc] : kCapability) {
    if (name == architecture) return cc;
  }
  return std::nullopt;
}

}  // namespace frugal::catalog

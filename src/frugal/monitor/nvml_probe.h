#pragma once
// GPU telemetry through NVML, loaded at run time with dlopen("libnvidia-ml.so.1") so frugal
// needs no NVIDIA library to build or run. Without a driver the probe says "no GPU" once and
// every reading is empty.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace frugal::monitor {

struct GpuReading {
  int devices = 0;
  double util_percent = 0;         ///< mean over devices
  uint64_t memory_used_bytes = 0;  ///< summed
  double power_watts = 0;          ///< summed
  double sm_clock_mhz = 0;         ///< mean
};

class NvmlProbe {
 public:
  /// Loads NVML and initialises it; `available()` says whether that worked. Logs "no GPU"
  /// (once per process) with the reason when it did not.
  NvmlProbe();
  ~NvmlProbe();
  NvmlProbe(const NvmlProbe&) = delete;
  NvmlProbe& operator=(const NvmlProbe&) = delete;

  [[nodiscard]] bool available() const { return available_; }
  [[nodiscard]] const std::string& why_unavailable() const { return why_unavailable_; }
  /// Current reading over every visible device; empty when unavailable or a call fails.
  [[nodiscard]] std::optional<GpuReading> Read() const;
  /// The model name of each visible device ("NVIDIA H100 80GB HBM3"); empty when unavailable.
  [[nodiscard]] std::vector<std::string> DeviceNames() const;

 private:
  struct Api;
  std::unique_ptr<Api> api_;
  void* library_ = nullptr;
  bool available_ = false;
  std::string why_unavailable_;
};

}  // namespace frugal::monitor

#include "frugal/monitor/nvml_probe.h"

#include <dlfcn.h>

#include <atomic>

#include "frugal/core/log.h"

namespace frugal::monitor {
// The few NVML declarations used, from NVML's public C API (nvml.h); ABI-stable since v2. A
// named namespace: NvmlProbe::Api, a class with linkage, holds pointers to functions of them.
namespace nvml_abi {
// NOLINTBEGIN(readability-identifier-naming): NVML's own names.
using nvmlReturn_t = int;
using nvmlDevice_t = struct nvmlDevice_st*;
struct nvmlUtilization_t {
  unsigned int gpu;
  unsigned int memory;
};
struct nvmlMemory_t {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};
// NOLINTEND(readability-identifier-naming)
}  // namespace nvml_abi
using nvml_abi::nvmlDevice_t;
using nvml_abi::nvmlMemory_t;
using nvml_abi::nvmlReturn_t;
using nvml_abi::nvmlUtilization_t;

namespace {

constexpr int kNvmlSuccess = 0;
constexpr int kNvmlClockSm = 1;

std::atomic<bool> g_said_no_gpu{false};

template <typename F>
F Symbol(void* library, const char* name) {
  return reinterpret_cast<F>(::dlsym(library, name));
}

}  // namespace

struct NvmlProbe::Api {
  nvmlReturn_t (*init)() = nullptr;
  nvmlReturn_t (*shutdown)() = nullptr;
  nvmlReturn_t (*count)(unsigned int*) = nullptr;
  nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t*) = nullptr;
  nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t*) = nullptr;
  nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t*) = nullptr;
  nvmlReturn_t (*power)(nvmlDevice_t, unsigned int*) = nullptr;
  nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int*) = nullptr;
  nvmlReturn_t (*name)(nvmlDevice_t, char*, unsigned int) = nullptr;
};

NvmlProbe::NvmlProbe() : api_(std::make_unique<Api>()) {
  library_ = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (library_ == nullptr) {
    why_unavailable_ = "libnvidia-ml.so.1 not found (no NVIDIA driver)";
  } else {
    api_->init = Symbol<decltype(api_->init)>(library_, "nvmlInit_v2");
    api_->shutdown = Symbol<decltype(api_->shutdown)>(library_, "nvmlShutdown");
    api_->count = Symbol<decltype(api_->count)>(library_, "nvmlDeviceGetCount_v2");
    api_->handle = Symbol<decltype(api_->handle)>(library_, "nvmlDeviceGetHandleByIndex_v2");
    api_->utilization =
        Symbol<decltype(api_->utilization)>(library_, "nvmlDeviceGetUtilizationRates");
    api_->memory = Symbol<decltype(api_->memory)>(library_, "nvmlDeviceGetMemoryInfo");
    api_->power = Symbol<decltype(api_->power)>(library_, "nvmlDeviceGetPowerUsage");
    api_->clock = Symbol<decltype(api_->clock)>(library_, "nvmlDeviceGetClockInfo");
    api_->name = Symbol<decltype(api_->name)>(library_, "nvmlDeviceGetName");
    unsigned int n = 0;
    if (!api_->init || !api_->count || !api_->handle || !api_->utilization || !api_->memory) {
      why_unavailable_ = "libnvidia-ml.so.1 lacks the expected functions";
    } else if (api_->init() != kNvmlSuccess) {
      why_unavailable_ = "nvmlInit failed (driver not loaded?)";
    } else if (api_->count(&n) != kNvmlSuccess || n == 0) {
      why_unavailable_ = "NVML sees no device";
    } else {
      available_ = true;
    }
  }
  if (!available_ && !g_said_no_gpu.exchange(true))
    log::Info("monitor: no GPU: {}", why_unavailable_);
}

NvmlProbe::~NvmlProbe() {
  if (available_ && api_->shutdown) api_->shutdown();
  if (library_ != nullptr) ::dlclose(library_);
}

std::optional<GpuReading> NvmlProbe::Read() const {
  if (!available_) return std::nullopt;
  unsigned int n = 0;
  if (api_->count(&n) != kNvmlSuccess || n == 0) return std::nullopt;
  GpuReading r;
  for (unsigned int i = 0; i < n; ++i) {
    nvmlDevice_t device = nullptr;
    if (api_->handle(i, &device) != kNvmlSuccess) continue;
    nvmlUtilization_t util{};
    nvmlMemory_t memory{};
    if (api_->utilization(device, &util) != kNvmlSuccess ||
        api_->memory(device, &memory) != kNvmlSuccess)
      continue;
    ++r.devices;
    r.util_percent += util.gpu;
    r.memory_used_bytes += memory.used;
    unsigned int milliwatts = 0;
    if (api_->power && api_->power(device, &milliwatts) == kNvmlSuccess)
      r.power_watts += milliwatts / 1000.0;
    unsigned int mhz = 0;
    if (api_->clock && api_->clock(device, kNvmlClockSm, &mhz) == kNvmlSuccess)
      r.sm_clock_mhz += mhz;
  }
  if (r.devices == 0) return std::nullopt;
  r.util_percent /= r.devices;
  r.sm_clock_mhz /= r.devices;
  return r;
}

std::vector<std::string> NvmlProbe::DeviceNames() const {
  std::vector<std::string> names;
  unsigned int n = 0;
  if (!available_ || !api_->name || api_->count(&n) != kNvmlSuccess) return names;
  for (unsigned int i = 0; i < n; ++i) {
    nvmlDevice_t device = nullptr;
    // NVML_DEVICE_NAME_V2_BUFFER_SIZE is 96; the name is NUL-terminated within it.
    char buffer[96] = {};
    if (api_->handle(i, &device) != kNvmlSuccess ||
        api_->name(device, buffer, sizeof buffer) != kNvmlSuccess) {
      continue;
    }
    buffer[sizeof buffer - 1] = '\0';
    names.emplace_back(buffer);
  }
  return names;
}

}  // namespace frugal::monitor

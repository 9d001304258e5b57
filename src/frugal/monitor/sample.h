#pragma once
// One utilization sample of a supervised process tree (and the GPUs, when there are any).

#include <chrono>
#include <cstdint>
#include <optional>

namespace frugal::monitor {

struct Sample {
  std::chrono::system_clock::time_point at;
  int processes = 0;       ///< in the sampled tree
  double cpu_cores = 0;    ///< CPU time per wall time since the previous sample (1.0 = one core)
  uint64_t rss_bytes = 0;  ///< resident memory summed over the tree
  double io_wait_fraction = 0;  ///< share of wall time the tree spent blocked on I/O (delayacct)
  // GPU figures (averaged over the visible GPUs; peak memory summed) when NVML is available.
  std::optional<double> gpu_util_percent;
  std::optional<uint64_t> gpu_memory_bytes;
  std::optional<double> gpu_power_watts;
  std::optional<double> sm_clock_mhz;
  std::optional<double> sm_active_percent;  ///< GPM, on GPUs that have it
  /// Share of time any tensor pipe was active (GPM, on GPUs that have it); with SM-active it
  /// tells a training job that never uses its tensor cores.
  std::optional<double> tensor_active_percent;
};

}  // namespace frugal::monitor

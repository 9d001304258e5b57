#pragma once
// frugal profile: run the real command a short while under the training-process protocol and
// record what it measured on this machine — throughput in the job's units, peak host RSS, CPU
// use, peak GPU memory where NVML is present, and the device — as a named profile that
// `frugal estimate --measured` and the planner can use. Format of <data dir>/profiles/NAME.json
// (version 1): {"format_version", "name", "measured_at", "command", "device", "gpu", "gpus",
// "steps", "seconds", "steps_per_second", "units", "units_per_second", "peak_rss_bytes",
// "mean_cpu_cores", "peak_gpu_memory_bytes"}.

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::run {

struct ProfileRequest {
  std::string name;
  std::vector<std::string> argv;
  std::optional<int64_t> steps;                 ///< stop after this many progress steps
  std::chrono::milliseconds duration{120'000};  ///< or after this long (default 2 min)
  /// Units per progress step ("samples", "tokens"...) when the command reports no cumulative
  /// `samples` or `tokens` metric; 0: the unit is the step.
  double units_per_step = 0;
  std::filesystem::path scratch_dir;  ///< report channel and checkpoint directory
};

struct ProfileRecord {
  std::string name, measured_at, command;
  std::string device;  ///< "NVIDIA GPU x1 (NVML)" or "CPU: <model name>"
  std::string units;   ///< "samples", "tokens" or "steps"
  int gpus = 0;
  int64_t steps = 0;   ///< progress steps between the first and the last report
  double seconds = 0;  ///< between the first and the last report
  double steps_per_second = 0;
  double units_per_second = 0;
  uint64_t peak_rss_bytes = 0;
  double mean_cpu_cores = 0;
  std::optional<uint64_t> peak_gpu_memory_bytes;
};

/// Runs the command until `steps` progress steps (or `duration`) have passed, then stops its
/// process group (SIGTERM, then SIGKILL after 5 s). kBadInput when the command cannot start or
/// reported fewer than two progress lines (nothing to measure; docs/protocol.md); the record
/// otherwise, even when the command exited by itself.
[[nodiscard]] Result<ProfileRecord> RunProfile(const ProfileRequest& request);

/// Writes `record` to `dir`/NAME.json atomically; loads it back (kBadInput naming the file).
[[nodiscard]] Result<void> SaveProfile(const ProfileRecord& record,
                                       const std::filesystem::path& dir);
[[nodiscard]] Result<ProfileRecord> LoadProfile(const std::filesystem::path& dir,
                                                const std::string& name);

}  // namespace frugal::run

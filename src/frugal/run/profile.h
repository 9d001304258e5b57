#pragma once
// Measured profiles: run the real command a short while under the protocol (docs/protocol.md)
// and measure what it does on this machine (docs/profile.md). The supervisor runs it exactly as
// `frugal run` would; a ProfileMeter rides along as a preemption source that watches progress
// reports and, after N steps or a duration, asks for checkpoint-then-stop. The result is a
// ledger::NewProfile the caller stores under a name (ledger/profiles.h).
//
// Throughput is measured from the first progress report to the last, so the command's start-up
// (imports, data loading, compilation) is not in the rate; it is in the wall time. Reports are
// timed by the child's clock when they carry it ("t"), else when the supervisor reads them
// (about every 100 ms, so then a measurement needs a few seconds of progress).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/ledger/profiles.h"
#include "frugal/monitor/nvml_probe.h"
#include "frugal/run/child_process.h"
#include "frugal/run/preemption_source.h"

namespace frugal::run {

/// When a profile stops the command (either or both; with neither it runs to its end).
struct ProfileLimits {
  std::optional<int64_t> steps;      ///< once a progress report reaches this step
  std::optional<Duration> duration;  ///< after this long from the command's start
};

/// One progress report as the profile saw it.
struct ProgressPoint {
  SteadyTime at;
  int64_t step = 0;
  std::optional<double> tokens;
  std::optional<double> samples;
  std::optional<double> child_seconds;  ///< the report's "t", the child's clock
};

/// Watches progress and asks the supervisor to stop (a stop request: checkpoint, then stop)
/// when a limit is reached.
class ProfileMeter : public PreemptionSource {
 public:
  explicit ProfileMeter(ProfileLimits limits) : limits_(limits) {}
  void SegmentStarted(SteadyTime now) override;
  std::optional<PreemptionNotice> Poll(SteadyTime now) override;
  void ProgressReported(const ProgressReport& report, SteadyTime at) override;

  [[nodiscard]] const std::vector<ProgressPoint>& points() const { return points_; }
  /// "steps" or "time" once the meter asked for the stop; empty before.
  [[nodiscard]] const std::string& stopped_by() const { return stopped_by_; }

 private:
  ProfileLimits limits_;
  std::optional<SteadyTime> started_;
  std::vector<ProgressPoint> points_;
  std::string stopped_by_;
};

struct Throughput {
  Duration measured{0};  ///< first to last progress report
  int64_t steps = 0;     ///< steps in that stretch
  double steps_per_second = 0;
  std::optional<double> tokens_per_second;   ///< when the first and last reports carry tokens
  std::optional<double> samples_per_second;  ///< likewise for samples
};

/// Rates between the first and the last progress report, timed by the child's clock when both
/// carry one ("t"; exact for steps faster than frugal reads reports), else by when they were
/// read. kFailed when there are fewer than two
/// reports, no time passed between them, or the step did not advance (the message says to
/// profile longer or to report progress).
[[nodiscard]] Result<Throughput> MeasureThroughput(const std::vector<ProgressPoint>& points);

/// The device a profile ran on.
struct DeviceInfo {
  std::string name;           ///< "NVIDIA A100-SXM4-80GB" or the CPU model
  std::string kind = "cpu";   ///< "gpu" or "cpu"
  int count = 1;              ///< GPUs visible; 1 for a CPU
};

/// The CPU model named by the first "model name" line of /proc/cpuinfo text; "unknown CPU" when
/// there is none (some ARM kernels), or the "Hardware"/"CPU part" lines as a fallback.
[[nodiscard]] std::string CpuModelName(std::string_view cpuinfo);
/// The GPUs NVML sees (all of one model, or the first's name with the count), else the CPU.
[[nodiscard]] DeviceInfo DetectDevice(const monitor::NvmlProbe& gpus);

struct ProfileRequest {
  std::string name;
  std::vector<std::string> command;
  ProfileLimits limits;
  std::filesystem::path work_dir;  ///< the run folder (journal, checkpoints); must not exist
  Duration checkpoint_grace = std::chrono::seconds(30);
  Duration stop_grace = std::chrono::seconds(10);
  ChildStdout child_stdout = ChildStdout::kInherit;
};

/// Runs the command under the supervisor until a limit or its end, and returns what it
/// measured. kBadInput when the command cannot be started; kFailed when the command failed
/// before a limit or never reported progress twice; kInterrupted on Ctrl-C.
[[nodiscard]] Result<ledger::NewProfile> ProfileCommand(const ProfileRequest& request);

/// Writes the newest profile of a name where `plan` reads it without opening the ledger
/// (`measured: - {profile: NAME, gpu: ...}` in a job spec): `dir`/NAME.json, atomically.
/// Format (version 1): {"format_version": 1, "name", "measured_at" (ISO 8601 UTC), "device",
/// "units" ("tokens", "samples" or "steps": the most specific rate measured),
/// "units_per_second", "profile_id", "run_id"}. kFailed naming the file when it cannot be
/// written.
[[nodiscard]] Result<void> WritePlanProfile(const ledger::Profile& profile,
                                            const std::filesystem::path& dir);

}  // namespace frugal::run

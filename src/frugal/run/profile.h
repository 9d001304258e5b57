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
#include "frugal/plan/job_spec.h"
#include "frugal/plan/recorded_measurement.h"
#include "frugal/run/child_process.h"
#include "frugal/run/preemption_source.h"
#include "frugal/run/supervisor.h"

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
  int segment = 0;  ///< which segment of the run (a restart after a preemption starts the next)
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
  int segment_ = -1;
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

/// Rates between the first and the last progress report of each segment, summed over the
/// segments (the downtime between a preemption and the restart is not in the rate), timed by
/// the child's clock when both carry one ("t"; exact for steps faster than frugal reads
/// reports), else by when they were read. Tokens and samples per second only when every
/// segment's reports carry them. kFailed when there are fewer than two reports, no time passed
/// between them, or the step did not advance (the message says to profile longer or to report
/// progress).
[[nodiscard]] Result<Throughput> MeasureThroughput(const std::vector<ProgressPoint>& points);

/// The shortest measured stretch whose rate a profile trusts: under it, the clock's
/// resolution, the time between reads of the reports and the first steps' warm-up weigh more
/// than the steps themselves.
inline constexpr Duration kShortestTrustedWindow = std::chrono::seconds(1);

/// A warning when `p` was measured over less than kShortestTrustedWindow ("the measured window
/// is 0.01s (63 steps): too short to trust its rate; profile longer ..."); nullopt otherwise.
[[nodiscard]] std::optional<std::string> ShortWindowWarning(const ledger::NewProfile& p);

/// The device a profile ran on.
struct DeviceInfo {
  std::string name;          ///< "NVIDIA A100-SXM4-80GB" or the CPU model
  std::string kind = "cpu";  ///< "gpu" or "cpu"
  int count = 1;             ///< GPUs visible; for a CPU, the logical CPUs the command may use
};

/// The logical CPUs (vCPUs) this process may run on: its affinity mask, else the hardware's.
[[nodiscard]] int UsableCpus();

/// The CPU model named by the first "model name" line of /proc/cpuinfo text; "unknown CPU" when
/// there is none (some ARM kernels), or the "Hardware"/"CPU part" lines as a fallback.
[[nodiscard]] std::string CpuModelName(std::string_view cpuinfo);
/// The GPUs a command may use, of those NVML lists (`nvml`, in NVML's order): all of them
/// without CUDA_VISIBLE_DEVICES (`cuda_visible` nullopt), else the ones it names, by index or by
/// UUID ("GPU-...", "MIG-...": taken as the first GPU's model), up to the first entry CUDA would
/// reject (an index out of range, anything else); "" and "-1" name none.
[[nodiscard]] std::vector<std::string> VisibleGpuNames(
    const std::vector<std::string>& nvml, std::optional<std::string_view> cuda_visible);
/// The GPUs the command may use (VisibleGpuNames with this process's CUDA_VISIBLE_DEVICES; all of
/// one model, or the first's name with the count), else the CPU.
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

/// The name a profile of `command` is stored under: `flag_name` (--name) when given, else the
/// script for an interpreter ("train" for `python3 train.py`), else the program. kBadInput
/// naming --name for text that is not UTF-8, or a name that is empty, longer than 200
/// characters, contains '/', or is "." or "..".
[[nodiscard]] Result<std::string> ProfileName(const std::string& flag_name,
                                              const std::vector<std::string>& command);

/// The folder name of a profile's run under the profiles folder: "profile-", the name's
/// characters that are safe in a file name (others as '_', at most 64), "-" and `now` in ms.
[[nodiscard]] std::string ProfileWorkDirName(const std::string& name, ledger::Timestamp now);

/// Runs the command under the supervisor until a limit or its end, and returns what it
/// measured. kBadInput when the command cannot be started; kFailed when the command failed
/// before a limit or never reported progress twice; kInterrupted on Ctrl-C.
[[nodiscard]] Result<ledger::NewProfile> ProfileCommand(const ProfileRequest& request);

/// Measures a supervised run as a profile: `frugal profile` for a short run, `frugal run --spec`
/// for every run of a job (recorded under the job's name, docs/profile.md). It knows the device,
/// the children's CPU time before the run and, through the meter it hands the supervisor, every
/// progress report.
class RunProfiler {
 public:
  RunProfiler(std::string name, std::vector<std::string> command, ProfileLimits limits = {});
  /// The meter to add to the supervisor (once). The supervisor owns it and must outlive Finish.
  [[nodiscard]] std::unique_ptr<PreemptionSource> TakeMeter();
  [[nodiscard]] const std::string& name() const { return name_; }
  [[nodiscard]] const DeviceInfo& device() const { return device_; }
  [[nodiscard]] const ProfileMeter& meter() const { return *meter_; }
  /// The profile of the run that ended with `result`; `ended` says what ended it ("steps",
  /// "time", "finished", "preempted", "failed", ...). kFailed (MeasureThroughput's message)
  /// when its progress gives no rate.
  [[nodiscard]] Result<ledger::NewProfile> Finish(const RunResult& result,
                                                  const std::string& ended) const;

 private:
  std::string name_;
  std::vector<std::string> command_;
  DeviceInfo device_;
  std::unique_ptr<ProfileMeter> owned_meter_;
  const ProfileMeter* meter_;
  double cpu_seconds_before_ = 0;
  SteadyTime started_;  ///< the wall time is from here (just before the run) to Finish
};

/// What a run's end says ended its measurement: "finished", "preempted", "failed",
/// "budget_stop" or "interrupted".
[[nodiscard]] std::string RunEnded(const RunResult& result);

/// The ledger's measurements of a job (its profiles under `name`, newest first) for the
/// planner: each with the supervised run's id (`runs.name`) where it came from one.
[[nodiscard]] Result<std::vector<plan::RecordedMeasurement>> RecordedMeasurementsFor(
    ledger::Ledger& ledger, const std::string& name);

/// Adds to `spec.measured` the newest usable measurement of each GPU model the ledger holds
/// under the job's name (spec.measurement_name), and in `spec.recorded_measurements` what became
/// of each (plan::AddRecordedMeasurements). Errors are the ledger's.
[[nodiscard]] Result<void> AddLedgerMeasurements(ledger::Ledger& ledger, plan::JobSpec& spec,
                                                 const catalog::Catalog& catalog);

/// Stores a measured profile in the ledger and the plan's copy under `profiles_dir`
/// (WritePlanProfile). The ledger's and the file's errors.
[[nodiscard]] Result<ledger::Profile> StoreProfile(ledger::Ledger& ledger,
                                                   ledger::NewProfile measured,
                                                   const std::filesystem::path& profiles_dir);

/// Records what `profiler` measured of a supervised run (ledger run `run_id`) in the ledger
/// under the profiler's name, and the plan's copy under `profiles_dir` (WritePlanProfile).
/// kFailed when the run's progress gives no rate; the ledger's errors otherwise.
[[nodiscard]] Result<ledger::Profile> RecordRunProfile(ledger::Ledger& ledger,
                                                       const RunProfiler& profiler,
                                                       const RunResult& result,
                                                       std::optional<ledger::RunId> run_id,
                                                       const std::filesystem::path& profiles_dir);

/// Writes the newest profile of a name where `plan` reads it without opening the ledger
/// (`measured: - {profile: NAME, gpu: ...}` in a job spec): `dir`/NAME.json, atomically.
/// Format (version 1): {"format_version": 1, "name", "measured_at" (ISO 8601 UTC), "device",
/// "units" ("tokens", "samples" or "steps": the most specific rate measured),
/// "units_per_second", "profile_id", "run_id"}. kFailed naming the file when it cannot be
/// written.
[[nodiscard]] Result<void> WritePlanProfile(const ledger::Profile& profile,
                                            const std::filesystem::path& dir);

}  // namespace frugal::run

#pragma once
// The spot drill (`frugal drill`): run a job once uninterrupted (the baseline), then again
// with preemptions injected at random moments and local restarts, and measure what spot
// capacity would cost it: how long a checkpoint takes after a notice, how long a restart takes
// to make progress again, how much work each preemption loses, and whether the final result
// equals the baseline's. The verdict says whether the job is spot-ready and whether it can
// checkpoint within a 30 s and a 120 s notice. The measurements are stored (drill record,
// below) so the planner can use them instead of a spec's guesses.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/run/preemption_source.h"
#include "frugal/run/recorder.h"
#include "frugal/run/supervisor.h"

namespace frugal::run {

/// Preempts the first `preemptions` segments, one each, at random moments spread over the
/// job. When the baseline reported steps (`total_steps` > 0), preemption k (1-based) lands at
/// the first progress at or past step total × (k − 1 + u) / preemptions, u uniform in
/// [0.1, 0.7]: so every one lands with at least 30% of its share of the steps still to run,
/// time for the notice to reach the command before it finishes on its own. Otherwise (a command
/// that reports no progress) it lands at the baseline's load time plus a uniform 20–90% of its work
/// divided among preemptions + 1 segments.
class DrillPreemptions : public PreemptionSource {
 public:
  DrillPreemptions(int preemptions, int64_t total_steps, Duration load, Duration work,
                   uint64_t seed);
  void SegmentStarted(SteadyTime now) override;
  std::optional<PreemptionNotice> Poll(SteadyTime now) override;
  void Progress(int64_t step) override { last_step_ = step; }
  [[nodiscard]] int fired() const { return fired_; }

 private:
  int preemptions_;
  Duration load_;
  Duration share_;
  std::mt19937_64 rng_;
  std::vector<int64_t> step_targets_;  ///< empty: schedule by time
  int fired_ = 0;
  bool armed_ = false;  ///< this segment has not been preempted yet
  std::optional<int64_t> last_step_;
  std::optional<SteadyTime> next_;
};

/// Passes every record on to `next` and measures, per preemption notice, the time until the
/// next committed checkpoint of the same segment (the checkpoint write time a notice must
/// cover). A notice with no checkpoint after it in its segment is a miss.
class DrillObserver : public RunRecorder {
 public:
  explicit DrillObserver(RunRecorder& next) : next_(next) {}
  void RunStarted(const RunStart& s) override { next_.RunStarted(s); }
  void SegmentOpened(const SegmentOpen& o) override;
  void SegmentClosed(const SegmentClose& c) override;
  void Event(const RunEvent& e) override;
  void RecordSample(int segment, const monitor::Sample& s) override {
    next_.RecordSample(segment, s);
  }
  void RecordHeartbeat(const Heartbeat& h) override { next_.RecordHeartbeat(h); }
  void RunFinished(const RunFinish& f) override { next_.RunFinished(f); }

  /// Notice → committed checkpoint, per notice that got one.
  [[nodiscard]] const std::vector<Duration>& notice_to_checkpoint() const {
    return notice_to_checkpoint_;
  }
  /// Notices whose segment ended with no checkpoint after them.
  [[nodiscard]] int missed() const { return missed_; }
  /// Segments after the first that started from scratch (no checkpoint to resume from).
  [[nodiscard]] int fresh_restarts() const { return fresh_restarts_; }

 private:
  RunRecorder& next_;
  std::optional<WallTime> open_notice_;
  std::vector<Duration> notice_to_checkpoint_;
  int missed_ = 0;
  int fresh_restarts_ = 0;
};

/// What a drill found.
struct DrillFindings {
  int preemptions_planned = 0;
  int preemptions = 0;                     ///< notices delivered
  std::vector<Duration> checkpoint_write;  ///< notice → committed checkpoint
  int checkpoint_misses = 0;               ///< notices with no checkpoint after them
  std::vector<Duration> commit;            ///< the supervisor's verify + commit of each checkpoint
  std::vector<Duration> restart;           ///< resumed segment start → first progress
  std::optional<Duration> load;            ///< baseline start → first progress
  std::vector<int64_t> lost_steps;         ///< per preemption
  std::vector<Duration> lost_work;         ///< per preemption, at the baseline's step rate
  bool resumed_from_checkpoint = false;    ///< every restart resumed from a checkpoint
  bool finished = false;                   ///< the preempted run finished
  std::optional<bool> result_matches;      ///< nullopt when either run reported no result
  std::string result_detail;               ///< what differed
  Duration baseline_wall{0};
  Duration drilled_wall{0};

  // The verdict.
  bool spot_ready = false;
  bool checkpoint_within_30s = false;
  bool checkpoint_within_120s = false;
  std::vector<std::string> reasons;  ///< why not spot-ready (empty when it is)
};

/// A job is spot-ready when it resumes in well under 5 minutes (DESIGN.md).
inline constexpr Duration kSpotReadyRestart = std::chrono::minutes(5);

/// Judges a drill from the baseline's and the preempted run's results and the observer.
[[nodiscard]] DrillFindings AssessDrill(const RunResult& baseline, const RunResult& drilled,
                                        const DrillObserver& observer, int preemptions_planned);

/// Whether two result reports agree: the same metric names, values equal to 1e-9 relative.
/// `detail` says what differs.
[[nodiscard]] bool SameResult(const ResultReport& a, const ResultReport& b, std::string* detail);

// The drill record: UserDataDir()/drills/<name>.json, written atomically.
// Format, version 1: {"v": 1, "name", "command": [..], "measured_at" (RFC 3339),
// "preemptions", "checkpoint_write_seconds": {"max", "mean"} or null,
// "checkpoint_on_notice" (every notice got a checkpoint), "restart_seconds": {"max", "mean"} or
// null (segment start → first progress: the command's own resume, no instance boot),
// "load_seconds", "lost_work_seconds": {"max", "mean"} or null, "result_matches" (bool/null),
// "spot_ready", "checkpoint_within_30s", "checkpoint_within_120s", "reasons": [..]}.

/// The drill record of `findings` as JSON (the format above).
[[nodiscard]] nlohmann::json DrillRecordJson(const std::string& name,
                                             const std::vector<std::string>& command,
                                             const DrillFindings& findings, WallTime at);
/// Where the record named `name` lives.
[[nodiscard]] std::filesystem::path DrillRecordPath(const std::string& name);
/// Writes the record atomically. kFailed on I/O errors.
[[nodiscard]] Result<std::filesystem::path> SaveDrillRecord(const std::string& name,
                                                            const nlohmann::json& record);

}  // namespace frugal::run

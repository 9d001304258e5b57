#pragma once
// The run supervisor: runs the user's training command under the protocol (docs/protocol.md),
// commits the checkpoints it reports, enforces the budget caps, turns preemption notices into
// "checkpoint now, then stop", and after a preemption either hands back to an outer scheduler
// (exit kRequeueExitCode) or restarts the command itself from the newest valid checkpoint.
// Each stretch of the command running is a segment; everything is told to a RunRecorder.

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/clock.h"
#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"
#include "frugal/monitor/sampler.h"
#include "frugal/run/budget_guard.h"
#include "frugal/run/checkpoint_store.h"
#include "frugal/run/child_process.h"
#include "frugal/run/deadline_advice.h"
#include "frugal/run/preemption_source.h"
#include "frugal/run/recorder.h"
#include "frugal/run/report_channel.h"

namespace frugal::run {

struct JournalHistory;  // run_journal.h

enum class RestartPolicy { kRequeue, kLocal };

struct SupervisorConfig {
  std::vector<std::string> command;
  std::string run_id;
  std::filesystem::path run_dir;  ///< journal, reports and checkpoints live here
  std::map<std::string, std::string> tags;
  std::string offer;                 ///< for the record only
  std::optional<CapacityTier> tier;  ///< for the record only; unset when nothing states it
  Rate price;
  int gpus = 1;
  BudgetCaps caps;
  Duration checkpoint_grace = std::chrono::seconds(30);  ///< after SIGUSR1, before SIGTERM
  Duration stop_grace = std::chrono::seconds(10);        ///< after SIGTERM, before SIGKILL
  Duration accrual_interval = std::chrono::seconds(1);
  Duration heartbeat_interval = std::chrono::seconds(10);
  Duration sample_interval = std::chrono::seconds(5);
  RestartPolicy restart = RestartPolicy::kRequeue;
  int max_restarts = 3;
  Duration restart_backoff = std::chrono::seconds(1);  ///< doubles per restart, at most 60 s
  int keep_checkpoints = 3;
  ChildStdout child_stdout = ChildStdout::kInherit;
  /// With a deadline: after each preemption, ask the deadline policy whether to wait for spot
  /// or move to on-demand (recorded as a spot_advice event, stated in the result).
  std::optional<DeadlineAdviceConfig> deadline_advice;
  /// An interrupt stops the run on its checkpoint to be resumed later (a tune trial, resumed
  /// with its study): its record ends "paused", not "interrupted" (cancelled).
  bool interrupt_pauses = false;
};

/// A snapshot for the status line.
struct RunStatus {
  Duration elapsed{0};
  int segment = 0;
  std::string phase;  ///< "running", "checkpointing", "stopping", "restarting in 2s"
  int64_t step = 0;
  double steps_per_second = 0;
  BudgetUsage usage;                   ///< including earlier attempts
  std::optional<double> cap_fraction;  ///< the highest used fraction of any cap
  std::optional<Duration> eta_to_cap;  ///< at the current burn, when the first cap is hit
  int preemptions = 0;
};

enum class RunOutcome { kFinished, kFailed, kBudgetStop, kPreempted, kInterrupted };
/// "finished", "failed", "budget_stop", "preempted", "interrupted".
std::string RunOutcomeName(RunOutcome outcome);

/// Summary statistics of the utilization samples of a run.
struct UtilizationSummary {
  int samples = 0;
  double cpu_cores_mean = 0;
  double cpu_cores_p95 = 0;
  uint64_t peak_rss_bytes = 0;
  double io_wait_fraction_mean = 0;
  std::optional<double> gpu_util_mean;
  std::optional<double> gpu_util_p95;
  std::optional<double> gpu_idle_fraction;  ///< share of samples under 5% GPU utilization
  /// Mean GPU utilization of the samples taken while training (after each segment's first
  /// progress report), and how many there were: what the right-size advice judges by.
  std::optional<double> gpu_util_training_mean;
  int gpu_training_samples = 0;
  std::optional<uint64_t> gpu_peak_memory_bytes;
};

struct RunResult {
  RunOutcome outcome = RunOutcome::kFinished;
  int exit_code = 0;                     ///< what `frugal run` exits with
  std::string message;                   ///< one line for the user on how it ended
  std::optional<ExitStatus> child_exit;  ///< of the last segment
  /// What the budget caps counted: the supervisor's whole time (its start-up and wind-down
  /// around the segments too), so a cap stops a run early, never late.
  BudgetUsage usage;  ///< this invocation
  BudgetUsage total;  ///< including earlier attempts of the same run id
  /// What the segments price, exactly as the ledger (`runs`, `report`, the FOCUS export) does:
  /// the spend. Never more than `usage`.
  BudgetUsage recorded;        ///< this invocation
  BudgetUsage recorded_total;  ///< including earlier attempts of the same run id
  std::optional<CapKind> cap;  ///< the cap that stopped the run
  std::string overshoot;       ///< past that cap, in its unit
  int attempt = 1;
  int segments = 0;  ///< in this invocation
  int preemptions = 0;
  int restarts = 0;
  int checkpoints_committed = 0;
  int checkpoints_rejected = 0;
  uint64_t last_checkpoint_bytes = 0;
  std::vector<Duration> commit_times;
  std::vector<Duration> resume_times;      ///< resumed segment start → first progress
  std::vector<int64_t> lost_steps;         ///< per preemption
  std::optional<Duration> first_progress;  ///< of the first segment (the command's load time)
  int64_t last_step = 0;
  std::optional<ResultReport> result;
  int64_t garbage_report_lines = 0;
  UtilizationSummary utilization;
  std::vector<std::string> warnings;
  /// After the last preemption, with a deadline: the tier to resume on (spot or on demand)
  /// and the advice's reasoning.
  std::optional<CapacityTier> recommended_tier;
  std::string advice;
};

class Supervisor {
 public:
  /// `recorder` must outlive the supervisor, and so must `clock`, which times everything the
  /// supervisor does (its timers, the caps' elapsed time, the records' times). Waits are real:
  /// a test on a FakeClock advances it from a callback (the status line's, a source's Poll).
  Supervisor(SupervisorConfig config, RunRecorder& recorder, const Clock& clock = RealClock());
  ~Supervisor();

  void AddPreemptionSource(std::unique_ptr<PreemptionSource> source);
  void SetSampler(std::unique_ptr<monitor::Sampler> sampler);
  /// Called from the supervisor's loop about twice a second.
  void SetStatusCallback(std::function<void(const RunStatus&)> callback);

  /// Runs the command to its end (with restarts under RestartPolicy::kLocal). kBadInput when
  /// the command cannot be started; kFailed when the run directory cannot be prepared; kBudget
  /// when earlier attempts already used the budget. Otherwise the result says how it ended.
  [[nodiscard]] Result<RunResult> Run();

 private:
  struct Segment;
  struct Loop;
  // The attempt (supervisor.cc).
  /// Closes a lost earlier attempt, stops its stragglers, and reads what earlier attempts used.
  JournalHistory BeginAttempt();
  /// The segments and the restarts between them, to the end that stops the attempt.
  [[nodiscard]] Result<SegmentEnd> RunSegments(const JournalHistory& history, Loop& loop);
  [[nodiscard]] static BudgetUsage UsageOfThisAttempt(const JournalHistory& history,
                                                      const Loop& loop);
  void SetOutcome(SegmentEnd end, const Loop& loop);
  // One segment (supervisor_segment.cc).
  [[nodiscard]] Result<SegmentEnd> RunSegment(int number,
                                              const std::optional<CommittedCheckpoint>& resume,
                                              Loop& loop);
  [[nodiscard]] Result<void> StartSegment(Segment& seg,
                                          const std::optional<CommittedCheckpoint>& resume,
                                          Loop& loop);
  SegmentEnd EndOf(const Segment& seg, const ExitStatus& exit);
  void CloseSegment(const Segment& seg, SegmentEnd end, const ExitStatus& exit, Loop& loop);
  void HandleReports(Segment& seg, Loop& loop);
  void OnProgress(Segment& seg, const ProgressReport& p, Loop& loop, SteadyTime now);
  void OnCheckpoint(Segment& seg, const CheckpointReport& c, Loop& loop, SteadyTime now);
  /// One pass of the segment's timers and stop sources (about every 100 ms), one step each:
  void Tick(Segment& seg, Loop& loop);
  void AccrueBudget(Segment& seg, Loop& loop, SteadyTime now);
  void TakePreemptionSignal(Segment& seg, Loop& loop);
  void PollSources(Segment& seg, Loop& loop, SteadyTime now);
  void TakeInterrupt(Segment& seg, Loop& loop);
  /// Checkpoint grace over: SIGTERM; stop grace over: SIGKILL.
  void EscalateStop(Segment& seg, SteadyTime now);
  void TakeSample(Segment& seg, Loop& loop, SteadyTime now);
  [[nodiscard]] RunStatus StatusOf(const Segment& seg, const Loop& loop, SteadyTime now) const;
  void BeginStop(Segment& seg, SegmentEnd reason, Loop& loop);
  void StopLeftovers(Segment& seg, Loop& loop);
  bool Backoff(Duration wait, Loop& loop);
  /// Marks a previous attempt that never finished lost; when there was one, when it was last
  /// heard from.
  std::optional<WallTime> MarkLostAttempt();
  /// Stops what a killed earlier supervisor's command left running: processes with the run's
  /// environment, and (when the previous attempt was lost at `lost_at`) the members of the
  /// command group it noted.
  void StopStragglers(std::optional<WallTime> lost_at);
  /// Notes the command's process group in the run folder (command.pgid), for StopStragglers.
  void RecordCommandGroup(pid_t leader);
  void AdviseAfterPreemption(int segment, Loop& loop);
  void Record(EventKind kind, int segment, std::string detail, Loop& loop);

  SupervisorConfig config_;
  RunRecorder& recorder_;
  const Clock& clock_;
  CheckpointStore store_;
  std::vector<std::unique_ptr<PreemptionSource>> sources_;
  std::unique_ptr<monitor::Sampler> sampler_;
  std::function<void(const RunStatus&)> status_callback_;
  RunResult result_;
};

}  // namespace frugal::run

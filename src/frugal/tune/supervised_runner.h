#pragma once
// A TrialRunner that trains real trials: each segment runs the study's trial command under the
// run supervisor (frugal run's protocol, checkpoint store, budget guard), up to `workers`
// segments at once, each in its own thread owning its own supervisor.
//
// Mapping onto the seam (trial_runner.h):
// - Launch: the command runs in the spec's directory with the protocol environment plus
//   FRUGAL_TRIAL_ID, FRUGAL_TRIAL_CONFIG (the configuration as JSON), FRUGAL_TRIAL_TARGET (the
//   fidelity this segment runs to) and FRUGAL_TRIAL_MAX (the top of the ladder). Each trial has
//   its own run directory (<study dir>/trials/<id>), so a resumed segment starts from the
//   trial's newest committed checkpoint (FRUGAL_RESUME_FROM), like any requeued run. Segments
//   beyond `workers` wait in order.
// - Progress: a progress line carrying the objective metric becomes a Progress at the fidelity
//   named by the fidelity metric (else the step); between them, one time-only Progress per
//   accrual interval per running trial keeps the study's budget accounting and gates live.
//   A segment's last Progress corrects the trial's accrued seconds to the length of its run's
//   segments as journaled (it may be negative), so the study's spend is what the ledger
//   prices the trial's run at.
// - Pause at a rung: the child checkpoints and exits at FRUGAL_TRIAL_TARGET (the end of its
//   segment; the study decides the rungs before it in flight and Stops the trial there if it
//   must); a command that ignores the target is asked to checkpoint and stop once it reports
//   it.
// - Stop: "checkpoint now, then stop" through the supervisor; returns the seconds it took.
//   RequestStop asks without waiting, so every running trial checkpoints at once at a cap.
//   StopInBackground (a trial pruned or paused in flight) asks the same and lets the tuner go
//   on: the segment keeps its worker slot until it has ended, its reports are no longer
//   results, its time is told in one kReleased Progress, and a new segment of the trial
//   (a later promotion) waits for it.
// - Spot preemptions (real notices, or the spec's chaos source) end a supervisor invocation;
//   the runner relaunches it, which resumes from the newest committed checkpoint.
// - Each invocation gets a dollar cap: what the trial has spent plus what the study has left,
//   and the spec's trial_max_wall; a backstop for a lagging tuner (the study's gate, checked at
//   every accrual of every trial, is what holds the study's total).
// - The ledger: each trial is one ledger run named <prefix>-t<id> (RunName; the prefix is made
//   unique per study instance and kept in the saved state), tagged with the spec's tags plus
//   study and trial; every supervisor invocation of it reopens that run. Each
//   trial thread opens its own ledger connection (open_ledger), so SQLite and PostgreSQL see
//   ordinary concurrent writers. Trial supervisors heartbeat once per accrual interval.
// - A killed tuner: its trials' supervisors died with it. Load (a resume) closes each run they
//   left open as lost at its last heartbeat, in the journal and the ledger alike, whether or
//   not the study continues the trial (a relaunch reopens the same run). Each trial the study
//   will not relaunch gets one time-only Progress (or Stop's return, for one it stops before
//   relaunching) correcting its seconds to its journaled segments, so the study's spend stays
//   the sum of its runs' costs.
// Signals: the supervisors share the process-wide signal watcher (signal_watcher.h), which
// fans every signal out to each of them, and each reaps only its own command's processes
// (child_process.h). The runner watches too: SIGINT or SIGTERM to the tuner checkpoints and
// stops every running trial, and the study ends as interrupted, resumable.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "frugal/core/clock.h"
#include "frugal/core/duration.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"
#include "frugal/ledger/ledger.h"
#include "frugal/run/report_channel.h"
#include "frugal/run/run_session.h"
#include "frugal/run/signal_watcher.h"
#include "frugal/run/supervisor.h"
#include "frugal/tune/budget_gate.h"
#include "frugal/tune/study_spec.h"
#include "frugal/tune/trial_runner.h"

namespace frugal::tune {

struct SupervisedRunnerOptions {
  std::vector<std::string> command;
  std::filesystem::path workdir;    ///< the trial command runs here (the spec's directory)
  std::filesystem::path study_dir;  ///< trials/<id>/ (checkpoints, journal, reports)
  std::string study;                ///< the study's name (tags, messages)
  std::string run_prefix;  ///< ledger run names are <prefix>-t<id>; unique per study instance
  std::string fidelity_metric = "epoch";
  std::string objective_metric;
  double max_fidelity = 0.0;
  FidelitySpec fidelity;  ///< scale_by: each trial's own full fidelity (FRUGAL_TRIAL_MAX)
  Rate price;             ///< per hour of one trial (price per GPU-hour × GPUs)
  int gpus = 1;
  std::optional<CapacityTier> tier;  ///< unset when the spec states none
  std::string offer;
  int workers = 1;                          ///< segments supervised at once
  std::map<std::string, std::string> tags;  ///< team/project/owner...; study and trial are added
  /// What the ledger's segments say each trial ran on (price, tier, offer fields).
  ledger::SegmentOffer record;
  /// Opens a ledger connection for one trial thread; empty: the trials' runs are journaled in
  /// their run directories only.
  std::function<Result<std::unique_ptr<ledger::Ledger>>()> open_ledger;
  std::optional<Duration> trial_max_wall;
  std::optional<ChaosSpec> chaos;
  uint64_t seed = 1;
  Duration accrual_interval = std::chrono::seconds(1);
  Duration checkpoint_grace = std::chrono::seconds(30);
  Duration stop_grace = std::chrono::seconds(10);
  int max_restarts = 10;  ///< preemptions one segment survives before its trial fails
  run::ChildStdout child_stdout = run::ChildStdout::kToStderr;
  /// What times the trials: their supervisors, the accrual intervals, the study clock and the
  /// ledger records (borrowed; it must outlive the runner).
  const Clock* clock = &RealClock();

  /// The options for a spec whose trial is a command; study_dir is where its trials live. The
  /// spec's price must be resolved (ResolvePricing) for the ledger record to carry the offer.
  static SupervisedRunnerOptions ForSpec(const StudySpec& spec, std::filesystem::path workdir,
                                         std::filesystem::path study_dir);
};

class SupervisedRunner final : public TrialRunner {
 public:
  explicit SupervisedRunner(SupervisedRunnerOptions options);
  /// Asks every running segment to checkpoint and stop, and waits for them.
  ~SupervisedRunner() override;
  SupervisedRunner(const SupervisedRunner&) = delete;
  SupervisedRunner& operator=(const SupervisedRunner&) = delete;

  /// The gate the per-invocation dollar and GPU-hour caps are derived from (may be null).
  void BindGate(const BudgetGate* gate) { gate_ = gate; }
  /// The per-trial wall cap each later launch carries (its supervisor's wall cap).
  void SetTrialMaxWall(std::optional<Duration> wall) override { options_.trial_max_wall = wall; }

  [[nodiscard]] Result<void> Launch(const Trial& trial, double from_fidelity,
                                    double to_fidelity) override;
  [[nodiscard]] Result<std::optional<Progress>> WaitNext() override;
  Progress Stop(int64_t trial_id) override;
  void RequestStop(int64_t trial_id) override;
  /// The segment checkpoints and stops on its own thread while the tuner goes on; its worker
  /// slot stays taken, and a new segment of the same trial waits for it, until it has ended.
  bool StopInBackground(int64_t trial_id) override;
  double Now() const override;
  std::optional<double> FullFidelitySeconds(const Trial&) const override { return std::nullopt; }
  std::string RunName(int64_t trial_id) const override;
  std::optional<ChargedCost> Charged(int64_t trial_id) const override;
  nlohmann::json Save() const override;
  [[nodiscard]] Result<void> Load(const nlohmann::json& state) override;
  /// Each trial whose segment has ended and whose state changed since: its journal gets a
  /// `run_status` record and its ledger run that status (paused, pruned, succeeded, failed,
  /// budget_stopped; TrialRunStatus), its end kept. A run the ledger still shows running (its
  /// writes failed) is left to the journal's catch-up. Spend is not touched.
  void RecordTrialStates(const std::vector<Trial>& trials) override;

  /// Preemptions seen by every supervisor invocation so far (injected or real).
  int preemptions() const { return preemptions_; }
  /// Supervisor invocations started (segments of trials, restarts included).
  int invocations() const { return invocations_; }
  /// The most segments that ran at the same moment in this process.
  int peak_concurrency() const { return peak_concurrency_; }
  /// Where trial `id` keeps its run (journal, reports, checkpoints).
  std::filesystem::path TrialDir(int64_t id) const;

 private:
  struct Pending {
    Trial trial;
    double to_fidelity = 0.0;
  };
  struct Active;

  void StartQueued();
  void SuperviseLoop(Active& active);
  /// The trial's supervisor invocations in its session: relaunched after each preemption.
  void SuperviseAttempts(Active& active, run::RunSession& session);
  [[nodiscard]] run::SupervisorConfig ConfigFor(const Pending& p) const;
  void ReadEarlierReports(Active& active);
  void PollReports(Active& active);
  /// Gives the segment up: it checkpoints and stops, and what it reports from now on is no
  /// longer a result, only time and the furthest fidelity it reached.
  void Release(Active& active);
  Progress TimeEvent(Active& active, SegmentEnd end);
  /// The seconds of the trial's run segments (what the ledger prices), minus what the study
  /// was told; nullopt when the supervisor never ran.
  std::optional<double> Correction(const Active& active) const;
  /// The seconds of trial `trial_id`'s run segments as journaled, every attempt.
  double JournaledSeconds(int64_t trial_id) const;
  /// On resume: closes every trial run the stopped tuner left unfinished (its supervisor died
  /// with it) as lost, in the journal and the ledger, at its journal's last record.
  /// A trial relaunched later continues the same run; one never relaunched stays closed.
  void CloseLostAttempts();
  [[nodiscard]] Result<Progress> FinishActive(Active& active);
  /// The end of a released segment: its time, and the furthest fidelity it reached.
  Progress ReleasedEnd(Active& active);
  /// Queues the report of an earlier segment that had reached the target, when this one
  /// reported nothing (the tuner was stopped after the report).
  void TellEarlierTargetReport(Active& active);
  /// How the segment ended; kInterrupted when the tuner or the segment was interrupted.
  [[nodiscard]] Result<SegmentEnd> SegmentEndOf(const Active& active) const;
  /// WaitNext's answer once no trial runs: the end, or kInterrupted while halting.
  [[nodiscard]] Result<std::optional<Progress>> NoTrialRunning() const;
  /// Finishes one segment whose thread is done; false when none is.
  bool FinishDoneSegment();
  /// The running trial that is owed a time event, or nullptr.
  Active* DueForAccrual();
  void JoinActive(Active& active);
  /// SIGINT or SIGTERM to the tuner: every running trial checkpoints and stops.
  void WatchSignals();
  Progress Emit(Progress p);

  SupervisedRunnerOptions options_;
  const BudgetGate* gate_ = nullptr;
  std::optional<run::SignalWatcher> signals_;  ///< while trials run
  std::deque<Pending> queue_;
  std::map<int64_t, std::unique_ptr<Active>> active_;
  std::deque<Progress> ready_;
  std::map<int64_t, double> told_seconds_;  ///< per trial: wall seconds given to the study
  std::mutex wake_mutex_;
  std::condition_variable wake_;  ///< a segment's thread finished
  std::atomic<bool> halting_{false};
  SteadyTime started_;
  double elapsed_before_ = 0.0;      ///< study clock carried over from an earlier tuner process
  int preemptions_ = 0;              ///< over every invocation in this process
  std::atomic<int> chaos_fired_{0};  ///< injected ones, against chaos.max (saved)
  int invocations_ = 0;
  int peak_concurrency_ = 0;
  /// Per trial: the state last recorded for its run (erased when a segment launches).
  std::map<int64_t, TrialState> recorded_states_;
  std::unique_ptr<ledger::Ledger> status_ledger_;  ///< opened on the first status to record
  bool status_ledger_tried_ = false;
};

/// The ledger run status of a trial in `state` (not running): paused → paused, completed →
/// succeeded, pruned → pruned, failed → failed, stopped at the budget or wall → budget_stopped.
ledger::RunStatus TrialRunStatus(TrialState state);

/// The journal of the trial whose ledger run is named `run_name`, under `studies_dir` (the data
/// directory's `studies/`): in its study's trial folders, or in those of an earlier study of that
/// name kept as `NAME@n`. Only a journal whose run is `run_name` is returned; nullopt when none
/// is there (`frugal ledger sweep` looks here when a run has no `runs/NAME/journal.jsonl`).
std::optional<std::filesystem::path> FindTrialJournal(const std::filesystem::path& studies_dir,
                                                      const std::string& run_name);

}  // namespace frugal::tune

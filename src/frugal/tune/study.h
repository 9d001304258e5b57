#pragma once
// A study: the loop that asks the scheduler for work, samples configurations, passes every
// start and resume through the budget gate, hands segments to a TrialRunner, and records
// results, spend and state. It owns its trials, scheduler, sampler and gate; it borrows the
// runner, the store and (for replay) the table.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/clock.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/tune/budget_gate.h"
#include "frugal/tune/pace_model.h"
#include "frugal/tune/replay_table.h"
#include "frugal/tune/sampler.h"
#include "frugal/tune/scheduler.h"
#include "frugal/tune/study_caps.h"
#include "frugal/tune/study_spec.h"
#include "frugal/tune/study_store.h"
#include "frugal/tune/trial.h"
#include "frugal/tune/trial_runner.h"

namespace frugal::tune {

/// The trials that failing the same way before any trial has reported stops a study (fewer
/// when max_trials is lower).
inline constexpr size_t kIdenticalFailures = 3;

/// The spec as the user gave it, so a resumed study re-reads exactly the same thing.
struct SpecText {
  std::string yaml;
  std::string source;              ///< file name for messages
  std::filesystem::path base_dir;  ///< relative paths in the spec resolve against it
};

/// One step of the best-so-far curve: the best completed value once `spend` was spent.
struct BestSoFar {
  Money spend;
  double value = 0.0;
};

/// The best result of a trial that has not reached full fidelity (a partial result).
struct PartialBest {
  double value = 0.0;
  double fidelity = 0.0;       ///< where it was measured
  double full_fidelity = 0.0;  ///< the trial's own full fidelity
  int64_t trial = 0;
  std::string config_id;
};

struct StudySummary {
  std::string name;
  std::string status;       ///< running, finished, interrupted
  std::string stop_reason;  ///< why no more trials started ("" while running)
  std::optional<double> best_value;
  std::optional<int64_t> best_trial;
  std::string best_config_id;
  Config best_config;
  Money spend;
  double gpu_hours = 0.0;
  Money overshoot;
  double overshoot_gpu_hours = 0.0;  ///< past max_gpu_hours
  std::map<std::string, int64_t> trials_by_state;
  int64_t trials_started = 0;
  int64_t promotions = 0;
  int64_t pauses = 0;
  Money full_fidelity_cost;  ///< every started trial trained to full fidelity
  Money pruning_saved;
  double elapsed_seconds = 0.0;  ///< study clock
  /// The trial that got furthest without completing (deepest rung, then best value there):
  /// what a study has to show when nothing reached full fidelity. Null when every trial with a
  /// result completed.
  std::optional<PartialBest> best_partial;
  std::vector<BestSoFar> best_so_far;  ///< each improvement of the best completed value
  bool endgame = false;                ///< it stopped exploring to finish its leaders
};

nlohmann::json SummaryToJson(const StudySummary& summary);
/// The best-so-far curve as `[{"spend_usd": ..., "best_value": ...}, ...]`.
nlohmann::json CurveToJson(const std::vector<BestSoFar>& curve);

class Study;

struct RunOptions {
  std::optional<int64_t> halt_after_events;  ///< stop as if killed after this many events
  /// Called after every event (a status line); may be empty.
  std::function<void(const Study&)> on_event;
  int64_t save_every_ms = 200;  ///< at most one save per interval (0: after every event)
  /// Also save as soon as a new trial has started, whatever the interval: a real trial is a
  /// process that spends, and one the saved state does not know of would be started again, as
  /// a new configuration, under its run's name and in its folder.
  bool save_after_start = false;
  /// What times the save interval (a test's FakeClock, or the machine's).
  const Clock* clock = &RealClock();
};

class Study {
 public:
  /// A fresh study. kBadInput when the spec and the replay table disagree.
  [[nodiscard]] static Result<std::unique_ptr<Study>> Create(SpecText text, StudySpec spec,
                                                             TrialRunner& runner, StudyStore& store,
                                                             const ReplayTable* table);
  /// A study restored from `state` (its spec re-read from the saved text by the caller).
  [[nodiscard]] static Result<std::unique_ptr<Study>> Restore(const nlohmann::json& state,
                                                              StudySpec spec, TrialRunner& runner,
                                                              StudyStore& store,
                                                              const ReplayTable* table);

  /// After Restore with new caps in the spec (a resume's --budget and the like): `before` are
  /// the caps the study had, `edits` what changed (kept with the state). A cap now at or below
  /// what is spent ends the study at its budget: its running trials checkpoint and stop, and
  /// nothing starts or resumes. A study that stopped at a cap now raised opens again: its
  /// trials stopped at the budget (or at a wall cap now above their time) are paused and
  /// resume from their checkpoints (not under sha or hyperband, whose brackets closed without
  /// them), and new trials may start.
  void OnCapsChanged(const Gates& before, const std::vector<CapEdit>& edits);

  /// Runs until no work is left. kInterrupted (state saved) when halted by RunOptions.
  [[nodiscard]] Result<StudySummary> Run(const RunOptions& options);

  StudySummary Summary() const;
  const std::vector<Trial>& trials() const { return trials_; }
  const StudySpec& spec() const { return spec_; }
  const BudgetGate& gate() const { return gate_; }
  nlohmann::json SaveState() const;
  /// Wall seconds kept back to take the current leader to full fidelity (see FinishReserve):
  /// what exploring may not spend.
  double LeaderReserveSeconds() const { return FinishReserve(-1); }

  /// Each time the best completed value improved: (spend so far, best value). Kept with the
  /// state (the best-so-far curve of `tune status`).
  using Improvement = BestSoFar;
  const std::vector<Improvement>& improvements() const { return improvements_; }

 private:
  Study(SpecText text, StudySpec spec, TrialRunner& runner, StudyStore& store,
        const ReplayTable* table);
  [[nodiscard]] Result<void> Prepare();
  /// Restore's steps: the saved trials (checked against the spec's rungs and the table), and
  /// the accounting, the pace and the flags. Both throw nlohmann::json's errors on a malformed
  /// state (Restore reports them).
  [[nodiscard]] Result<void> RestoreTrials(const nlohmann::json& trials);
  void RestoreCounters(const nlohmann::json& state);
  /// Each full run's cost at full fidelity, on average (the table's, or cost_per_unit × max).
  std::optional<double> MeanFullRunSeconds() const;
  /// Left unstated, the scheduler is `none` when the budget pays fewer than
  /// kMinRunsForPruning full runs (fresh studies only: a resume keeps the one it started with).
  void ChooseDefaultScheduler();
  /// Gives every free worker its job (deferred promotions first, then the scheduler's), then
  /// stops the parked trials that were not resumed in place.
  [[nodiscard]] Result<void> FillWorkers();
  [[nodiscard]] Result<void> AssignFreeWorkers();
  /// Checkpoints and stops every parked trial (paused in flight, still training).
  void SettleParked();
  /// Checkpoints and stops a trial decided in flight: in the background where the runner can
  /// (the trial joins released_ until its time is told), else at once (AccrueStop).
  void StopDecided(Trial& trial);
  [[nodiscard]] Result<bool> TryStart(const Job& job);
  [[nodiscard]] Result<bool> TryResume(Trial& trial);
  [[nodiscard]] Result<void> Handle(const Progress& progress);
  /// A report of a trial stopped in the background (released_); false for any other trial.
  bool AccrueReleased(Trial& trial, const Progress& progress);
  /// Charges a report's seconds to the trial and the gate, and learns its pace and result.
  void Accrue(Trial& trial, const Progress& progress);
  /// At a report in flight: the caps on the next interval, the trial's wall, and the finishes
  /// the budget can still pay (StopAtTheCap, StopWhatCannotFinish).
  void HoldCapsAtAccrual(Trial& trial, double interval);
  [[nodiscard]] Result<void> OnSegmentEnd(Trial& trial, const Progress& progress);
  /// Starts or resumes the trial's segment: from its checkpoint to the first rung at or above
  /// target_rung where the scheduler may pause it (segment_rung).
  [[nodiscard]] Result<void> Launch(Trial& trial);
  void EndTrial(Trial& trial, TrialState state);
  /// Stops the trial's segment and accrues what the stop itself took.
  void AccrueStop(Trial& trial);
  /// Whether a trial's segment has just ended (its runner has charged it) or still runs.
  enum class SegmentNow { kRunning, kEnded };
  /// What a trial cost: once a segment ends, what its runner charged it (for a supervised trial
  /// its ledger run's figure to the micro-dollar) plus any seconds it has not charged; else its
  /// seconds at the study's price, rounded once. The study's spend is the sum of these.
  Money SpendOf(const Trial& trial, SegmentNow now) const;
  /// A running trial stopped at a cap: charged its stop, and ended `cap_state` unless it
  /// reached its full fidelity before the stop reached it (then it is complete).
  void StopAtCap(Trial& trial, TrialState cap_state);
  /// On a resume that lowers trial_max_wall: trials already past it end stopped_at_wall.
  void StopTrialsPastANewWall(const Gates& before);
  /// On a resume that changes the plateau gate: a looser one ends a stop at the plateau, a
  /// smaller epsilon restarts the plateau's count.
  void OnPlateauChanged(const Gates& before);
  /// The end of a segment stopped in the background: the fidelity and result it reached.
  void KeepTrainedPast(Trial& trial, const Progress& p);
  void ApplyPruned();
  void UpdateIncumbent(const Trial& trial);
  void CloseStarts(const std::string& reason);
  /// Ends the study (stop reason and a warning saying why) when its first trials, and none
  /// that reported, all failed the same way (`failure`, the runner's words): a command that
  /// fails whatever the configuration would fail every trial the study pays to start.
  void StopOnIdenticalFailures(const Trial& failed, const std::string& failure);
  bool MayStart() const;
  std::optional<double> RateOf(const Trial& trial) const;
  std::optional<double> ReservedSeconds() const;
  /// The fidelity at which `trial` reports `rung` (its own schedule's, with scale_by).
  double RungFidelity(const Trial& trial, int rung) const;
  /// Records the trial's result at target_rung and applies the scheduler's verdict: at the end
  /// of a segment, at a rung a short schedule already passed (scale_by), or in flight (the
  /// trial still trains toward segment_rung), where a verdict that ends or pauses it stops it
  /// where it is and continuing needs the room a resume would.
  enum class RungPass {
    kAtSegmentEnd,  ///< its segment ended at this rung (or a short schedule passed it)
    kInFlight,      ///< its process trains on past the rung
    kAtLastReport,  ///< in its segment, at the report that ended it (no process to stop)
  };
  [[nodiscard]] Result<void> PassRung(Trial& trial, RungPass pass);
  /// When no start fits at the dearest pace seen: whether one new trial may still start alone,
  /// because nothing else is left to spend the money on (no trial runs, and none unfinished
  /// waits for it) and its `units` to first report fit at the pace predicted for the cheapest
  /// configuration it may draw (KeepAffordable with `alone`; without a table, the mean pace).
  bool LoneProbeFits(double units) const;
  /// Whether the budget can pay for `trial` to reach `rung` now, once running segments settle,
  /// or never.
  enum class Room { kNow, kLater, kNever };
  Room RoomToReach(const Trial& trial, int rung) const;
  double Loss(double value) const;
  std::vector<Observation> History() const;
  /// Picks the next configuration; false when the table has none left.
  bool PickConfig(Trial& trial, bool alone = false);

  // The endgame (study_endgame.cc): money is kept to finish the leader, and once exploring
  // would eat it (or nothing is left to explore) the workers promote paused trials, best first.
  /// Best first: deepest rung, then its result there, then progress through its own schedule.
  bool Ahead(const Trial& a, const Trial& b) const;
  /// What training `trial` from where it is to fidelity `to` costs (wall seconds), at its own
  /// pace and the trend of that pace (PaceModel::Seconds).
  double SegmentSeconds(const Trial& trial, double to) const;
  /// What taking `trial` to its full fidelity from where it is costs (wall seconds).
  double FinishSeconds(const Trial& trial) const;
  /// The unfinished trial (running or paused) that ranks first among those whose finish the
  /// rest of the budget can pay beside what running segments hold; when none can, the one
  /// cheapest to finish; null when no trial is unfinished.
  const Trial* Leader() const;
  /// What finishing the leader costs beyond what its running segment has reserved (0 when
  /// `except` is the leader, or there is none).
  double FinishReserve(int64_t except) const;
  /// Whether free workers promote paused trials past the scheduler's quota (asha only).
  bool Drains() const;
  /// Promotes the best paused trial the budget can pay for, of those that could still beat the
  /// leader (InRungCut); false when none can run now.
  [[nodiscard]] Result<bool> Drain();
  /// Whether `trial`'s result at `rung` is within the top 1/η of every result at that rung
  /// (at least the best): the ones a promotion past the scheduler's quota may still pay for.
  /// A trial further behind stays paused, and its full run is counted as pruning's saving.
  bool InRungCut(const Trial& trial, int rung) const;
  /// The next interval of every running trial, each at its own last interval (`fallback`
  /// for a trial that has none yet).
  double NextIntervals(double fallback) const;
  /// The budget cannot pay one more interval of every running trial: the trials furthest
  /// behind checkpoint and stop until the rest fit (the leaders run on).
  void StopAtTheCap(double fallback);
  /// Trials training to full fidelity keep running, in rank order, while the rest of the
  /// budget can pay their finishes (at their own measured pace); the first whose finish it
  /// cannot pay beside those ahead checkpoints and stops now, not at the cap, so that the
  /// money goes to trials that can still complete (not under sha or hyperband).
  void StopWhatCannotFinish();
  /// A configuration's pace (seconds per fidelity unit) predicted from the measured trials,
  /// nearest weigh most; 0 when none is measured.
  double PredictedPace(size_t row) const;
  /// Until a trial has completed and while the rest of the budget would not finish a typical
  /// configuration: narrows the table rows a draw may pick to those predicted to fit (or, once
  /// two trials were stopped as too dear, the cheapest predicted half). `alone` (a trial
  /// started alone with what is left): always to those predicted to fit, or before any trial
  /// has completed the cheapest predicted half; possibly to none.
  void KeepAffordable(std::vector<size_t>& rows, bool alone) const;
  /// Once no trial is left for the endgame to finish (its leader failed, or completed), the
  /// study explores again with what is left.
  void ReopenAfterTheEndgame();
  [[nodiscard]] Result<void> Persist(const std::string& status);

  SpecText text_;
  StudySpec spec_;
  RungLadder ladder_;
  TrialRunner& runner_;
  StudyStore& store_;
  const ReplayTable* table_;
  std::unique_ptr<Scheduler> scheduler_;
  std::unique_ptr<Sampler> sampler_;
  BudgetGate gate_;
  CostEstimator estimator_;
  std::vector<Trial> trials_;
  std::vector<int64_t> running_;  ///< trials with a segment in flight
  /// Trials paused in flight whose process still trains until the free workers are given
  /// their jobs: a promotion of one of them continues it in place, without a restart.
  std::vector<int64_t> parked_;
  /// Trials decided and stopped in the background, still checkpointing: they burn until the
  /// runner tells their last time (SegmentEnd::kReleased).
  std::vector<int64_t> released_;
  std::vector<std::vector<double>> table_points_;  ///< replay: each row's unit-cube point
  /// replay: each row's point for predicting its pace (the space's, else configs.csv's columns)
  std::vector<std::vector<double>> cost_points_;
  std::vector<char> table_used_;
  std::vector<size_t>
      table_order_;  ///< replay: the order rows are offered in (shuffled when opaque)
  int64_t events_ = 0;
  int64_t promotions_ = 0;
  std::string first_failure_;     ///< how the first failed trial failed ("" before one has)
  bool failures_differ_ = false;  ///< a later failure was another one
  int64_t pauses_ = 0;
  std::string stop_reason_;
  bool stopping_ = false;  ///< a plateau: no starts, no resumes
  std::optional<double> incumbent_loss_;
  int64_t incumbent_trials_started_ = 0;
  double incumbent_gpu_seconds_ = 0.0;
  std::vector<Improvement> improvements_;
  bool endgame_ = false;  ///< no more starts: the rest of the budget finishes leaders
  PaceModel pace_;        ///< how fast trials train (kept with the state)
  nlohmann::json cap_changes_ = nlohmann::json::array();  ///< see study_caps.h
};

}  // namespace frugal::tune

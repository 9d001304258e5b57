#pragma once
// The seam between a study and whatever trains its trials. A study launches segments (a trial
// from its checkpoint up to a target fidelity) and consumes progress events, one per accrual
// interval, in time order. The replay runner answers from tabulated curves in simulated time;
// the supervised runner (frugal run's supervisor and protocol) answers from real processes:
// Launch starts `trial.command` with FRUGAL_TRIAL_ID, FRUGAL_TRIAL_CONFIG (the config as JSON)
// and the checkpoint to resume from; each progress line of the report channel becomes a
// Progress (wall seconds since the previous one); reaching `to_fidelity` asks the child to
// checkpoint and stop (a pause); Stop sends "checkpoint now" then "stop".

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

enum class SegmentEnd {
  kNone,           ///< the segment runs on
  kReachedTarget,  ///< reached the target fidelity; the trial is checkpointed there
  kScheduleEnded,  ///< the trial's own schedule ended before the target (it is complete)
  kFailed,         ///< the trial diverged or crashed
  kBudgetStopped,  ///< the runner's own cap on the trial stopped it (checkpointed)
  kWallStopped,    ///< the trial reached its wall-clock cap (SetTrialMaxWall) and stopped there
  kReleased,       ///< a segment given up with StopInBackground has ended: its time, and
                   ///< (value set) the furthest report it made after it was given up
};

/// One accrual interval of one trial.
struct Progress {
  int64_t trial_id = -1;
  double fidelity = 0.0;        ///< reached at the end of the interval
  std::optional<double> value;  ///< the objective metric at `fidelity`, when reported
  /// Consumed during the interval. A segment's last event may carry a negative correction
  /// (the runner's own clock said the trial used less than it was told so far).
  double wall_seconds = 0.0;
  SegmentEnd end = SegmentEnd::kNone;
  /// With end kFailed, how the trial's command failed ("exit code 1"), for a runner that runs
  /// real commands: the same text for several trials says the command, not the configuration,
  /// is broken. Empty where a failure is the configuration's own (a replayed table's row).
  std::string failure;
};

/// What a runner has charged a trial for its ended segments, priced as the ledger prices them
/// (each segment's price × length, rounded once to the micro-dollar).
struct ChargedCost {
  Money spent;
  double wall_seconds = 0.0;  ///< the ended segments' summed length
};

class TrialRunner {
 public:
  virtual ~TrialRunner() = default;
  /// Starts (from_fidelity 0) or resumes (from a checkpoint) a segment of `trial` that runs
  /// until `to_fidelity`. kFailed when it cannot be started.
  [[nodiscard]] virtual Result<void> Launch(const Trial& trial, double from_fidelity,
                                            double to_fidelity) = 0;
  /// Blocks until the next progress event of any running segment; nullopt when none runs.
  [[nodiscard]] virtual Result<std::optional<Progress>> WaitNext() = 0;
  /// Checkpoints the trial and ends its segment. Returns the stop's tail: the wall seconds it
  /// consumed after the last progress event told (the checkpoint and the exit; 0 for a
  /// simulated trial), which the study accrues to the trial, and (value set) the furthest
  /// report the trial made that was not told, which it paid for and keeps.
  virtual Progress Stop(int64_t trial_id) = 0;
  /// Asks the trial's segment to checkpoint and stop without waiting for it; a later Stop
  /// waits. Lets every running trial checkpoint at once at a cap. A no-op where Stop is
  /// immediate.
  virtual void RequestStop(int64_t /*trial_id*/) {}
  /// Asks the trial's segment to checkpoint and stop, and returns at once; true when the
  /// runner does so: it then reports no more results of that segment, only its time, ending
  /// with one Progress whose end is kReleased. False where stopping is immediate (a replay):
  /// the caller uses Stop.
  virtual bool StopInBackground(int64_t /*trial_id*/) { return false; }
  /// The per-trial wall cap (the study's trial_max_wall) that segments launched from now on
  /// hold: a trial whose cost would pass it stops there, its segment ending kWallStopped. The
  /// study checks the cap at every accrual too; the runner also holds it within one.
  virtual void SetTrialMaxWall(std::optional<Duration> /*wall*/) {}
  /// What the runner charged the trial (a supervised trial's journal, which is what its ledger
  /// run holds), or nullopt where it charges nothing itself (a replay): the study then prices
  /// the trial's seconds.
  virtual std::optional<ChargedCost> Charged(int64_t /*trial_id*/) const { return std::nullopt; }
  /// The name of the ledger run that records the trial's spend, or "" when none does.
  virtual std::string RunName(int64_t /*trial_id*/) const { return {}; }
  /// The study clock: seconds since the study began.
  virtual double Now() const = 0;
  /// The wall seconds a trial would take from scratch to its full fidelity, when known.
  virtual std::optional<double> FullFidelitySeconds(const Trial& trial) const = 0;
  /// The study's trials as they stand (called at every save): a runner that records trials
  /// elsewhere (the ledger) makes the record of each trial whose segment has ended say the
  /// state the study gave it. A no-op by default.
  virtual void RecordTrialStates(const std::vector<Trial>& /*trials*/) {}
  /// Runner state that a resumed study needs (in-flight segments of a replay); null if none.
  virtual nlohmann::json Save() const = 0;
  [[nodiscard]] virtual Result<void> Load(const nlohmann::json& state) = 0;
};

}  // namespace frugal::tune

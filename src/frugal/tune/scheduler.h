#pragma once
// Schedulers decide, rung by rung, which trials get more fidelity (epochs, steps). A study
// asks for work whenever a worker is free (Next) and reports each rung result (OnRung); the
// scheduler never runs anything or spends anything itself: the study's budget gate does.
//
//   asha       asynchronous successive halving with promotion: a trial pauses at each rung on
//              a checkpoint; a free worker resumes the best paused trial that is in the top
//              1/η of its rung, else starts a new trial (Li et al., 2020).
//   asha-stop  the stopping variant other tools ship: a trial runs on unless it falls outside
//              the top 1/η of the results recorded at a rung when it reaches it.
//   sha        synchronous successive halving: brackets of n trials; a rung closes when all of
//              its members report; the top 1/η resume, the rest are pruned.
//   hyperband  brackets of successive halving cycling through start rungs (more trials with
//              early pruning, fewer trials with late pruning).
//   median     a trial stops at a rung when its result is worse than the median of the other
//              trials' results at that rung (after at least `min_trials` of them).
//   none       every trial runs straight to the top rung.
//
// Early rungs (asha, asha-stop): the ladder's lowest `early` rungs lie below the grace period.
// A trial reaching one runs on unpruned, so the study learns, from every trial, how its ranks
// there compare with the rung above. Once kEarlyRungPairs trials have reported at both, the
// rung starts pruning like any other if the two rankings agree (Spearman ≥ kEarlyRungAgreement),
// and never otherwise. Where early ranks predict later ones (NAS-Bench-NLP: 0.96 from epoch 1
// to 3) this prunes at a third of the grace period's cost; where they do not (AlexNet/ImageNet
// at 1% of its schedule: 0.63), the grace period stands. bench/tune has the figures.

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

enum class SchedulerKind { kAsha, kAshaStop, kSha, kHyperband, kMedian, kNone };

std::string_view SchedulerName(SchedulerKind kind);
[[nodiscard]] Result<SchedulerKind> ParseSchedulerKind(std::string_view text);

/// The fidelities at which trials report: increasing, the last is the study's maximum.
struct RungLadder {
  std::vector<double> fidelities;
  double reduction_factor = 3.0;  ///< η: keep the top 1/η at each rung
  int early = 0;  ///< the lowest rungs that prune only once shown to agree with the next
  int top() const { return static_cast<int>(fidelities.size()) - 1; }
};

/// Rungs min·η^k below max/√η, then max (the last rung is always max, and the step to it is
/// at least √η).
RungLadder GeometricLadder(double min_fidelity, double max_fidelity, double reduction_factor);

/// Trials with results at an early rung and the rung above before the rung is judged, and the
/// rank correlation it needs to start pruning. With 30 pairs, rankings whose true correlation
/// is 0.96 pass in 99.6% of random draws and those at 0.63 in 4.2% (bench/tune/curve_stats.py).
inline constexpr int kEarlyRungPairs = 30;
inline constexpr double kEarlyRungAgreement = 0.85;

enum class JobKind {
  kStart,   ///< start a new trial (bracket, target_rung say where)
  kResume,  ///< resume trial_id from its checkpoint up to target_rung
  kWait,    ///< nothing to do until a running trial reports
  kDone,    ///< the scheduler will never give more work
};

struct Job {
  JobKind kind = JobKind::kWait;
  int64_t trial_id = -1;
  int target_rung = 0;
  int bracket = 0;
};

enum class Verdict {
  kContinue,  ///< run on to the next rung
  kPause,     ///< checkpoint and wait to be resumed
  kStop,      ///< pruned
  kComplete,  ///< reached the top rung
};

/// Trials are identified by their index in the study's trial list (ids 0, 1, 2, ...).
class Scheduler {
 public:
  virtual ~Scheduler() = default;
  /// Work for one free worker. `may_start` is false when a gate forbids new trials; the
  /// scheduler then resumes existing ones or waits.
  virtual Job Next(std::span<const Trial> trials, bool may_start) = 0;
  /// The study created trial `trial` for a kStart job; called before any OnRung for it.
  virtual void OnStart(const Trial& trial) = 0;
  /// `trial` reported `loss` (lower is better) on reaching rung `rung`.
  virtual Verdict OnRung(std::span<const Trial> trials, const Trial& trial, int rung,
                         double loss) = 0;
  /// `trial` ended outside the scheduler's verdicts (failed, its schedule ended early, a gate).
  virtual void OnEnd(const Trial& trial) = 0;
  /// `trial`, ended by a gate (OnEnd) short of its target rung, may run on now that the gate
  /// was raised. True when the scheduler takes it back: the study resumes it to its target
  /// rung and reports there as usual. False when its place is gone (its bracket finished).
  virtual bool Reopen(const Trial& /*trial*/) { return true; }
  /// Trials the scheduler pruned while they were paused, since the last call.
  virtual std::vector<int64_t> TakePruned() { return {}; }
  /// The rung a segment starting at `rung` runs to in one process. The rungs below it are
  /// decided as their reports arrive: a trial pruned or paused there is stopped in flight, and
  /// one that continues (or, paused, is promoted at once) trains on without a restart. The
  /// default, `rung`, ends every segment at the next rung (sha and hyperband, whose brackets
  /// wait for every member).
  virtual int PauseRungFrom(int rung) const { return rung; }
  /// Scheduler state beyond what the trials record (null when there is none).
  virtual nlohmann::json Save() const = 0;
  /// Restores Save's document, rebuilding indexes from `trials`.
  [[nodiscard]] virtual Result<void> Load(const nlohmann::json& state,
                                          std::span<const Trial> trials) = 0;
};

struct SchedulerOptions {
  SchedulerKind kind = SchedulerKind::kAsha;
  RungLadder ladder;
  int median_min_trials = 3;  ///< median: results needed at a rung before it stops anyone
  int bracket_size = 0;       ///< sha: trials per bracket; 0 = η^(rungs-1)
  /// Configurations there are to try (a replay table's rows); 0 = unlimited. No bracket is
  /// planned larger than what is left of them.
  size_t pool_size = 0;
};

std::unique_ptr<Scheduler> MakeScheduler(const SchedulerOptions& options);

}  // namespace frugal::tune

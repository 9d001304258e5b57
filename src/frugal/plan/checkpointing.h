#pragma once
// Running on spot capacity: how often to checkpoint, and what preemptions cost in time, in
// risk to the deadline, and with an on-demand fallback. All times are hours.

#include <optional>
#include <string>
#include <string_view>

#include "frugal/core/checkpoint_interval.h"

namespace frugal::plan {

/// Where a job's ability to resume comes from.
enum class CheckpointSource {
  kDeclared,     ///< the spec's fault_tolerance section
  kDrill,        ///< a drill record measured it
  kAssumedNone,  ///< neither: the job is taken not to resume, restarting from scratch
};
/// "declared", "drill", "none".
[[nodiscard]] std::string_view CheckpointSourceName(CheckpointSource s);

/// What the job can do about interruptions (the spec's fault_tolerance section).
struct FaultTolerance {
  /// False when the job cannot resume: every preemption restarts it from scratch. A spec
  /// without a fault_tolerance section or drill is read so (most tree ensembles and many
  /// scripts cannot resume); a default-constructed one resumes (tests, the queue's jobs that
  /// say they checkpoint).
  bool resumes = true;
  CheckpointSource source = CheckpointSource::kDeclared;
  double checkpoint_write_hours = 1.0 / 60;  ///< one checkpoint write
  double restart_hours = 5.0 / 60;           ///< new instance up + resume from checkpoint
  bool checkpoint_on_notice = false;         ///< can save when the notice arrives
  double notice_hours = 0.5 / 60;            ///< shortest preemption notice to count on
  double boot_hours = 3.0 / 60;  ///< a new instance's boot, added to a drill's measured restart
  std::string drill;             ///< the drill record these figures came from ("" when none)
  std::string drill_measured_at;
  /// Set when the drill found the job not spot-ready: why (spot options are then excluded).
  std::optional<std::string> not_spot_ready;
};

/// What a plan assumed of the job's checkpoints, in one sentence: "none declared (no
/// fault_tolerance section or drill record): spot runs are priced restarting from scratch at
/// each preemption; ..." or where the figures came from.
[[nodiscard]] std::string CheckpointAssumption(const FaultTolerance& ft);

/// Whether the job saves when the preemption notice arrives: it says it can and one checkpoint
/// write fits in the notice. Otherwise it checkpoints periodically on spot.
[[nodiscard]] inline bool SavesOnNotice(const FaultTolerance& ft) {
  return ft.checkpoint_on_notice && ft.checkpoint_write_hours <= ft.notice_hours;
}

/// Young (1974): τ = √(2·C·M), checkpoint cost C, mean time between failures M (hours here).
using frugal::YoungInterval;

/// Daly (2006), the higher-order optimum: τ = √(2CM)·[1 + ⅓√(C/2M) + ⅑(C/2M)] − C for C < 2M,
/// else M.
[[nodiscard]] double DalyInterval(double checkpoint_hours, double mtbf_hours);

/// Daly's expected wall time to finish `work_hours` checkpointing every τ hours of work, with
/// exponential failures of mean M and restart R: T = M·e^(R/M)·(e^((τ+C)/M) − 1)·W/τ.
[[nodiscard]] double ExpectedWallHours(double work_hours, double interval_hours,
                                       double checkpoint_hours, double restart_hours,
                                       double mtbf_hours);

enum class CheckpointStrategy {
  kNone,         ///< no preemptions expected (on-demand, reserved)
  kPeriodic,     ///< Young/Daly interval
  kOnNotice,     ///< save when the notice arrives; nothing lost but the restart
  kFromScratch,  ///< no checkpoints: each preemption loses all the work done so far
};
/// "periodic", "checkpoint_on_notice", "restart_from_scratch" ("none" for kNone).
[[nodiscard]] std::string_view CheckpointStrategyName(CheckpointStrategy s);

struct SpotRun {
  CheckpointStrategy strategy = CheckpointStrategy::kNone;
  double interval_hours = 0;  ///< periodic: work between checkpoints
  double expected_wall_hours = 0;
  double expected_preemptions = 0;
  double checkpoint_hours = 0;  ///< time spent writing checkpoints
  double restart_hours = 0;     ///< time spent restarting
  double lost_work_hours = 0;   ///< work redone after preemptions
  /// Waiting for spot capacity to come back after preemptions: in the wall time, but no
  /// instance runs (none is billed, none is preempted).
  double capacity_wait_hours = 0;
  double deadline_miss_probability = 0;
  bool viable = true;  ///< false when preemptions come faster than restarts
  [[nodiscard]] double Inflation(double work_hours) const {
    return expected_wall_hours / work_hours;
  }
};

/// The expected run of `work_hours` of undisturbed work at `preemptions_per_hour` (the whole
/// job's rate: instances × per-instance rate). A job that does not resume restarts from
/// scratch: E[T] = (e^(λW) − 1)(1/λ + R), and it misses a deadline D when more than
/// n = ⌊(D − W)/c⌋ attempts fail, c = E[t | t < W] + R the wall a failed attempt costs:
/// P = (1 − e^(−λW))^(n+1). Checkpoint-on-notice when the job can and its
/// write fits in the notice; else periodic at the Daly interval. The deadline-miss probability
/// is P(N > n) for N ~ Poisson(rate × expected wall), n the preemptions the slack absorbs at
/// the expected cost of each (restart plus half an interval of lost work plus the checkpoint).
/// After each preemption the job first waits `outage_hours` for capacity (no instance: it is
/// not billed and not preempted), then restarts (`ft.restart_hours`, which can be preempted).
[[nodiscard]] SpotRun ModelSpotRun(double work_hours, double preemptions_per_hour,
                                   const FaultTolerance& ft, std::optional<double> deadline_hours,
                                   double outage_hours = 0);

/// P(N > n) for N ~ Poisson(mean).
[[nodiscard]] double PoissonTail(double mean, double n);

/// Spot with an on-demand fallback. The rule: at each checkpoint commit and each restart, go
/// on with spot only while a whole further segment could be lost and the on-demand restart
/// plus the rest of the work would still end by the deadline D; else move to on-demand now.
/// A preemption loses at most L_max of wall (a checkpoint interval plus its write; on notice,
/// the save), L on average (half that; the save), so each costs c = R + L with restart R. The
/// rule always keeps L_max + R + the on-demand rest in reserve, which is why no run misses D.
///   With B the longer of the spot run's undisturbed wall W' (work plus checkpoint writes)
/// and the on-demand offer's W_od: when D − R − B − L_max ≥ 0, spot absorbs about
/// k = ⌊(D − R − B − L_max)/c⌋ preemptions and switches at the k+1-th. A spot run with at
/// most k ends by H = W' + k·c, so the switch probability is p = P(N(H) > k) for N Poisson at
/// the job's preemption rate λ (slightly high: a finished run is not switched). Given a
/// switch, it comes at the k+1-th arrival, E[t | t ≤ H] = (k+1)/λ · P(N(H) > k+1)/P(N(H) > k),
/// with (t − k·c − L)·W/W' of the work checkpointed (at least 0).
///   Otherwise (spot too slow to finish inside the reserve) the switch is planned: p = 1, at
/// the wall time t where the surplus X = D − t − L_max − R − (on-demand rest) reaches 0 on the
/// expected path, X falling by 1 − W_od/W' per hour of spot work and by c per preemption:
/// t = X₀/((1 − W_od/W')·(1 − λc) + λc), X₀ = D − L_max − R − W_od (negative: no fallback).
///   Expected cost = (1−p)·spot rate·min(T, H) + p·(spot rate·t + on-demand rate·(R + the rest
/// of the work on the on-demand offer)), T the spot run's expected wall: it errs high.
struct FallbackRun {
  double switch_probability = 0;
  double switch_at_hours = 0;   ///< expected switch time, given a switch; before D − R − L_max
  double on_demand_hours = 0;   ///< expected on-demand wall after a switch: restart + the rest
  double unswitched_hours = 0;  ///< expected spot wall of a run that is not switched
  double absorbed_preemptions = 0;  ///< k: preemptions spot takes before the switching one
  bool planned_switch = false;      ///< spot is too slow for the reserve: switch at a set time
  double expected_cost_dollars = 0;
  double expected_wall_hours = 0;
  double unbilled_wait_hours = 0;  ///< expected spot wall spent waiting for capacity
};

/// The two offers' hourly prices (dollars, all instances) and the on-demand offer's undisturbed
/// wall time for the whole job.
struct FallbackPrices {
  double spot_per_hour = 0;
  double on_demand_per_hour = 0;
  double on_demand_work_hours = 0;
};

/// The fallback for `spot` (the spot run of `work_hours` at `preemptions_per_hour`, modelled by
/// ModelSpotRun with `ft`), or nullopt when no switch can meet `deadline_hours` (a switch at
/// the first preemption would already be late): the fallback then saves nothing.
[[nodiscard]] std::optional<FallbackRun> ModelFallback(double work_hours, const SpotRun& spot,
                                                       double preemptions_per_hour,
                                                       const FaultTolerance& ft,
                                                       const FallbackPrices& prices,
                                                       double deadline_hours);

}  // namespace frugal::plan

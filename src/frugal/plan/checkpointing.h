#pragma once
// Running on spot capacity: how often to checkpoint, and what preemptions cost in time, in
// risk to the deadline, and with an on-demand fallback. All times are hours.

#include <optional>
#include <string>

#include "frugal/core/checkpoint_interval.h"

namespace frugal::plan {

/// What the job can do about interruptions (the spec's fault_tolerance section).
struct FaultTolerance {
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
  kNone,      ///< no preemptions expected (on-demand, reserved)
  kPeriodic,  ///< Young/Daly interval
  kOnNotice,  ///< save when the notice arrives; nothing lost but the restart
};

struct SpotRun {
  CheckpointStrategy strategy = CheckpointStrategy::kNone;
  double interval_hours = 0;  ///< periodic: work between checkpoints
  double expected_wall_hours = 0;
  double expected_preemptions = 0;
  double checkpoint_hours = 0;  ///< time spent writing checkpoints
  double restart_hours = 0;     ///< time spent restarting
  double lost_work_hours = 0;   ///< work redone after preemptions
  double deadline_miss_probability = 0;
  bool viable = true;  ///< false when preemptions come faster than restarts
  [[nodiscard]] double Inflation(double work_hours) const {
    return expected_wall_hours / work_hours;
  }
};

/// The expected run of `work_hours` of undisturbed work at `preemptions_per_hour` (the whole
/// job's rate: instances × per-instance rate). Checkpoint-on-notice when the job can and its
/// write fits in the notice; else periodic at the Daly interval. The deadline-miss probability
/// is P(N > n) for N ~ Poisson(rate × expected wall), n the preemptions the slack absorbs at
/// the expected cost of each (restart plus half an interval of lost work plus the checkpoint).
[[nodiscard]] SpotRun ModelSpotRun(double work_hours, double preemptions_per_hour,
                                   const FaultTolerance& ft, std::optional<double> deadline_hours);

/// P(N > n) for N ~ Poisson(mean).
[[nodiscard]] double PoissonTail(double mean, double n);

/// Spot with an on-demand fallback: run on spot and switch to on-demand at the last moment the
/// remaining work still fits before the deadline. The switch happens with the spot run's
/// deadline-miss probability p; at expected spot progress W/T per hour the switch time is
/// t* = (D − W)/(1 − W/T). Expected cost = (1−p)·spot cost + p·(spot rate·t* + on-demand
/// rate·(D − t*)), in dollars from hourly rates.
struct FallbackRun {
  double switch_probability = 0;
  double switch_at_hours = 0;
  double expected_cost_dollars = 0;
  double expected_wall_hours = 0;
};
[[nodiscard]] FallbackRun ModelFallback(double work_hours, const SpotRun& spot,
                                        double spot_rate_dollars, double on_demand_rate_dollars,
                                        double deadline_hours);

}  // namespace frugal::plan

#pragma once
// The job model. A job needs `compute` of work before `deadline`; entering spot or on-demand
// costs `changeover` with no progress (billed at the new price); a checkpoint costs
// `checkpoint_cost`; a preemption loses the work since the last checkpoint unless the notice
// leaves time to write one. The simulator and the optimum work on a grid of steps, so every
// duration is converted to whole steps once (StepJob) and the inner loops use plain ints.

#include <cstdint>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/spot/trace.h"

namespace frugal::spot {

/// What the job is doing during a step.
enum class Mode : uint8_t { kIdle = 0, kSpot = 1, kOnDemand = 2 };

const char* ModeName(Mode mode);

/// The job in user units.
struct JobSpec {
  Duration compute{};
  Duration deadline{};                ///< measured from the job's start
  Duration changeover{};              ///< launch + setup + restore
  Duration checkpoint_cost{};         ///< time to write one checkpoint; 0 = free and instant
  Duration checkpoint_every{};        ///< work between periodic checkpoints on spot; 0 = auto
  Duration notice{};                  ///< warning before a preemption
};

/// The job on the step grid. Units are steps of `step_seconds`.
struct StepJob {
  int step_seconds = 600;
  int compute = 0;           ///< work steps needed (rounded up)
  int deadline = 0;          ///< steps from start (rounded down)
  int changeover = 0;        ///< rounded up
  int checkpoint_cost = 0;   ///< rounded up
  int checkpoint_every = 0;  ///< work steps between periodic checkpoints (≥ 1 when cost > 0)
  int notice = 0;            ///< rounded down

  [[nodiscard]] double step_hours() const { return step_seconds / 3600.0; }
};

/// The step length for a trace tick and a job: the largest divisor of the tick that every
/// nonzero changeover/checkpoint duration is a multiple of, but never under 60 s (coarser
/// durations are then rounded as StepJob says).
[[nodiscard]] int ChooseStepSeconds(int tick_seconds, const JobSpec& job);

/// Converts to steps. `mean_lifetime_steps` is used for the automatic checkpoint interval
/// (Young's rule, sqrt(2 · cost · mean lifetime)). kBadInput on a zero compute or deadline.
[[nodiscard]] Result<StepJob> ToSteps(const JobSpec& job, int step_seconds,
                                      double mean_lifetime_steps);

/// A trace on the step grid for a given gang: availability and the cost of one step in each
/// mode (dollars, for the whole gang). Beyond the end, spot is unavailable and prices repeat
/// the last step's.
struct StepTrace {
  std::vector<uint8_t> available;
  std::vector<double> spot_cost;       ///< $ per step
  std::vector<double> on_demand_cost;  ///< $ per step

  [[nodiscard]] int steps() const { return static_cast<int>(available.size()); }
};

/// Pricing when the trace carries none: on-demand $/h per instance and the ratio
/// on-demand ÷ spot.
struct FlatPrices {
  double on_demand_per_hour = 3.06;
  double ratio = 3.0;
};

/// Expands `trace` onto steps of `step_seconds` (which must divide its tick) for a gang of
/// `gang`; per-tick prices from the trace win over `flat`.
[[nodiscard]] StepTrace ToStepTrace(const Trace& trace, int step_seconds, int gang,
                                    const FlatPrices& flat);

/// Mean length, in steps, of the available runs in available[begin, end) (runs cut by the
/// window's edges count as they are). `fallback` when there is none.
[[nodiscard]] double MeanLifetimeSteps(const std::vector<uint8_t>& available, int begin, int end,
                                       double fallback);

}  // namespace frugal::spot

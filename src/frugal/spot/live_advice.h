#pragma once
// The deadline policy used live: a supervised run asks, after a preemption, whether to wait
// for spot capacity, resume on spot, or move to on-demand. It is the same FrugalPolicy the
// simulator runs, fed the run's own history (how long spot lasted, how long each wait for
// capacity took) instead of a trace, and asked about the state the run is in now.

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/spot/job.h"

namespace frugal::spot {

/// The job as the run was configured.
struct LiveJob {
  Duration compute{};                             ///< work the job needs in all
  Duration deadline{};                            ///< from the run's first start
  Duration changeover = std::chrono::minutes(5);  ///< launch + setup + restore of a new instance
  Duration checkpoint_cost{};
  double price_ratio = 3;  ///< on-demand ÷ spot
  /// The market before any of it is seen (0: the policy's defaults, 2 h and 1 h).
  Duration prior_lifetime{};
  Duration prior_outage{};
};

/// A stretch of the run's history: spot lasted `length` (available), or the run waited that
/// long for spot capacity (not available). Oldest first; the last one may still be going on.
struct AvailabilitySpan {
  bool available = false;
  Duration length{};
};

/// Where the run stands now.
struct LiveState {
  Duration elapsed{};       ///< since the run's first start
  Duration work_done{};     ///< work safe in committed checkpoints
  Mode mode = Mode::kIdle;  ///< idle right after a preemption
  bool spot_available = false;
};

struct LiveAdvice {
  Mode mode = Mode::kOnDemand;  ///< idle = wait for spot capacity
  Duration spare{};             ///< time to spare beyond finishing on on-demand from now
  Duration work_left{};
  bool planned = false;   ///< from the planner (false: the fallback rules)
  int step_seconds = 60;  ///< the grid the policy decided on
};

/// "wait_for_spot", "spot" or "on_demand": what the advice asks of the scheduler.
[[nodiscard]] std::string AdviceName(Mode mode);
/// The mode AdviceName spells `name`; none for any other word (a queue decision's other verdicts).
[[nodiscard]] std::optional<Mode> ParseAdvice(std::string_view name);

/// Asks FrugalPolicy. kBadInput when the compute or deadline is not positive. The plan (the
/// planner's solved table) depends only on the job's shape, its spot history on the policy's
/// grid and the price ratio, not on its state: the last few plans are kept, so jobs of one
/// shape that saw the same history (a burst of jobs preempted together, one job asked again
/// before anything changed) share one solve. The advice is the same either way.
[[nodiscard]] Result<LiveAdvice> AdviseLive(const LiveJob& job,
                                            std::span<const AvailabilitySpan> history,
                                            const LiveState& state);

/// Plans solved by AdviseLive in this process so far (kept plans reused are not counted).
[[nodiscard]] int64_t LivePlansSolved();

}  // namespace frugal::spot

#pragma once
// Deadline advice after a preemption: the run's journal (this attempt and earlier ones) tells
// how long spot lasted in each segment, how long each wait for capacity took and how much
// work is safe in committed checkpoints; the spot area's deadline policy (spot/live_advice.h)
// turns that into "wait for spot", "spot" or "on_demand". The supervisor records the answer
// as an event and, for a requeue (exit 75), states the tier the scheduler should ask for.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/tier.h"
#include "frugal/run/recorder.h"
#include "frugal/spot/live_advice.h"

namespace frugal::run {

/// The run's deadline, as `frugal run --deadline --compute` configure it.
using DeadlineAdviceConfig = spot::LiveJob;

/// What the journal says, for the policy.
struct SpotHistory {
  std::optional<WallTime> first_start;
  std::vector<spot::AvailabilitySpan> spans;
  Duration work_done{};
  bool waiting_for_spot = false;  ///< the last segment ended in a preemption
};

/// Reads the history out of journal records (ReadJournal), up to `now`. Segments on spot
/// count as spot available for their length; the time from a preemption to the next segment
/// (or to `now`) as spot unavailable. Work done is, per segment, the time from its first
/// progress to its last committed checkpoint.
[[nodiscard]] SpotHistory SpotHistoryOf(const std::vector<nlohmann::json>& records, WallTime now);

struct DeadlineAdvice {
  spot::LiveAdvice advice;
  CapacityTier tier = CapacityTier::kSpot;  ///< what to requeue on: spot (wait) or on demand
  std::string detail;                       ///< one line for the event and the user
};

/// The advice now. kBadInput when the configuration has no positive compute or deadline.
[[nodiscard]] Result<DeadlineAdvice> AdviseAfterPreemption(
    const DeadlineAdviceConfig& config, const std::vector<nlohmann::json>& records, WallTime now);

}  // namespace frugal::run

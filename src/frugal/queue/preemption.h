#pragma once
// What the live queue does when a job's run is preempted: its supervisor (`frugal run`)
// checkpointed, stopped the command and exited with the requeue code, and the job waits again
// to resume from its checkpoint as the same ledger run. On a spot pool the spot deadline policy
// (spot/live_advice.h, the policy `queue simulate` runs) decides from the job's own history on
// spot whether to wait for spot to return (the job is then not offered on-demand pools, and
// the policy is asked again before half its time to spare is gone, at least hourly) or to move to
// on-demand (spot is no longer offered). A job without a deadline waits for spot for up to a day.
// The decision is a queue decision.

#include <cstdint>
#include <optional>
#include <string>

#include "frugal/core/error.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/job.h"

namespace frugal::queue {

/// Share of the job's work still to do, by its spot history's estimate (1 when none is done).
[[nodiscard]] double WorkLeft(const Capacity& capacity, const JobRequest& request);

/// Job `job_id` (`request`), started on `pool` at `started`, was preempted at `now`. Brings the
/// job's spot history up to date in `request` (work done is estimated from the time it ran,
/// changeover taken off; a job that does not checkpoint keeps none) and returns the decision:
/// verdict `wait_for_spot` or `move_to_on_demand` on a spot pool, `requeue` elsewhere.
[[nodiscard]] ledger::QueueDecisionRow AfterPreemption(const Capacity& capacity, int64_t job_id,
                                                       JobRequest& request, const Pool& pool,
                                                       Seconds started, Seconds now);

/// A job waiting for spot to return whose recheck time has come: asks the policy again. Returns
/// the decision when it moves the job to on-demand; nullopt when it still waits (the next
/// recheck is then set again). `request` is updated either way.
[[nodiscard]] std::optional<ledger::QueueDecisionRow> RecheckSpotWait(const Capacity& capacity,
                                                                      int64_t job_id,
                                                                      JobRequest& request,
                                                                      Seconds now);

/// The ledger side of AfterPreemption: moves job `row` (running or starting) back to waiting
/// with its updated request and records the decision. Returns a line for the log, or nullopt
/// when another scheduler moved the job first.
[[nodiscard]] Result<std::optional<std::string>> RecordPreemption(ledger::Connection& db,
                                                                  const Capacity& capacity,
                                                                  ledger::QueueJobRow& row,
                                                                  JobRequest& request, Seconds now);

/// The ledger side of RecheckSpotWait for a waiting job whose recheck time has come: stores the
/// updated request, and the decision when the job moves. A line for the log when it moves.
[[nodiscard]] Result<std::optional<std::string>> RecordSpotRecheck(ledger::Connection& db,
                                                                   const Capacity& capacity,
                                                                   ledger::QueueJobRow& row,
                                                                   JobRequest& request,
                                                                   Seconds now);

}  // namespace frugal::queue

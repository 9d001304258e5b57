#pragma once
// What the queue does after a preemption on a spot pool: it asks the spot deadline policy
// (spot/live_advice.h, the FrugalPolicy `plan` and `run` use) whether to wait for spot or to
// move the job to an on-demand pool, fed the job's own history from its ledger run (how long
// each spot segment lasted, how long it waited for capacity, the work safe in committed
// checkpoints). The queue then acts on the answer (queue_service.cc).

#include <string>

#include "frugal/core/error.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/job.h"
#include "frugal/spot/job.h"

namespace frugal::queue {

struct SpotAnswer {
  bool move = false;  ///< move to `pool` (on-demand); false: wait for spot where it is
  int pool = -1;      ///< the on-demand pool; -1 when none fits
  /// What the spot policy asks: wait for spot, stay on spot, or go on demand
  /// (spot::AdviceName spells it in decisions and the log).
  spot::Mode advice = spot::Mode::kIdle;
  std::string reason;   ///< one line for the decision and the log
  double cost_usd = 0;  ///< expected cost of the work left on `pool`
};

/// Whether the job is back on spot (Slurm restarted it before the queue looked) or waits.
enum class SpotNow { kWaiting, kRunningAgain };

/// The answer for job `row` (on spot pool `row.pool`, preempted `restarts` times) at `now`.
/// A job without a deadline waits for spot; so does one no on-demand pool fits.
[[nodiscard]] Result<SpotAnswer> DecideAfterPreemption(ledger::Connection& db,
                                                       const Capacity& capacity,
                                                       const ledger::QueueJobRow& row,
                                                       const JobRequest& request, int restarts,
                                                       SpotNow spot_now, Seconds now);

}  // namespace frugal::queue

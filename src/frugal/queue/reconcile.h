#pragma once
// The first part of a scheduling pass (internal to queue_service.cc): catch the ledger up with
// the executors. A started job whose executor knows it is running; one that ended takes its
// exit status; a start cut short goes back to waiting. A job Slurm requeued on a spot pool is a
// preemption: the spot deadline policy (spot_move.h) decides whether it waits for spot or
// moves to an on-demand pool, and a move is claimed here (the job is `starting` on its new
// pool) and carried out by MoveJob after the pass's lock is released.

#include <cstdint>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/executor.h"
#include "frugal/queue/job.h"
#include "frugal/queue/queue_service.h"

namespace frugal::queue {

/// A move claimed in the locked part of a pass, carried out after it.
struct PlannedMove {
  size_t job = 0;               ///< index into the pass's jobs
  ledger::QueueJobRow old_row;  ///< the job as it ran on the spot pool (its Slurm job id)
  int pool = -1;                ///< the on-demand pool it moves to
};

/// Catches up with the executors (see above). Status answers the executor cannot give now
/// (a controller down) leave the job as it is.
[[nodiscard]] Result<void> Reconcile(ledger::Connection& db, const Capacity& capacity,
                                     Executor& executor, std::vector<LoadedJob>& jobs, Seconds now,
                                     PassReport& report, std::vector<PlannedMove>& moves);

/// Carries out a move: stops the job on its spot pool (it checkpoints), waits for it to end
/// (a minute at most), then starts it on the on-demand pool as the same ledger run. A failed
/// start leaves the job waiting, with the reason.
[[nodiscard]] Result<void> MoveJob(ledger::Connection& db, const Capacity& capacity,
                                   Executor& executor, LoadedJob& job, const PlannedMove& move,
                                   Seconds now, PassReport& report);

}  // namespace frugal::queue

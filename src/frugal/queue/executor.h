#pragma once
// Executors: what starts a queued job on a pool, finds out how it is doing, and stops it.
// Two kinds, one per pool kind: the local executor (supervised `frugal run` processes on this
// machine) and the Slurm executor (`frugal run` inside a Slurm batch job). Both run the job as
// ledger run `row.run_id`, so a job started again (a Slurm requeue, a move to another pool)
// resumes from its newest committed checkpoint as the same run.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "frugal/core/error.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/slurm_client.h"
#include "frugal/queue/week_time.h"

namespace frugal::queue {

/// Where a started job is, as its executor sees it.
enum class JobPhase {
  kUnknown,  ///< the executor knows nothing of it (never began, or gone without a trace)
  kPending,  ///< accepted, waiting for its start (Slurm: PENDING, REQUEUED, a --begin time)
  kRunning,
  kEnded,
};

struct JobStatus {
  JobPhase phase = JobPhase::kUnknown;
  std::optional<int64_t> handle;   ///< the process id, or the Slurm job id, when found
  std::optional<int> exit_status;  ///< kEnded: its exit status (nullopt: not known)
  int restarts = 0;                ///< times the executor started it again (Slurm's Restarts)
  bool preempted = false;          ///< kEnded: preempted and not put back in the queue
  std::string detail;              ///< the executor's words: "slurm job 12 PENDING (BeginTime)"
};

/// Starts queued jobs and reports on them.
class Executor {
 public:
  virtual ~Executor() = default;
  /// Starts job `row` on `pool` with `devices` (CUDA_VISIBLE_DEVICES; "" for CPU slots),
  /// `delay_seconds` from now (0: at once). Returns its handle (process or Slurm job id).
  [[nodiscard]] virtual Result<int64_t> Start(const ledger::QueueJobRow& row, const Pool& pool,
                                              const std::string& devices,
                                              Seconds delay_seconds) = 0;
  /// How job `row` is doing. kUnavailable when the executor cannot tell now (a Slurm
  /// controller that does not answer): the caller changes nothing.
  [[nodiscard]] virtual Result<JobStatus> Status(const ledger::QueueJobRow& row) = 0;
  /// Stops the job (cancel, or a move to another pool): it gets the checkpoint notice first.
  /// A job stopped this way is not put back in the executor's queue.
  virtual void Stop(const ledger::QueueJobRow& row) = 0;
};

/// This machine: each job is `frugal run --run-id RUN` over its command, in a session of its
/// own (it outlives the scheduler), under `sh`, which writes the exit status to
/// `<state_dir>/ID.exit` (temp and rename) when it ends. GPUs by CUDA_VISIBLE_DEVICES. A start
/// in the future is not this executor's to wait for: the delay is ignored.
[[nodiscard]] std::unique_ptr<Executor> MakeLocalExecutor(std::string frugal_binary,
                                                          std::string db_flag,
                                                          std::filesystem::path state_dir);

/// A Slurm cluster: each job is a batch job named `frugal-queue-ID` on the pool's partition
/// (`sbatch --partition --gres --requeue --begin --signal`), whose script (written to
/// `<state_dir>/ID.sbatch`) runs `frugal run --run-id RUN` over the command and forwards the
/// checkpoint notice to it. State from `scontrol show job` and `squeue`; `scancel` to stop.
/// `<state_dir>` must be on storage the nodes share, as must the run's checkpoints.
[[nodiscard]] std::unique_ptr<Executor> MakeSlurmExecutor(std::unique_ptr<SlurmClient> client,
                                                          std::string frugal_binary,
                                                          std::string db_flag,
                                                          std::filesystem::path state_dir);

/// Each pool's jobs to the executor of its kind: `slurm` for Slurm pools, `local` for the rest.
/// `capacity` is borrowed and outlives the result.
[[nodiscard]] std::unique_ptr<Executor> MakePoolExecutor(const Capacity& capacity,
                                                         std::unique_ptr<Executor> local,
                                                         std::unique_ptr<Executor> slurm);

/// "slurm" for a Slurm pool, "local" for the rest: what JobRequest::executor records.
[[nodiscard]] std::string ExecutorKind(const Pool& pool);

/// The `frugal run` argument list a job runs under on `pool` (both executors), from RunArgs
/// (run_args.h): `BINARY [--db DB] run --run-id RUN --price P/h --tier TIER [--gpu MODEL
/// --gpus N] --tag queue_job=ID --tag queue_pool=POOL ... -- COMMAND`.
[[nodiscard]] Result<std::vector<std::string>> FrugalRunArgv(const ledger::QueueJobRow& row,
                                                             const Pool& pool,
                                                             const std::string& binary,
                                                             const std::string& db_flag);

}  // namespace frugal::queue

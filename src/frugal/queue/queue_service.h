#pragma once
// The live queue: jobs submitted to the ledger, and the scheduling loop that places them
// through the same pass `queue simulate` runs and starts them with an executor.
//
// A job's life: waiting (or held) → starting → running → succeeded | failed, or cancelled
// from waiting, held or running. Every move is one conditional UPDATE in the ledger
// (ledger/queue_jobs.h), so a job is started by one scheduler only, and a scheduler killed at
// any point loses nothing: on the next pass a `starting` job whose process exists is running,
// one whose process does not is waiting again, and a `running` job whose process has ended
// takes the exit status its wrapper wrote. On a Slurm pool, "its process" is its batch job,
// found by the id sbatch gave (kept in the row's pid) or by its name `frugal-queue-ID`.

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/executor.h"
#include "frugal/queue/job.h"
#include "frugal/queue/scheduler.h"

namespace frugal::queue {

/// The job spec `frugal queue submit` reads (apiVersion frugal/v1, kind QueueJob): the keys of
/// a workload job (workload.h) without at/count/every, with deadline and not_before as a
/// duration from submission or a UTC time, a `budget` in dollars and an optional `command`
/// list. kBadInput names file:line:column.
[[nodiscard]] Result<JobRequest> LoadQueueJobSpec(const std::filesystem::path& path,
                                                  const Capacity& capacity, Seconds now,
                                                  std::vector<std::string>* command);

/// "36h" (from `now`) or "2026-12-01T08:00Z". kBadInput naming `flag` otherwise.
[[nodiscard]] Result<Seconds> ParseWhen(const std::string& flag, const std::string& text,
                                        Seconds now);

[[nodiscard]] std::string RequestToJson(const JobRequest& job);
[[nodiscard]] Result<JobRequest> RequestFromJson(const std::string& text);

struct Submitted {
  int64_t id = 0;
  Placement placement;  ///< what the scheduler would do with it now
};

/// Records the job as waiting, after a trial placement: kBudget with the arithmetic when its
/// team budget (spend this period: expected costs of the period's queue jobs) would be
/// exceeded and the job carries no override reason.
[[nodiscard]] Result<Submitted> SubmitJob(ledger::Connection& db, const Capacity& capacity,
                                          const JobRequest& job,
                                          const std::vector<std::string>& command, Seconds now);

struct PassReport {
  int started = 0;
  int finished = 0;
  int waiting = 0;
  int running = 0;
  std::vector<std::string> lines;  ///< one per decision that changed, for the log
};

/// A job as a pass sees it: its row and its stored request parsed.
struct LoadedJob {
  ledger::QueueJobRow row;
  JobRequest request;
};

/// The jobs' rows and stored requests parsed, kept between the passes of one scheduling loop:
/// a pass reads every job's version (its id and updated_ms, which grows with every change)
/// and re-reads in full only the rows that changed, parsing a request again only when its
/// stored text changed (reading and parsing every job was most of a pass over 10,000
/// waiting jobs). The rows are lent to a pass, not copied for it, and given back when it
/// succeeds: a row the pass changed was changed in the ledger first, so its version there has
/// moved on and the next Sync reads it again; after a pass that failed (its changes may have
/// been rolled back) the next Sync reads every row. One per loop; not shared between threads.
class RequestCache {
 public:
  using Entry = LoadedJob;
  [[nodiscard]] Result<JobRequest> Get(int64_t id, const std::string& text);
  /// Brings the kept rows up to the ledger's: new and changed rows read, gone ones dropped.
  [[nodiscard]] Result<void> Sync(ledger::Connection& db);
  /// The rows as of the last Sync, by increasing id (empty while they are lent).
  [[nodiscard]] const std::vector<Entry>& rows() const { return rows_; }
  /// The kept row of job `id`, or nullptr.
  [[nodiscard]] const Entry* Find(int64_t id) const;
  /// Hands the rows to one pass; the cache keeps none until Return.
  [[nodiscard]] std::vector<Entry> Lend() { return std::move(rows_); }
  /// Takes back what Lend handed out, as the pass left it (same jobs, same order).
  void Return(std::vector<Entry> rows) { rows_ = std::move(rows); }

 private:
  std::unordered_map<int64_t, std::pair<std::string, JobRequest>> entries_;
  std::vector<Entry> rows_;  ///< by increasing id
};

/// One pass of `frugal queue run`: catch up with the executors (a Slurm requeue on a spot pool
/// goes to the spot deadline policy, which may move the job to on-demand), place the waiting
/// jobs, record the decisions that changed, start what is due now (on Slurm pools, deferred
/// starts too, held by `sbatch --begin`), then carry out the moves. `cache` (optional) keeps parsed
/// requests for the next pass.
[[nodiscard]] Result<PassReport> RunPass(ledger::Connection& db, const Capacity& capacity,
                                         Executor& executor, Seconds now,
                                         RequestCache* cache = nullptr);

/// cancel / hold / release: kBadInput when the job does not exist or its state does not
/// allow it. Cancelling a running job stops its process group.
enum class Steer { kCancel, kHold, kRelease };
[[nodiscard]] Result<ledger::QueueJobRow> SteerJob(ledger::Connection& db, Executor& executor,
                                                   int64_t id, Steer steer, Seconds now);

}  // namespace frugal::queue

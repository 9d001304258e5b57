#pragma once
// The job queue's rows in the ledger (schema version 7): queue_jobs, one per submitted job,
// and queue_decisions, every placement decision made for them. The queue layer owns what the
// columns mean; the ledger stores them, and moves a job between states atomically so that two
// schedulers on one ledger never both start it. A job's state is a QueueJobState: its name is
// what the state column holds, parsed once where a row is read.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/tier.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {

enum class QueueJobState { kWaiting, kHeld, kStarting, kRunning, kSucceeded, kFailed, kCancelled };
/// "waiting", "held", "starting", "running", "succeeded", "failed", "cancelled".
[[nodiscard]] std::string_view QueueJobStateName(QueueJobState state);
/// The names above, exactly; kBadInput naming them (with a suggestion) otherwise.
[[nodiscard]] Result<QueueJobState> ParseQueueJobState(std::string_view text);

struct QueueJobRow {
  int64_t id = 0;
  std::string name;
  QueueJobState state = QueueJobState::kWaiting;
  std::string command;  ///< JSON array of argv
  std::string request;  ///< JSON: the job as the scheduler sees it
  int64_t submitted_ms = 0;
  int64_t updated_ms = 0;
  std::string pool;
  std::string devices;  ///< CUDA_VISIBLE_DEVICES given, or "" (CPU slots)
  std::optional<int64_t> pid;
  std::string run_id;
  std::optional<int64_t> started_ms;
  std::optional<int64_t> finished_ms;
  std::optional<int64_t> exit_code;
  std::optional<int64_t> expected_cost_micros;
  std::string reason;  ///< the last decision's explanation
};

struct QueueDecisionRow {
  int64_t job_id = 0;
  int64_t time_ms = 0;
  std::string verdict;
  std::string pool;
  std::optional<int64_t> start_ms;
  std::optional<int64_t> finish_ms;
  std::optional<int64_t> cost_micros;
  std::optional<int64_t> on_demand_micros;
  std::string reason;
};

/// Inserts a job (its id is assigned); returns the id.
[[nodiscard]] Result<int64_t> InsertQueueJob(Connection& db, const QueueJobRow& job);
/// Jobs, oldest first; all when `states` is empty.
[[nodiscard]] Result<std::vector<QueueJobRow>> ListQueueJobs(Connection& db,
                                                             std::span<const QueueJobState> states);
/// A job's id and when its row last changed (updated_ms grows with every move, by a
/// millisecond at least, so an unchanged value means an unchanged row).
struct QueueJobVersion {
  int64_t id = 0;
  int64_t updated_ms = 0;
};
/// Every job's version, by id: what a reader that keeps rows compares to re-read only the
/// rows that changed.
[[nodiscard]] Result<std::vector<QueueJobVersion>> ListQueueJobVersions(Connection& db);
/// The jobs with these ids (those that exist), by id.
[[nodiscard]] Result<std::vector<QueueJobRow>> ListQueueJobsById(Connection& db,
                                                                 std::span<const int64_t> ids);
/// One job; nullopt when there is none with that id.
[[nodiscard]] Result<std::optional<QueueJobRow>> GetQueueJob(Connection& db, int64_t id);

/// Moves job `id` to `to` only if it is in one of `from` (one statement, so of two callers
/// only one wins), writing the placement columns of `fields` (pool, devices, pid, run_id,
/// started_ms, finished_ms, exit_code, expected_cost_micros, reason, and request: the queue
/// keeps what it learns of a job, its spot history, there) that are set, and updated_ms:
/// `now_ms`, or one more than it was when that is not later. Returns whether it moved.
[[nodiscard]] Result<bool> MoveQueueJob(Connection& db, int64_t id,
                                        std::span<const QueueJobState> from, QueueJobState to,
                                        const QueueJobRow& fields, int64_t now_ms);

[[nodiscard]] Result<void> InsertQueueDecisions(Connection& db,
                                                std::span<const QueueDecisionRow> decisions);
/// A job's decisions, oldest first.
[[nodiscard]] Result<std::vector<QueueDecisionRow>> ListQueueDecisions(Connection& db,
                                                                       int64_t job_id);

/// The newest decision of every job that has one, by job id (one query, for listings).
[[nodiscard]] Result<std::vector<QueueDecisionRow>> ListLatestQueueDecisions(Connection& db);
/// One segment of a queue job's run, for the spot policy: when it ran, on which tier, how it
/// ended ("" while open) and when its last checkpoint was committed.
struct RunSpanRow {
  int64_t start_ms = 0;
  std::optional<int64_t> end_ms;
  CapacityTier tier = CapacityTier::kOnDemand;
  std::string end_reason;
  std::optional<int64_t> last_checkpoint_ms;
};

/// The segments of the run named `run_name`, oldest first; empty when it has not begun.
[[nodiscard]] Result<std::vector<RunSpanRow>> RunSpansOf(Connection& db, std::string_view run_name);

}  // namespace frugal::ledger

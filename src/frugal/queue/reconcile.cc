#include "frugal/queue/reconcile.h"

#include <fmt/format.h>

#include <thread>

#include "frugal/queue/preemption.h"
#include "frugal/queue/spot_move.h"
#include "frugal/spot/live_advice.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobRow;
using ledger::QueueJobState;

/// A start is taken for cut short only after this long (another scheduler may be starting it).
constexpr int64_t kStartGraceMs = 60'000;

/// What a status of the `frugal run` wrapping a job means (its codes are frugal's, not the
/// command's), as " (...)"; "" for success and codes it does not give.
std::string RunStatusMeaning(int status) {
  switch (status) {
    case static_cast<int>(ErrorCode::kFailed):
      return " (the command failed; its own exit code is in the job's log)";
    case static_cast<int>(ErrorCode::kBadInput):
      return " (frugal run refused the command or its options; see the job's log)";
    case static_cast<int>(ErrorCode::kBudget):
      return " (a budget cap stopped it or refused its start)";
    case static_cast<int>(ErrorCode::kUnavailable):
      return " (the ledger or another system it needs was unavailable)";
    case static_cast<int>(ErrorCode::kInterrupted):
      return " (interrupted)";
    default:
      return "";
  }
}

/// Preemptions of the job on its current pool the queue has already decided on.
Result<int> DecidedPreemptions(ledger::Connection& db, const QueueJobRow& row) {
  int seen = 0;
  for (const ledger::QueueDecisionRow& d : FRUGAL_TRY(ledger::ListQueueDecisions(db, row.id))) {
    const std::optional<spot::Mode> advice = spot::ParseAdvice(d.verdict);
    if (advice && *advice != spot::Mode::kOnDemand && d.pool == row.pool &&
        d.time_ms >= row.started_ms.value_or(0)) {
      ++seen;
    }
  }
  return seen;
}

/// Whether a "wait for spot" answer is recorded (the first answer after a preemption) or only
/// a move (the answers of later passes while the job waits in Slurm).
enum class WaitAnswer { kRecord, kSkip };

/// A requeue on a spot pool: record the policy's answer; claim a move when it says on-demand.
Result<void> OnPreemption(ledger::Connection& db, const Capacity& capacity, LoadedJob& j,
                          size_t index, const JobStatus& status, Seconds now, WaitAnswer wait,
                          PassReport& report, std::vector<PlannedMove>& moves) {
  const SpotAnswer answer = FRUGAL_TRY(DecideAfterPreemption(
      db, capacity, j.row, j.request, status.restarts,
      status.phase == JobPhase::kRunning ? SpotNow::kRunningAgain : SpotNow::kWaiting, now));
  if (!answer.move && wait == WaitAnswer::kSkip) return {};
  ledger::QueueDecisionRow d;
  d.job_id = j.row.id;
  d.time_ms = now * 1000;
  d.verdict = answer.move ? "move_to_on_demand" : spot::AdviceName(answer.advice);
  d.pool = answer.move ? capacity.pools[static_cast<size_t>(answer.pool)].name : j.row.pool;
  if (answer.move) d.cost_micros = Money::FromDollars(answer.cost_usd).micros();
  d.reason = answer.reason;
  report.lines.push_back(fmt::format("job {} ({}) {}", j.row.id, j.row.name, answer.reason));
  if (answer.move) {
    QueueJobRow f;
    f.pool = d.pool;
    f.pid = 0;  // the spot job's id is in the move; the on-demand one is not known yet
    f.started_ms = now * 1000;
    f.expected_cost_micros = d.cost_micros;
    f.reason = answer.reason;
    JobRequest placed = j.request;
    placed.executor = ExecutorKind(capacity.pools[static_cast<size_t>(answer.pool)]);
    f.request = RequestToJson(placed);
    const std::vector<QueueJobState> running = {QueueJobState::kRunning};
    if (FRUGAL_TRY(
            ledger::MoveQueueJob(db, j.row.id, running, QueueJobState::kStarting, f, now * 1000))) {
      moves.push_back({index, j.row, answer.pool});
      j.request.executor = placed.executor;
      j.row.request = f.request;
      j.row.state = QueueJobState::kStarting;
      j.row.pool = f.pool;
      j.row.pid = 0;
    }
  } else {
    QueueJobRow f;
    f.reason = answer.reason;
    const std::vector<QueueJobState> running = {QueueJobState::kRunning};
    FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, running, QueueJobState::kRunning, f, now * 1000));
  }
  return ledger::InsertQueueDecisions(db, std::vector<ledger::QueueDecisionRow>{d});
}

/// The executor knows the job and it has not ended.
Result<void> StillThere(ledger::Connection& db, const Capacity& capacity, LoadedJob& j,
                        size_t index, const JobStatus& status, Seconds now, PassReport& report,
                        std::vector<PlannedMove>& moves) {
  // A start or a move under way (this scheduler's cut short, or another's in progress) is
  // left alone for a while: whoever claimed it records the handle.
  if (j.row.state == QueueJobState::kStarting && now * 1000 - j.row.updated_ms < kStartGraceMs) {
    ++report.running;
    return {};
  }
  const std::vector<QueueJobState> from = {j.row.state};
  QueueJobRow f;
  if (status.handle && status.handle != j.row.pid) f.pid = status.handle;
  if (j.row.state == QueueJobState::kStarting || f.pid) {
    if (FRUGAL_TRY(
            ledger::MoveQueueJob(db, j.row.id, from, QueueJobState::kRunning, f, now * 1000))) {
      j.row.state = QueueJobState::kRunning;
      if (f.pid) j.row.pid = f.pid;
    }
  }
  ++report.running;
  const Pool* pool = capacity.FindPool(j.row.pool);
  if (pool == nullptr || pool->tier != CapacityTier::kSpot || pool->kind != PoolKind::kSlurm ||
      status.restarts == 0 || j.row.state != QueueJobState::kRunning) {
    return {};
  }
  // A new preemption gets an answer on record; while the job then waits in Slurm for spot,
  // each pass asks again (its spare time shrinks) and acts once the answer is on-demand.
  if (status.restarts > FRUGAL_TRY(DecidedPreemptions(db, j.row))) {
    return OnPreemption(db, capacity, j, index, status, now, WaitAnswer::kRecord, report, moves);
  }
  if (status.phase != JobPhase::kPending) return {};
  return OnPreemption(db, capacity, j, index, status, now, WaitAnswer::kSkip, report, moves);
}

/// The job ended, or the executor has no trace of it.
Result<void> Gone(ledger::Connection& db, const Capacity& capacity, LoadedJob& j,
                  const JobStatus& status, Seconds now, PassReport& report) {
  const int64_t now_ms = now * 1000;
  const std::vector<QueueJobState> from = {j.row.state};
  QueueJobRow f;
  const bool ended = status.phase == JobPhase::kEnded;
  if (!ended && j.row.state == QueueJobState::kStarting &&
      now_ms - j.row.updated_ms < kStartGraceMs)
    return {};
  // `frugal run` exits kPreempted when a preemption only it heard of stopped the job (a cloud
  // notice, a signal): the job waits again, to resume from its checkpoint wherever the spot
  // policy sends it (preemption.h).
  if (ended &&
      (status.preempted || status.exit_status == static_cast<int>(ErrorCode::kPreempted))) {
    const std::optional<std::string> line =
        FRUGAL_TRY(RecordPreemption(db, capacity, j.row, j.request, now));
    if (line) report.lines.push_back(*line);
    return {};
  }
  if (!ended && j.row.state == QueueJobState::kStarting) {
    f.reason = "its start was interrupted before the process began: waiting again";
    if (FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, from, QueueJobState::kWaiting, f, now_ms))) {
      j.row.state = QueueJobState::kWaiting;
      report.lines.push_back(fmt::format("job {} ({}) {}", j.row.id, j.row.name, f.reason));
    }
    return {};
  }
  const std::optional<int> exit = status.exit_status;
  f.finished_ms = now_ms;
  f.exit_code = exit.value_or(-1);
  f.reason = exit ? fmt::format("exited with status {}{}", *exit, RunStatusMeaning(*exit))
                  : "its process ended without recording an exit status";
  if (!status.detail.empty()) f.reason += " (" + status.detail + ")";
  const QueueJobState to = exit && *exit == 0 ? QueueJobState::kSucceeded : QueueJobState::kFailed;
  if (FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, from, to, f, now_ms))) {
    j.row.state = to;
    ++report.finished;
    report.lines.push_back(fmt::format("job {} ({}) {}: {}", j.row.id, j.row.name,
                                       ledger::QueueJobStateName(to), f.reason));
  }
  return {};
}

}  // namespace

Result<void> Reconcile(ledger::Connection& db, const Capacity& capacity, Executor& executor,
                       std::vector<LoadedJob>& jobs, Seconds now, PassReport& report,
                       std::vector<PlannedMove>& moves) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    LoadedJob& j = jobs[i];
    if (j.row.state != QueueJobState::kStarting && j.row.state != QueueJobState::kRunning) continue;
    const Result<JobStatus> status = executor.Status(j.row);
    if (!status) {
      ++report.running;
      report.lines.push_back(fmt::format("job {} ({}): cannot tell how it is: {}", j.row.id,
                                         j.row.name, status.error().message));
      continue;
    }
    if (status->phase == JobPhase::kPending || status->phase == JobPhase::kRunning) {
      FRUGAL_TRY(StillThere(db, capacity, j, i, *status, now, report, moves));
    } else {
      FRUGAL_TRY(Gone(db, capacity, j, *status, now, report));
    }
  }
  return {};
}

Result<void> MoveJob(ledger::Connection& db, const Capacity& capacity, Executor& executor,
                     LoadedJob& job, const PlannedMove& move, Seconds now, PassReport& report) {
  executor.Stop(move.old_row);
  // The new start resumes the same run: the spot job's supervisor must be gone first.
  for (int i = 0; i < 240; ++i) {
    const Result<JobStatus> s = executor.Status(move.old_row);
    if (s && s->phase != JobPhase::kPending && s->phase != JobPhase::kRunning) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
  const Pool& pool = capacity.pools[static_cast<size_t>(move.pool)];
  const std::vector<QueueJobState> starting = {QueueJobState::kStarting};
  const Result<int64_t> started = executor.Start(job.row, pool, "", 0);
  QueueJobRow f;
  if (!started) {
    f.reason = "could not start on " + pool.name + ": " + started.error().message;
    FRUGAL_TRY(
        ledger::MoveQueueJob(db, job.row.id, starting, QueueJobState::kWaiting, f, now * 1000));
    job.row.state = QueueJobState::kWaiting;
    report.lines.push_back(fmt::format("job {} ({}) {}", job.row.id, job.row.name, f.reason));
    return {};
  }
  f.pid = *started;
  if (FRUGAL_TRY(
          ledger::MoveQueueJob(db, job.row.id, starting, QueueJobState::kRunning, f, now * 1000))) {
    job.row.state = QueueJobState::kRunning;
    job.row.pid = *started;
  }
  ++report.started;
  report.lines.push_back(fmt::format("job {} ({}) moved to {} as run {} (handle {})", job.row.id,
                                     job.row.name, pool.name, job.row.run_id, *started));
  return {};
}

}  // namespace frugal::queue

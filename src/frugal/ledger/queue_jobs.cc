#include "frugal/ledger/queue_jobs.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>

#include "frugal/core/text.h"

namespace frugal::ledger {
namespace {

constexpr std::array<std::pair<QueueJobState, std::string_view>, 7> kStateNames{{
    {QueueJobState::kWaiting, "waiting"},
    {QueueJobState::kHeld, "held"},
    {QueueJobState::kStarting, "starting"},
    {QueueJobState::kRunning, "running"},
    {QueueJobState::kSucceeded, "succeeded"},
    {QueueJobState::kFailed, "failed"},
    {QueueJobState::kCancelled, "cancelled"},
}};

constexpr const char* kJobColumns =
    "id, name, state, command, request, submitted_ms, updated_ms, pool, devices, pid, run_id, "
    "started_ms, finished_ms, exit_code, expected_cost_micros, reason";

/// A row read back; a state the queue does not know is an error naming the job (a ledger
/// written by something else), never a job in no state.
Result<QueueJobRow> JobFromRow(const Connection& db, const Row& r) {
  QueueJobRow j;
  j.id = AsInt(r[0]);
  j.name = AsText(r[1]);
  const Result<QueueJobState> state = ParseQueueJobState(AsText(r[2]));
  if (!state) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: queue job {}: {}", db.where(), j.id, state.error().message));
  }
  j.state = *state;
  j.command = AsText(r[3]);
  j.request = AsText(r[4]);
  j.submitted_ms = AsInt(r[5]);
  j.updated_ms = AsInt(r[6]);
  j.pool = AsText(r[7]);
  j.devices = AsText(r[8]);
  j.pid = AsOptionalInt(r[9]);
  j.run_id = AsText(r[10]);
  j.started_ms = AsOptionalInt(r[11]);
  j.finished_ms = AsOptionalInt(r[12]);
  j.exit_code = AsOptionalInt(r[13]);
  j.expected_cost_micros = AsOptionalInt(r[14]);
  j.reason = AsText(r[15]);
  return j;
}

constexpr const char* kDecisionColumns =
    "job_id, time_ms, verdict, pool, start_ms, finish_ms, cost_micros, on_demand_micros, reason";

QueueDecisionRow DecisionFromRow(const Row& r) {
  return {AsInt(r[0]),         AsInt(r[1]),         AsText(r[2]),
          AsText(r[3]),        AsOptionalInt(r[4]), AsOptionalInt(r[5]),
          AsOptionalInt(r[6]), AsOptionalInt(r[7]), AsText(r[8])};
}

std::vector<Value> StateNames(std::span<const QueueJobState> states) {
  std::vector<Value> names;
  for (const QueueJobState s : states) names.emplace_back(std::string(QueueJobStateName(s)));
  return names;
}

std::string Placeholders(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += i == 0 ? "?" : ", ?";
  return s;
}

}  // namespace

std::string_view QueueJobStateName(QueueJobState state) {
  for (const auto& [s, name] : kStateNames) {
    if (s == state) return name;
  }
  return "waiting";
}

Result<QueueJobState> ParseQueueJobState(std::string_view text) {
  std::vector<std::string> names;
  for (const auto& [s, name] : kStateNames) {
    if (name == text) return s;
    names.emplace_back(name);
  }
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown job state '{}'{} (one of {})", Abbreviate(text),
                          DidYouMean(text, names), fmt::join(names, ", ")));
}

Result<int64_t> InsertQueueJob(Connection& db, const QueueJobRow& job) {
  const std::vector<Value> params = {job.name,
                                     std::string(QueueJobStateName(job.state)),
                                     job.command,
                                     job.request,
                                     job.submitted_ms,
                                     job.updated_ms,
                                     NullIfEmpty(job.reason),
                                     OrNull(job.expected_cost_micros)};
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(
      "INSERT INTO queue_jobs (name, state, command, request, submitted_ms, updated_ms, reason, "
      "expected_cost_micros) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
      params));
  if (rows.empty()) return Fail(ErrorCode::kFailed, db.where() + ": queue job not inserted");
  return AsInt(rows[0][0]);
}

Result<std::vector<QueueJobRow>> ListQueueJobs(Connection& db,
                                               std::span<const QueueJobState> states) {
  const std::vector<Value> params = StateNames(states);
  const std::string where =
      states.empty() ? "" : " WHERE state IN (" + Placeholders(states.size()) + ")";
  const std::vector<Row> rows = FRUGAL_TRY(
      db.Query(fmt::format("SELECT {} FROM queue_jobs{} ORDER BY id", kJobColumns, where), params));
  std::vector<QueueJobRow> jobs;
  jobs.reserve(rows.size());
  for (const Row& r : rows) jobs.push_back(FRUGAL_TRY(JobFromRow(db, r)));
  return jobs;
}

Result<std::vector<QueueJobVersion>> ListQueueJobVersions(Connection& db) {
  const std::vector<Row> rows =
      FRUGAL_TRY(db.Query("SELECT id, updated_ms FROM queue_jobs ORDER BY id"));
  std::vector<QueueJobVersion> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back({AsInt(r[0]), AsInt(r[1])});
  return out;
}

Result<std::vector<QueueJobRow>> ListQueueJobsById(Connection& db, std::span<const int64_t> ids) {
  std::vector<QueueJobRow> jobs;
  // In batches well under either database's limit on parameters of one statement.
  constexpr size_t kBatch = 500;
  for (size_t from = 0; from < ids.size(); from += kBatch) {
    const size_t n = std::min(kBatch, ids.size() - from);
    const std::vector<Value> params(ids.begin() + static_cast<ptrdiff_t>(from),
                                    ids.begin() + static_cast<ptrdiff_t>(from + n));
    const std::vector<Row> rows =
        FRUGAL_TRY(db.Query(fmt::format("SELECT {} FROM queue_jobs WHERE id IN ({}) ORDER BY id",
                                        kJobColumns, Placeholders(n)),
                            params));
    for (const Row& r : rows) jobs.push_back(FRUGAL_TRY(JobFromRow(db, r)));
  }
  std::sort(jobs.begin(), jobs.end(),
            [](const QueueJobRow& a, const QueueJobRow& b) { return a.id < b.id; });
  return jobs;
}

Result<std::optional<QueueJobRow>> GetQueueJob(Connection& db, int64_t id) {
  const std::vector<Value> params = {id};
  const std::vector<Row> rows = FRUGAL_TRY(
      db.Query(fmt::format("SELECT {} FROM queue_jobs WHERE id = ?", kJobColumns), params));
  if (rows.empty()) return std::optional<QueueJobRow>();
  return std::optional<QueueJobRow>(FRUGAL_TRY(JobFromRow(db, rows[0])));
}

Result<bool> MoveQueueJob(Connection& db, int64_t id, std::span<const QueueJobState> from,
                          QueueJobState to, const QueueJobRow& f, int64_t now_ms) {
  // updated_ms only grows, by a millisecond at least, whatever the caller's clock says: a
  // reader that keeps rows between passes (queue_service.h) tells every change by it.
  std::vector<Value> params = {std::string(QueueJobStateName(to)), now_ms, now_ms};
  std::string set =
      "state = ?, updated_ms = CASE WHEN updated_ms >= ? THEN updated_ms + 1 ELSE ? END";
  const auto text = [&](const char* column, const std::string& v) {
    if (v.empty()) return;
    set += fmt::format(", {} = ?", column);
    params.emplace_back(v);
  };
  const auto number = [&](const char* column, const std::optional<int64_t>& v) {
    if (!v) return;
    set += fmt::format(", {} = ?", column);
    params.emplace_back(*v);
  };
  text("pool", f.pool);
  text("devices", f.devices);
  number("pid", f.pid);
  text("run_id", f.run_id);
  number("started_ms", f.started_ms);
  number("finished_ms", f.finished_ms);
  number("exit_code", f.exit_code);
  number("expected_cost_micros", f.expected_cost_micros);
  text("reason", f.reason);
  text("request", f.request);
  params.emplace_back(id);
  for (Value& state : StateNames(from)) params.push_back(std::move(state));
  const std::vector<Row> rows = FRUGAL_TRY(
      db.Query(fmt::format("UPDATE queue_jobs SET {} WHERE id = ? AND state IN ({}) RETURNING id",
                           set, Placeholders(from.size())),
               params));
  return !rows.empty();
}

Result<void> InsertQueueDecisions(Connection& db, std::span<const QueueDecisionRow> decisions) {
  std::vector<Row> rows;
  for (const QueueDecisionRow& d : decisions) {
    rows.push_back({d.job_id, d.time_ms, d.verdict, NullIfEmpty(d.pool), OrNull(d.start_ms),
                    OrNull(d.finish_ms), OrNull(d.cost_micros), OrNull(d.on_demand_micros),
                    d.reason});
  }
  if (rows.empty()) return {};
  return db.ExecuteMany(
      "INSERT INTO queue_decisions (job_id, time_ms, verdict, pool, start_ms, finish_ms, "
      "cost_micros, on_demand_micros, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      rows);
}

Result<std::vector<QueueDecisionRow>> ListQueueDecisions(Connection& db, int64_t job_id) {
  const std::vector<Value> params = {job_id};
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(
      fmt::format("SELECT {} FROM queue_decisions WHERE job_id = ? ORDER BY id", kDecisionColumns),
      params));
  std::vector<QueueDecisionRow> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back(DecisionFromRow(r));
  return out;
}

Result<std::vector<QueueDecisionRow>> ListLatestQueueDecisions(Connection& db) {
  const std::vector<Row> rows = FRUGAL_TRY(
      db.Query(fmt::format("SELECT {} FROM queue_decisions WHERE id IN (SELECT MAX(id) FROM "
                           "queue_decisions GROUP BY job_id) ORDER BY job_id",
                           kDecisionColumns),
               {}));
  std::vector<QueueDecisionRow> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back(DecisionFromRow(r));
  return out;
}

Result<std::vector<RunSpanRow>> RunSpansOf(Connection& db, std::string_view run_name) {
  const std::vector<Value> params = {std::string(run_name)};
  const std::vector<Row> rows = FRUGAL_TRY(db.Query(
      "SELECT s.start_ms, s.end_ms, s.tier, s.end_reason, "
      "(SELECT MAX(e.time_ms) FROM events e WHERE e.run_id = s.run_id AND e.segment_id = s.id "
      "AND e.type = 'checkpoint_committed') "
      "FROM segments s JOIN runs r ON r.id = s.run_id WHERE r.name = ? ORDER BY s.start_ms, s.id",
      params));
  std::vector<RunSpanRow> spans;
  for (const Row& r : rows) {
    RunSpanRow span;
    span.start_ms = AsInt(r[0]);
    span.end_ms = AsOptionalInt(r[1]);
    const Result<CapacityTier> tier = AsTier(r[2]);
    if (!tier) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: run '{}': {}", db.where(), run_name, tier.error().message));
    }
    span.tier = *tier;
    span.end_reason = AsText(r[3]);
    span.last_checkpoint_ms = AsOptionalInt(r[4]);
    spans.push_back(std::move(span));
  }
  return spans;
}

}  // namespace frugal::ledger

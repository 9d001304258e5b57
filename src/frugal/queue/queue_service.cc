#include "frugal/queue/queue_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "frugal/core/text.h"
#include "frugal/queue/dependencies.h"
#include "frugal/queue/preemption.h"
#include "frugal/queue/reconcile.h"
#include "frugal/queue/warm_start.h"

namespace frugal::queue {
namespace {

/// A decision that ends a job without placing it (a failed dependency, a cached result): its
/// verdict word and the reason, at `now`.
Result<void> RecordOutcome(ledger::Connection& db, int64_t job_id, Seconds now, const char* verdict,
                           const std::string& reason) {
  ledger::QueueDecisionRow d;
  d.job_id = job_id;
  d.time_ms = now * 1000;
  d.verdict = verdict;
  d.reason = reason;
  return ledger::InsertQueueDecisions(db, std::vector<ledger::QueueDecisionRow>{d});
}

using ledger::QueueJobRow;
using ledger::QueueJobState;

const std::vector<QueueJobState> kActive = {QueueJobState::kStarting, QueueJobState::kRunning};

using Loaded = LoadedJob;

Result<std::vector<Loaded>> LoadAll(ledger::Connection& db, RequestCache* cache = nullptr) {
  std::vector<Loaded> out;
  if (cache != nullptr) {
    FRUGAL_TRY(cache->Sync(db));
    return cache->Lend();
  }
  for (QueueJobRow& row : FRUGAL_TRY(ledger::ListQueueJobs(db, {}))) {
    JobRequest request = FRUGAL_TRY(RequestFromJson(row.request));
    out.push_back({std::move(row), std::move(request)});
  }
  return out;
}

int PoolIndex(const Capacity& cap, const std::string& name) {
  for (size_t p = 0; p < cap.pools.size(); ++p) {
    if (cap.pools[p].name == name) return static_cast<int>(p);
  }
  return -1;
}

/// What runs on each pool now, by the expected ends of the active jobs.
std::vector<PoolState> CurrentPools(const Capacity& cap, const std::vector<Loaded>& jobs,
                                    Seconds now) {
  std::vector<PoolState> pools(cap.pools.size());
  for (const Loaded& j : jobs) {
    if (j.row.state != QueueJobState::kStarting && j.row.state != QueueJobState::kRunning) continue;
    const int p = PoolIndex(cap, j.row.pool);
    if (p < 0) continue;
    const Seconds started = j.row.started_ms.value_or(now * 1000) / 1000;
    const Pool& pool = cap.pools[static_cast<size_t>(p)];
    const double hours = j.request.RuntimeOn(pool).value_or(1.0);
    // Its expected end as the scheduler placed it (and `queue simulate` runs it): the
    // changeover, then the work. A job past it is still there: it frees the pool a minute
    // from now at best.
    const Seconds expected =
        started + static_cast<Seconds>(std::ceil((ToHours(pool.changeover) + hours) * 3600));
    const Seconds end = std::max(now + 60, expected);
    PoolState& ps = pools[static_cast<size_t>(p)];
    ps.busy_until.insert(ps.busy_until.end(), static_cast<size_t>(j.request.units), end);
    ps.jobs_until.push_back(end);
  }
  return pools;
}

/// Expected spend this period per budget key: the queue jobs submitted in the period and not
/// cancelled.
std::map<std::string, Money> Committed(const Capacity& cap, const std::vector<Loaded>& jobs,
                                       Seconds now) {
  std::map<std::string, Money> committed;
  for (const TeamBudget& b : cap.budgets) {
    const std::string key = b.tag_key + "=" + b.tag_value;
    const Seconds from = PeriodStart(b.period, now);
    for (const Loaded& j : jobs) {
      if (j.row.state == QueueJobState::kCancelled || j.row.submitted_ms / 1000 < from) continue;
      const auto tag = j.request.tags.find(b.tag_key);
      if (tag == j.request.tags.end() || tag->second != b.tag_value) continue;
      committed[key] += Money::FromMicros(j.row.expected_cost_micros.value_or(0));
    }
  }
  return committed;
}

ledger::QueueDecisionRow Decision(int64_t job_id, const Placement& p, const Capacity& cap,
                                  Seconds now) {
  ledger::QueueDecisionRow d;
  d.job_id = job_id;
  d.time_ms = now * 1000;
  d.verdict = VerdictName(p.verdict);
  if (p.pool >= 0) {
    d.pool = cap.pools[static_cast<size_t>(p.pool)].name;
    d.start_ms = p.start * 1000;
    d.finish_ms = p.finish * 1000;
    d.cost_micros = Money::FromDollars(p.cost_usd).micros();
  }
  if (p.on_demand_cost_usd >= 0)
    d.on_demand_micros = Money::FromDollars(p.on_demand_cost_usd).micros();
  d.reason = fmt::format("{}: {}", VerdictName(p.verdict), p.reason);
  return d;
}

/// The lowest-numbered GPUs of `pool` no active job holds ("" for a CPU-slot pool).
std::string FreeDevices(const Capacity& cap, const std::vector<Loaded>& jobs, int pool, int units) {
  const Pool& p = cap.pools[static_cast<size_t>(pool)];
  if (p.gpu.empty()) return "";
  std::set<int> used;
  for (const Loaded& j : jobs) {
    if ((j.row.state != QueueJobState::kStarting && j.row.state != QueueJobState::kRunning) ||
        j.row.pool != p.name)
      continue;
    for (const std::string& d : Split(j.row.devices, ',')) {
      if (auto n = ParseInt(d)) used.insert(static_cast<int>(*n));
    }
  }
  std::vector<std::string> picked;
  for (int d = 0; d < p.units() && std::ssize(picked) < units; ++d) {
    if (!used.contains(d)) picked.push_back(std::to_string(d));
  }
  std::string s;
  for (const std::string& d : picked) s += (s.empty() ? "" : ",") + d;
  return s;
}

/// A waiting job whose dependency can never be met fails, with the reason, rather than wait
/// for ever. Returns whether it moved.
Result<bool> FailDependent(ledger::Connection& db, Loaded& j, const std::string& why, Seconds now,
                           PassReport& report) {
  QueueJobRow f;
  f.reason = "dependency_failed: " + why;
  f.finished_ms = now * 1000;
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  if (!FRUGAL_TRY(
          ledger::MoveQueueJob(db, j.row.id, waiting, QueueJobState::kFailed, f, now * 1000))) {
    return false;
  }
  j.row.state = QueueJobState::kFailed;
  j.row.reason = f.reason;
  report.lines.push_back(fmt::format("job {} ({}) failed: {}", j.row.id, j.row.name, f.reason));
  FRUGAL_TRY(RecordOutcome(db, j.row.id, now, "dependency_failed", f.reason));
  return true;
}

/// A job claimed for a start in the locked part of a pass, launched after it.
struct Launch {
  size_t job = 0;
  int pool = -1;
  std::string devices;
  Seconds begin = 0;  ///< a Slurm pool's deferred start (sbatch --begin); now otherwise
};

/// The claim: of two schedulers, only one moves the job out of waiting.
Result<bool> Claim(ledger::Connection& db, const Capacity& cap, Loaded& j, const Placement& p,
                   const std::string& devices, const std::string& reason, Seconds now) {
  QueueJobRow f;
  f.reason = reason;
  f.pool = cap.pools[static_cast<size_t>(p.pool)].name;
  f.devices = devices;
  f.run_id = fmt::format("queue-{}", j.row.id);
  f.started_ms = now * 1000;
  f.expected_cost_micros = Money::FromDollars(p.cost_usd).micros();
  JobRequest placed = j.request;
  placed.executor = ExecutorKind(cap.pools[static_cast<size_t>(p.pool)]);
  f.request = RequestToJson(placed);
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  if (!FRUGAL_TRY(
          ledger::MoveQueueJob(db, j.row.id, waiting, QueueJobState::kStarting, f, now * 1000)))
    return false;
  j.request.executor = placed.executor;
  j.row.request = f.request;
  j.row.state = QueueJobState::kStarting;
  j.row.pool = f.pool;
  j.row.devices = devices;
  j.row.run_id = f.run_id;
  return true;
}

/// A job that warm-starts gets that run's newest committed checkpoint as its own first one
/// (only before it has any of its own).
Result<void> SeedWarmStart(const Loaded& j) {
  if (j.request.warm_start.empty()) return {};
  const std::string where = fmt::format("queue job {}: warm_start", j.row.id);
  const WarmStart warm =
      FRUGAL_TRY(FindWarmStartOnDisk(j.request.warm_start, RunDirOf(j.request.warm_start), where));
  FRUGAL_TRY(SeedRunDir(warm, RunDirOf(j.row.run_id)));
  return {};
}

Result<void> LaunchJob(ledger::Connection& db, Executor& executor, const Capacity& cap, Loaded& j,
                       const Launch& l, Seconds now, PassReport& report) {
  const int64_t now_ms = now * 1000;
  const Pool& pool = cap.pools[static_cast<size_t>(l.pool)];
  const std::vector<QueueJobState> starting = {QueueJobState::kStarting};
  QueueJobRow g;
  if (Result<void> seeded = SeedWarmStart(j); !seeded) {
    g.reason = "could not start: " + seeded.error().message;
    g.finished_ms = now_ms;
    FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, starting, QueueJobState::kFailed, g, now_ms));
    j.row.state = QueueJobState::kFailed;
    report.lines.push_back(fmt::format("job {} ({}) failed: {}", j.row.id, j.row.name, g.reason));
    return {};
  }
  Result<int64_t> pid = executor.Start(j.row, pool, l.devices, std::max<Seconds>(0, l.begin - now));
  if (!pid) {
    g.reason = "could not start: " + pid.error().message;
    FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, starting, QueueJobState::kWaiting, g, now_ms));
    j.row.state = QueueJobState::kWaiting;
    report.lines.push_back(fmt::format("job {} ({}) {}", j.row.id, j.row.name, g.reason));
    return {};
  }
  g.pid = *pid;
  if (FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, starting, QueueJobState::kRunning, g, now_ms)))
    j.row.state = QueueJobState::kRunning;
  ++report.started;
  std::string when = l.begin > now ? " from " + FormatUtcTime(l.begin) : "";
  if (pool.kind == PoolKind::kSlurm) when += fmt::format(" (slurm job {})", *pid);
  report.lines.push_back(
      fmt::format("job {} ({}) {} on {}{}{} as run {}", j.row.id, j.row.name,
                  pool.kind == PoolKind::kSlurm ? "submitted to Slurm" : "started", pool.name,
                  l.devices.empty() ? "" : " GPUs " + l.devices, when, j.row.run_id));
  return {};
}

/// Runs `body` in a write transaction that one scheduler at a time holds: SQLite's BEGIN
/// IMMEDIATE, and on PostgreSQL a transaction-scoped advisory lock as well. Never retried (a
/// pass is simply run again later).
Result<void> Locked(ledger::Connection& db, const std::function<Result<void>()>& body) {
  FRUGAL_TRY(db.Begin(ledger::TxnMode::kWrite));
  Result<void> r = [&]() -> Result<void> {
    if (db.dialect() == ledger::Dialect::kPostgres) {
      FRUGAL_TRY(db.Query("SELECT pg_advisory_xact_lock(hashtext('frugal-queue-scheduler'))"));
    }
    return body();
  }();
  if (!r) {
    db.Rollback();
    return r;
  }
  return db.Commit();
}

/// A waiting job whose cache output exists already succeeds without running; true when the
/// job is such a one (whether or not this scheduler was the one to move it).
Result<bool> SucceedIfCached(ledger::Connection& db, Loaded& j, Seconds now, PassReport& report) {
  if (j.request.cache_output.empty() || !std::filesystem::exists(j.request.cache_output)) {
    return false;
  }
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  QueueJobRow f;
  f.reason = fmt::format("cached: the output of '{}' ({}) exists; not run again",
                         j.request.cache_key, j.request.cache_output);
  f.finished_ms = now * 1000;
  f.exit_code = 0;
  f.expected_cost_micros = 0;
  if (FRUGAL_TRY(
          ledger::MoveQueueJob(db, j.row.id, waiting, QueueJobState::kSucceeded, f, now * 1000))) {
    j.row.state = QueueJobState::kSucceeded;
    report.lines.push_back(fmt::format("job {} ({}) {}", j.row.id, j.row.name, f.reason));
    FRUGAL_TRY(RecordOutcome(db, j.row.id, now, "cached", f.reason));
  }
  return true;
}

/// A waiting job with a dependency unmet: failed when one never will be, else left waiting
/// with the first one named; true when the job is such a one.
Result<bool> HoldOnDependencies(ledger::Connection& db, const std::vector<Loaded>& jobs, Loaded& j,
                                Seconds now, PassReport& report) {
  const DependencyState deps = CheckDependencies(j.request.depends_on, jobs, j.row.id);
  if (deps.never) {
    // In id order, so a chain of dependents fails in one pass.
    FRUGAL_TRY(FailDependent(db, j, *deps.never, now, report));
    return true;
  }
  const std::vector<std::string>& unmet = deps.unmet;
  if (unmet.empty()) return false;
  const std::string reason = "wait: for " + unmet.front() + (unmet.size() > 1 ? " and others" : "");
  if (reason != j.row.reason) {
    const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
    QueueJobRow f;
    f.reason = reason;
    FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, waiting, QueueJobState::kWaiting, f, now * 1000));
  }
  return true;
}

/// The waiting jobs the scheduler is to place this pass, into `in.jobs`, with their places in
/// `jobs` in `index`; cached jobs and those held by dependencies are dealt with on the way.
Result<void> CollectSchedulable(ledger::Connection& db, const Capacity& capacity,
                                std::vector<Loaded>& jobs, Seconds now, PassReport& report,
                                ScheduleInput& in, std::vector<size_t>& index) {
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (jobs[i].row.state != QueueJobState::kWaiting) continue;
    ++report.waiting;
    if (FRUGAL_TRY(SucceedIfCached(db, jobs[i], now, report))) continue;
    if (FRUGAL_TRY(HoldOnDependencies(db, jobs, jobs[i], now, report))) continue;
    // A waiting job's own expected cost is in the committed spend: the pass adds it back.
    for (const std::string& key : BudgetKeys(capacity, jobs[i].request)) {
      in.committed[key] -= Money::FromMicros(jobs[i].row.expected_cost_micros.value_or(0));
    }
    if (!jobs[i].request.spot.paid_allowed && now >= jobs[i].request.spot.recheck_at) {
      const auto line =
          FRUGAL_TRY(RecordSpotRecheck(db, capacity, jobs[i].row, jobs[i].request, now));
      if (line) report.lines.push_back(*line);
    }
    index.push_back(i);
    const SpotHistory& spot = jobs[i].request.spot;
    in.jobs.push_back({&jobs[i].request, WorkLeft(capacity, jobs[i].request), spot.spot_allowed,
                       spot.paid_allowed});
  }
  return {};
}

/// The scheduler's placements acted on: the jobs to start claimed (into `launches`), the rest
/// left waiting with their new reason; the decisions that changed recorded.
Result<void> ActOnPlacements(ledger::Connection& db, const Capacity& capacity,
                             std::vector<Loaded>& jobs, const std::vector<size_t>& index,
                             const std::vector<Placement>& placements, Seconds now,
                             PassReport& report, std::vector<Launch>& launches) {
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  std::vector<ledger::QueueDecisionRow> decisions;
  for (const Placement& p : placements) {
    const size_t i = index[p.job];
    Loaded& j = jobs[i];
    const ledger::QueueDecisionRow d = Decision(j.row.id, p, capacity, now);
    // The scheduler's action, as `queue simulate` takes it: a start now (a late job too, where
    // it finishes soonest), or a start a Slurm pool holds until its time (sbatch --begin).
    if (p.action != Action::kNone) {
      const PoolKind kind = capacity.pools[static_cast<size_t>(p.pool)].kind;
      const std::string devices =
          kind == PoolKind::kLocal ? FreeDevices(capacity, jobs, p.pool, j.request.units) : "";
      if (FRUGAL_TRY(Claim(db, capacity, j, p, devices, d.reason, now))) {
        // The decision it starts on is recorded once: not again when it repeats the last one
        // (the one made at submission, say).
        if (d.reason != j.row.reason) decisions.push_back(d);
        launches.push_back({i, p.pool, devices, p.start});
      }
      continue;
    }
    if (d.reason == j.row.reason) continue;
    decisions.push_back(d);
    report.lines.push_back(fmt::format("job {} ({}) {}", j.row.id, j.row.name, d.reason));
    QueueJobRow f;
    f.reason = d.reason;
    f.expected_cost_micros = d.cost_micros;
    FRUGAL_TRY(ledger::MoveQueueJob(db, j.row.id, waiting, QueueJobState::kWaiting, f, now * 1000));
  }
  return ledger::InsertQueueDecisions(db, decisions);
}

/// The locked part of a pass after the catch-up: place the waiting jobs, record the decisions
/// that changed, claim the jobs to start now (and, on Slurm pools, those deferred).
Result<void> PlaceWaiting(ledger::Connection& db, const Capacity& capacity,
                          std::vector<Loaded>& jobs, Seconds now, PassReport& report,
                          std::vector<Launch>& launches) {
  ScheduleInput in;
  in.now = now;
  in.capacity = &capacity;
  in.pools = CurrentPools(capacity, jobs, now);
  in.committed = Committed(capacity, jobs, now);
  std::vector<size_t> index;
  FRUGAL_TRY(CollectSchedulable(db, capacity, jobs, now, report, in, index));
  const std::vector<Placement> placements = Schedule(in);
  return ActOnPlacements(db, capacity, jobs, index, placements, now, report, launches);
}

}  // namespace

Result<Submitted> SubmitJob(ledger::Connection& db, const Capacity& capacity, const JobRequest& job,
                            const std::vector<std::string>& command, Seconds now) {
  if (command.empty())
    return Fail(ErrorCode::kBadInput, "no command: frugal queue submit JOB.yaml -- COMMAND");
  // The ledger keeps the command as JSON text, which holds only UTF-8: an argument that is not
  // could only be stored changed, and the job would run another command than the one given.
  for (size_t i = 0; i < command.size(); ++i) {
    if (const std::optional<size_t> at = FirstInvalidUtf8(command[i])) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("command argument {}: byte 0x{:02X} at offset {} is not UTF-8 text "
                              "(the queue stores the command as text; pass the argument in a "
                              "script)",
                              i + 1, static_cast<unsigned char>(command[i][*at]), *at));
    }
  }
  bool fits = false;
  for (const Pool& p : capacity.pools) fits = fits || job.RuntimeOn(p).has_value();
  if (!fits) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("job '{}' ({} {}) fits no pool of {}", job.name, job.units,
                            job.cpu_only ? "CPU slots" : "GPUs", capacity.source));
  }
  if (!job.warm_start.empty()) {
    const std::string where = job.warm_start_where.empty() ? "warm_start" : job.warm_start_where;
    FRUGAL_TRY(FindWarmStart(db, job.warm_start, RunDirOf(job.warm_start), where));
  }
  Submitted out;
  const auto body = [&](ledger::Connection& c) -> Result<void> {
    const std::vector<Loaded> jobs = FRUGAL_TRY(LoadAll(c));
    // A dependency no job could ever meet would leave this job waiting for ever.
    if (const DependencyState deps = CheckDependencies(job.depends_on, jobs); deps.never) {
      const std::string where = job.depends_on_where.empty() ? "depends_on" : job.depends_on_where;
      return Fail(ErrorCode::kBadInput, fmt::format("{}: {}", where, *deps.never));
    }
    ScheduleInput in;
    in.now = now;
    in.capacity = &capacity;
    in.pools = CurrentPools(capacity, jobs, now);
    in.committed = Committed(capacity, jobs, now);
    in.jobs = {{&job}};
    out.placement = Schedule(in).front();
    if (out.placement.verdict == Verdict::kOverBudget) {
      return Fail(
          ErrorCode::kBudget,
          fmt::format("refused: {} (--override REASON submits it anyway)", out.placement.reason));
    }
    QueueJobRow row;
    row.name = job.name;
    row.state = QueueJobState::kWaiting;
    row.command = nlohmann::json(command).dump();
    row.request = RequestToJson(job);
    row.submitted_ms = now * 1000;
    row.updated_ms = now * 1000;
    row.reason = fmt::format("{}: {}", VerdictName(out.placement.verdict), out.placement.reason);
    row.expected_cost_micros = Money::FromDollars(out.placement.cost_usd).micros();
    out.id = FRUGAL_TRY(ledger::InsertQueueJob(c, row));
    const std::vector<ledger::QueueDecisionRow> d = {
        Decision(out.id, out.placement, capacity, now)};
    return ledger::InsertQueueDecisions(c, d);
  };
  FRUGAL_TRY(ledger::Transact(db, ledger::TxnMode::kWrite, body));
  return out;
}

Result<JobRequest> RequestCache::Get(int64_t id, const std::string& text) {
  auto it = entries_.find(id);
  if (it == entries_.end() || it->second.first != text) {
    JobRequest parsed = FRUGAL_TRY(RequestFromJson(text));
    it = entries_.insert_or_assign(id, std::make_pair(text, std::move(parsed))).first;
  }
  return it->second.second;
}

Result<void> RequestCache::Sync(ledger::Connection& db) {
  const std::vector<ledger::QueueJobVersion> versions =
      FRUGAL_TRY(ledger::ListQueueJobVersions(db));
  // Both by increasing id: one walk keeps the unchanged rows (moved, not copied) and leaves a
  // slot for each row to read again.
  std::vector<Entry> next;
  next.reserve(versions.size());
  std::vector<int64_t> changed;
  auto old = rows_.begin();
  for (const ledger::QueueJobVersion& v : versions) {
    while (old != rows_.end() && old->row.id < v.id) ++old;
    if (old != rows_.end() && old->row.id == v.id && old->row.updated_ms == v.updated_ms) {
      next.push_back(std::move(*old));
    } else {
      next.emplace_back().row.id = v.id;
      changed.push_back(v.id);
    }
  }
  rows_.clear();
  std::vector<bool> read(next.size(), false);
  for (QueueJobRow& row : FRUGAL_TRY(ledger::ListQueueJobsById(db, changed))) {
    const auto slot = std::lower_bound(next.begin(), next.end(), row.id,
                                       [](const Entry& e, int64_t id) { return e.row.id < id; });
    if (slot == next.end() || slot->row.id != row.id) continue;
    slot->request = FRUGAL_TRY(Get(row.id, row.request));
    slot->row = std::move(row);
    read[static_cast<size_t>(slot - next.begin())] = true;
  }
  // A row gone between the two reads leaves its slot unread.
  for (size_t i = 0, n = next.size(); i < n; ++i) {
    const bool to_read = std::binary_search(changed.begin(), changed.end(), next[i].row.id);
    if (!to_read || read[i]) rows_.push_back(std::move(next[i]));
  }
  // Gone rows (none are deleted today) leave the parsed requests too.
  if (rows_.size() < entries_.size()) {
    std::erase_if(entries_, [&](const auto& e) { return Find(e.first) == nullptr; });
  }
  return {};
}

const RequestCache::Entry* RequestCache::Find(int64_t id) const {
  const auto it = std::lower_bound(rows_.begin(), rows_.end(), id,
                                   [](const Entry& e, int64_t key) { return e.row.id < key; });
  return it != rows_.end() && it->row.id == id ? &*it : nullptr;
}

Result<PassReport> RunPass(ledger::Connection& db, const Capacity& capacity, Executor& executor,
                           Seconds now, RequestCache* cache) {
  PassReport report;
  std::vector<Loaded> jobs;
  std::vector<Launch> launches;
  std::vector<PlannedMove> moves;
  const auto locked = [&]() -> Result<void> {
    jobs = FRUGAL_TRY(LoadAll(db, cache));
    FRUGAL_TRY(Reconcile(db, capacity, executor, jobs, now, report, moves));
    return PlaceWaiting(db, capacity, jobs, now, report, launches);
  };
  FRUGAL_TRY(Locked(db, locked));
  // Launched outside the lock: a job is claimed (starting) before its process exists, so a
  // scheduler killed in between leaves a start the next pass finds cut short and undoes.
  for (const Launch& l : launches) {
    FRUGAL_TRY(LaunchJob(db, executor, capacity, jobs[l.job], l, now, report));
  }
  for (const PlannedMove& m : moves) {
    FRUGAL_TRY(MoveJob(db, capacity, executor, jobs[m.job], m, now, report));
  }
  // Only a pass that succeeded gives its rows back (a failed one's may hold rolled-back moves).
  if (cache != nullptr) cache->Return(std::move(jobs));
  return report;
}

Result<QueueJobRow> SteerJob(ledger::Connection& db, Executor& executor, int64_t id, Steer steer,
                             Seconds now) {
  const std::optional<QueueJobRow> job = FRUGAL_TRY(ledger::GetQueueJob(db, id));
  if (!job) return Fail(ErrorCode::kBadInput, fmt::format("no queue job {}", id));
  std::vector<QueueJobState> from;
  QueueJobState to = QueueJobState::kWaiting;
  QueueJobRow f;
  switch (steer) {
    case Steer::kCancel:
      from = {QueueJobState::kWaiting, QueueJobState::kHeld, QueueJobState::kStarting,
              QueueJobState::kRunning};
      to = QueueJobState::kCancelled;
      f.reason = "cancelled";
      f.finished_ms = now * 1000;
      break;
    case Steer::kHold:
      from = {QueueJobState::kWaiting};
      to = QueueJobState::kHeld;
      f.reason = "held";
      break;
    case Steer::kRelease:
      from = {QueueJobState::kHeld};
      to = QueueJobState::kWaiting;
      f.reason = "released";
      break;
  }
  if (!FRUGAL_TRY(ledger::MoveQueueJob(db, id, from, to, f, now * 1000))) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("job {} is {}: it cannot be {}", id, QueueJobStateName(job->state),
                            steer == Steer::kCancel ? "cancelled"
                            : steer == Steer::kHold ? "held (only a waiting job can)"
                                                    : "released (only a held job can)"));
  }
  if (steer == Steer::kCancel &&
      (job->state == QueueJobState::kRunning || job->state == QueueJobState::kStarting)) {
    executor.Stop(*job);
  }
  return *FRUGAL_TRY(ledger::GetQueueJob(db, id));
}

}  // namespace frugal::queue

#include "frugal/ledger/ledger.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <thread>

#include "frugal/core/paths.h"
#include "frugal/ledger/schema.h"

namespace frugal::ledger {
namespace {

constexpr int64_t kHourMs = 3'600'000;
constexpr size_t kSampleColumns = 11;
constexpr size_t kRowsPerInsert = 200;

bool IsPostgresUrl(const std::string& location) {
  return location.starts_with("postgresql://") || location.starts_with("postgres://");
}

/// "(?, ?, ?), (?, ?, ?)" for `rows` rows of `columns` values.
std::string Placeholders(size_t rows, size_t columns) {
  std::string one = "(";
  for (size_t c = 0; c < columns; ++c) one += c == 0 ? "?" : ", ?";
  one += ")";
  std::string all;
  for (size_t r = 0; r < rows; ++r) all += (r == 0 ? "" : ", ") + one;
  return all;
}

/// Sums of one hour of one run's samples, merged into sample_rollup.
struct HourSums {
  int64_t n = 0;
  std::array<int64_t, 5> counts{};
  std::array<double, 5> sums{};
  void Add(size_t i, const std::optional<double>& v) {
    if (!v) return;
    counts[i] += 1;
    sums[i] += *v;
  }
};

// Keeps the heartbeat monotonic: any write from the supervisor proves it was alive then.
constexpr const char* kBumpHeartbeat =
    "UPDATE runs SET heartbeat_ms = CASE WHEN heartbeat_ms IS NULL OR heartbeat_ms < ? THEN ? "
    "ELSE heartbeat_ms END WHERE id = ?";

/// Whether a SQLite ledger path holds no ledger yet: no file, or an empty one (as `touch`
/// leaves it) with no write-ahead log beside it.
bool NoSqliteLedgerYet(const std::string& location) {
  if (IsPostgresUrl(location)) return false;
  std::error_code error;
  const std::filesystem::path path(location);
  if (!std::filesystem::exists(path, error)) return true;
  if (!std::filesystem::is_regular_file(path, error) ||
      std::filesystem::file_size(path, error) != 0) {
    return false;
  }
  const std::filesystem::path wal(location + "-wal");
  return !std::filesystem::exists(wal, error) || std::filesystem::file_size(wal, error) == 0;
}

/// Whether this user may write the SQLite ledger at `location` (the file, and the directory
/// where SQLite keeps its write-ahead log). True for a PostgreSQL URL or a missing file: there
/// the connection itself says.
bool SqliteWritableByUs(const std::string& location) {
  if (IsPostgresUrl(location)) return true;
  const std::filesystem::path path(location);
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error)) return true;
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : ".";
  return ::faccessat(AT_FDCWD, path.c_str(), W_OK, AT_EACCESS) == 0 &&
         ::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) == 0;
}

// True where no --db flag or FRUGAL_DB names the ledger: the default file is in use.
bool IsDefaultLocation(const std::string& db_flag) {
  return db_flag.empty() && std::getenv("FRUGAL_DB") == nullptr;
}

}  // namespace

std::string ResolveLocation(const std::string& db_flag) {
  if (!db_flag.empty()) return db_flag;
  if (const char* env = std::getenv("FRUGAL_DB"); env != nullptr && *env != '\0') return env;
  return (UserDataDir() / "ledger.sqlite").string();
}

bool NothingRecordedYet(const std::string& db_flag) {
  return IsDefaultLocation(db_flag) && NoSqliteLedgerYet(ResolveLocation(db_flag));
}

Result<std::unique_ptr<Ledger>> OpenForCommand(const std::string& db_flag, CreateMode create) {
  const std::string location = ResolveLocation(db_flag);
  const bool is_default = IsDefaultLocation(db_flag);
  if (create == CreateMode::kMustExist && NothingRecordedYet(db_flag)) {
    // Nothing recorded yet: a read-only command shows an empty ledger and creates none.
    std::unique_ptr<Connection> empty =
        FRUGAL_TRY(OpenSqliteInMemory(fmt::format("{} (none yet)", location)));
    FRUGAL_TRY(MigrateSchema(*empty));
    return std::make_unique<Ledger>(std::move(empty));
  }
  OpenOptions options;
  options.create = is_default ? CreateMode::kCreateIfMissing : create;
  // A ledger this user may read but not write (a team's file, another user's data dir) is
  // read as it is: the sweep, a write, is left to its owner.
  const bool read_only = create == CreateMode::kMustExist && !SqliteWritableByUs(location);
  if (read_only) options.create = CreateMode::kReadOnly;
  std::unique_ptr<Ledger> ledger = FRUGAL_TRY(Ledger::Open(location, options));
  if (!read_only) FRUGAL_TRY(ledger->SweepLost(Now(), kHeartbeatStaleAfter));
  return ledger;
}

Result<std::unique_ptr<Connection>> Connect(const std::string& location, CreateMode create) {
  if (IsPostgresUrl(location)) return OpenPostgres(location);
  if (const size_t scheme_end = location.find("://"); scheme_end != std::string::npos) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: unsupported ledger URL scheme '{}' (use a SQLite file path or "
                            "postgresql://...)",
                            location, location.substr(0, scheme_end)));
  }
  const std::filesystem::path path(location);
  std::error_code is_dir_error;
  if (std::filesystem::is_directory(path, is_dir_error)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: is a directory (the ledger is a SQLite file or a postgresql:// "
                            "URL)",
                            location));
  }
  if (create != CreateMode::kCreateIfMissing && !std::filesystem::exists(path)) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}: no ledger there", location));
  }
  if (create != CreateMode::kCreateIfMissing && NoSqliteLedgerYet(location)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} is empty: no ledger there yet (a command that records, such as "
                            "`frugal run` or `frugal ledger import`, creates it)",
                            location));
  }
  if (create == CreateMode::kCreateIfMissing && path.has_parent_path()) {
    std::error_code error;
    std::filesystem::create_directories(path.parent_path(), error);
    if (error) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: cannot create the ledger's directory {}: {}", location,
                              path.parent_path().string(),
                              error.value() == ENOSPC ? "disk full" : error.message()));
    }
  }
  return OpenSqlite(location, create);
}

Result<std::unique_ptr<Ledger>> Ledger::Open(const std::string& location,
                                             const OpenOptions& options) {
  std::unique_ptr<Connection> db = FRUGAL_TRY(Connect(location, options.create));
  if (options.create != CreateMode::kCreateIfMissing && FRUGAL_TRY(SchemaVersion(*db)) == 0) {
    // A reader never lays a schema into a database nobody has written a ledger to.
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: no ledger there yet (the database has no tables)", db->where()));
  }
  const int target = options.schema_version == OpenOptions::kLatestSchema ? kSchemaVersion
                                                                          : options.schema_version;
  FRUGAL_TRY(MigrateSchema(*db, target));
  return std::make_unique<Ledger>(std::move(db));
}

Result<RunId> Ledger::BeginRun(const NewRun& run) {
  RunId id = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    const std::vector<Value> params = {run.name,
                                       run.command,
                                       run.spec,
                                       run.tags.team,
                                       run.tags.project,
                                       run.tags.owner,
                                       std::string(RunStatusName(RunStatus::kRunning)),
                                       ToMillis(run.start),
                                       ToMillis(run.start),
                                       run.budget ? Value{run.budget->micros()} : Value{},
                                       OrNull(run.gpu_hours_cap)};
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "INSERT INTO runs (name, command, spec, team, project, owner, status, start_ms, "
        "heartbeat_ms, budget_micros, gpu_hours_cap) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "RETURNING id",
        params));
    id = AsInt(rows.at(0).at(0));
    std::vector<Row> tags;
    for (const auto& [key, value] : run.tags.extra) tags.push_back({id, key, value});
    return c.ExecuteMany("INSERT INTO run_tags (run_id, key, value) VALUES (?, ?, ?)", tags);
  });
  if (!done) return Fail(done.error());
  return id;
}

Result<SegmentId> Ledger::OpenSegment(RunId run, const SegmentOffer& offer, Timestamp start) {
  const std::string tier(CapacityTierName(offer.tier));
  SegmentId id = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> state = FRUGAL_TRY(c.Query(
        "SELECT status, (SELECT COUNT(*) FROM segments WHERE run_id = runs.id AND end_ms IS "
        "NULL) FROM runs WHERE id = ?",
        std::vector<Value>{run}));
    if (state.empty()) return Fail(ErrorCode::kBadInput, fmt::format("no run {}", run));
    if (AsText(state[0][0]) != RunStatusName(RunStatus::kRunning)) {
      return Fail(ErrorCode::kBadInput, fmt::format("run {} has ended", run));
    }
    if (AsInt(state[0][1]) != 0) {
      return Fail(ErrorCode::kBadInput, fmt::format("run {} already has an open segment", run));
    }
    const std::vector<Value> params = {
        run,
        offer.cloud,
        offer.instance_type,
        offer.region,
        NullIfEmpty(offer.zone),
        NullIfEmpty(offer.gpu),
        int64_t{offer.gpu_count},
        tier,
        offer.price.per_hour.micros(),
        offer.on_demand_price ? Value{offer.on_demand_price->per_hour.micros()} : Value{},
        ToMillis(start)};
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "INSERT INTO segments (run_id, cloud, instance_type, region, zone, gpu, gpu_count, tier, "
        "price_micros_per_hour, on_demand_micros_per_hour, start_ms) VALUES (?, ?, ?, ?, ?, ?, "
        "?, ?, ?, ?, ?) RETURNING id",
        params));
    id = AsInt(rows.at(0).at(0));
    FRUGAL_TRY(c.Query(kBumpHeartbeat, std::vector<Value>{ToMillis(start), ToMillis(start), run}));
    return {};
  });
  if (!done) return Fail(done.error());
  return id;
}

Result<void> Ledger::CloseSegment(SegmentId segment, Timestamp end, EndReason reason) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("UPDATE segments SET end_ms = CASE WHEN start_ms > ? THEN start_ms ELSE ? END, "
                "end_reason = ? WHERE id = ? AND end_ms IS NULL RETURNING run_id",
                std::vector<Value>{ToMillis(end), ToMillis(end), std::string(EndReasonName(reason)),
                                   segment}));
    if (rows.empty()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("segment {} is unknown or already closed", segment));
    }
    return c.Query(kBumpHeartbeat, std::vector<Value>{ToMillis(end), ToMillis(end), rows[0][0]})
        .map([](auto&&) {});
  });
}

Result<int64_t> Ledger::AddEvent(RunId run, std::optional<SegmentId> segment, EventType type,
                                 Timestamp time, const nlohmann::json& payload) {
  int64_t id = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "INSERT INTO events (run_id, segment_id, time_ms, type, payload) VALUES (?, ?, ?, ?, ?) "
        "RETURNING id",
        std::vector<Value>{run, OrNull(segment), ToMillis(time), std::string(EventTypeName(type)),
                           payload.dump()}));
    id = AsInt(rows.at(0).at(0));
    return {};
  });
  if (!done) return Fail(done.error());
  return id;
}

Result<void> Ledger::AddSamples(RunId run, std::span<const Sample> samples) {
  if (samples.empty()) return {};
  std::map<int64_t, HourSums> hours;
  std::vector<Value> values;
  values.reserve(samples.size() * kSampleColumns);
  for (const Sample& s : samples) {
    const int64_t t = ToMillis(s.time);
    HourSums& h = hours[t / kHourMs * kHourMs];
    h.n += 1;
    h.Add(0, s.gpu_util);
    h.Add(1, s.cpu_util);
    h.Add(2, s.gpu_mem_bytes);
    h.Add(3, s.power_watts);
    h.Add(4, s.io_wait);
    for (Value v :
         {Value{run}, Value{t}, Value{int64_t{0}}, OrNull(s.gpu_util), OrNull(s.sm_active),
          OrNull(s.tensor_active), OrNull(s.gpu_mem_bytes), OrNull(s.power_watts),
          OrNull(s.cpu_util), OrNull(s.rss_bytes), OrNull(s.io_wait)}) {
      values.push_back(std::move(v));
    }
  }
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    for (size_t first = 0; first < samples.size(); first += kRowsPerInsert) {
      const size_t n = std::min(kRowsPerInsert, samples.size() - first);
      const std::string sql =
          "INSERT INTO samples (run_id, time_ms, resolution_ms, gpu_util, sm_active, "
          "tensor_active, "
          "gpu_mem_bytes, power_watts, cpu_util, rss_bytes, io_wait) VALUES " +
          Placeholders(n, kSampleColumns);
      FRUGAL_TRY(c.Query(
          sql, std::span<const Value>(values).subspan(first * kSampleColumns, n * kSampleColumns)));
    }
    std::vector<Row> rollups;
    rollups.reserve(hours.size());
    for (const auto& [hour, h] : hours) {
      rollups.push_back({run, hour, h.n, h.counts[0], h.sums[0], h.counts[1], h.sums[1],
                         h.counts[2], h.sums[2], h.counts[3], h.sums[3], h.counts[4], h.sums[4]});
    }
    return c.ExecuteMany(
        "INSERT INTO sample_rollup VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
        "ON CONFLICT (run_id, hour_ms) DO UPDATE SET n = sample_rollup.n + excluded.n, "
        "gpu_util_n = sample_rollup.gpu_util_n + excluded.gpu_util_n, "
        "gpu_util_sum = sample_rollup.gpu_util_sum + excluded.gpu_util_sum, "
        "cpu_util_n = sample_rollup.cpu_util_n + excluded.cpu_util_n, "
        "cpu_util_sum = sample_rollup.cpu_util_sum + excluded.cpu_util_sum, "
        "gpu_mem_n = sample_rollup.gpu_mem_n + excluded.gpu_mem_n, "
        "gpu_mem_sum = sample_rollup.gpu_mem_sum + excluded.gpu_mem_sum, "
        "power_n = sample_rollup.power_n + excluded.power_n, "
        "power_sum = sample_rollup.power_sum + excluded.power_sum, "
        "io_wait_n = sample_rollup.io_wait_n + excluded.io_wait_n, "
        "io_wait_sum = sample_rollup.io_wait_sum + excluded.io_wait_sum",
        rollups);
  });
}

Result<void> Ledger::Heartbeat(RunId run, Timestamp time) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    return c.Query(kBumpHeartbeat, std::vector<Value>{ToMillis(time), ToMillis(time), run})
        .map([](auto&&) {});
  });
}

Result<void> Ledger::FinishRun(RunId run, RunStatus status, Timestamp end) {
  if (status == RunStatus::kRunning) {
    return Fail(ErrorCode::kBadInput, fmt::format("run {}: a run cannot finish as running", run));
  }
  const EndReason reason = status == RunStatus::kSucceeded       ? EndReason::kFinished
                           : status == RunStatus::kBudgetStopped ? EndReason::kBudgetStop
                           : status == RunStatus::kLost          ? EndReason::kLost
                           : status == RunStatus::kPaused        ? EndReason::kPaused
                           : status == RunStatus::kPruned        ? EndReason::kFinished
                                                                 : EndReason::kFailed;
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "UPDATE runs SET status = ?, end_ms = ? WHERE id = ? AND status = 'running' RETURNING id",
        std::vector<Value>{std::string(RunStatusName(status)), ToMillis(end), run}));
    if (rows.empty()) {
      return Fail(ErrorCode::kBadInput, fmt::format("run {} is unknown or already ended", run));
    }
    return c
        .Query(
            "UPDATE segments SET end_ms = CASE WHEN start_ms > ? THEN start_ms ELSE ? END, "
            "end_reason = ? WHERE run_id = ? AND end_ms IS NULL",
            std::vector<Value>{ToMillis(end), ToMillis(end), std::string(EndReasonName(reason)),
                               run})
        .map([](auto&&) {});
  });
}

Result<void> Ledger::ExtendLost(RunId run, Timestamp end) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("SELECT end_ms FROM runs WHERE id = ? AND status = 'lost' AND end_ms < ?",
                std::vector<Value>{run, ToMillis(end)}));
    if (rows.empty()) return {};
    // The sweep closed the open segment at the run's end (or at its start, when it began after
    // the last heartbeat); earlier attempts' lost segments end before it and stay as they are.
    FRUGAL_TRY(c.Query(
        "UPDATE segments SET end_ms = ? WHERE run_id = ? AND end_reason = 'lost' AND end_ms >= ?",
        std::vector<Value>{ToMillis(end), run, rows[0][0]}));
    return c
        .Query("UPDATE runs SET end_ms = ? WHERE id = ?", std::vector<Value>{ToMillis(end), run})
        .map([](auto&&) {});
  });
}

Result<void> Ledger::ReviseSegmentEnd(SegmentId segment, Timestamp end, EndReason reason) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("UPDATE segments SET end_ms = CASE WHEN start_ms > ? THEN start_ms ELSE ? END, "
                "end_reason = ? WHERE id = ? AND end_ms IS NOT NULL RETURNING id",
                std::vector<Value>{ToMillis(end), ToMillis(end), std::string(EndReasonName(reason)),
                                   segment}));
    if (rows.empty()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("segment {} is unknown or still open", segment));
    }
    return {};
  });
}

Result<void> Ledger::ReviseRunEnd(RunId run, RunStatus status, Timestamp end) {
  if (status == RunStatus::kRunning) {
    return Fail(ErrorCode::kBadInput, fmt::format("run {}: a run cannot end as running", run));
  }
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "UPDATE runs SET status = ?, end_ms = ? WHERE id = ? AND status <> 'running' RETURNING id",
        std::vector<Value>{std::string(RunStatusName(status)), ToMillis(end), run}));
    if (rows.empty()) {
      return Fail(ErrorCode::kBadInput, fmt::format("run {} is unknown or still running", run));
    }
    return {};
  });
}

Result<std::vector<RunId>> Ledger::SweepLost(Timestamp now, Duration stale_after) {
  const int64_t cutoff = ToMillis(now - stale_after);
  std::vector<RunId> lost;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    lost.clear();
    // The status check in the UPDATE itself makes a concurrent heartbeat or finish win.
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "UPDATE runs SET status = 'lost', end_ms = heartbeat_ms WHERE status = 'running' AND "
        "heartbeat_ms < ? RETURNING id, heartbeat_ms",
        std::vector<Value>{cutoff}));
    for (const Row& r : rows) {
      lost.push_back(AsInt(r[0]));
      FRUGAL_TRY(
          c.Query("UPDATE segments SET end_ms = CASE WHEN start_ms > ? THEN start_ms ELSE ? END, "
                  "end_reason = 'lost' WHERE run_id = ? AND end_ms IS NULL",
                  std::vector<Value>{r[1], r[1], r[0]}));
    }
    return {};
  });
  if (!done) return Fail(done.error());
  return lost;
}

Result<int64_t> Ledger::Downsample(Timestamp before, Duration bucket) {
  const int64_t bucket_ms = bucket.count();
  if (bucket_ms <= 0) return Fail(ErrorCode::kBadInput, "downsample bucket must be positive");
  int64_t removed = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    const std::vector<Value> params = {bucket_ms, bucket_ms, bucket_ms, ToMillis(before),
                                       bucket_ms};
    // Raw rows (and rows at a finer resolution) before the cut-off become one row per bucket.
    FRUGAL_TRY(c.Query(
        "INSERT INTO samples (run_id, time_ms, resolution_ms, gpu_util, sm_active, gpu_mem_bytes, "
        "power_watts, cpu_util, rss_bytes, io_wait, tensor_active) "
        "SELECT run_id, (time_ms / ?) * ?, ?, AVG(gpu_util), AVG(sm_active), "
        "AVG(gpu_mem_bytes), AVG(power_watts), AVG(cpu_util), AVG(rss_bytes), AVG(io_wait), "
        "AVG(tensor_active) FROM samples WHERE time_ms < ? AND resolution_ms < ? GROUP BY 1, 2",
        params));
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("DELETE FROM samples WHERE time_ms < ? AND resolution_ms < ? RETURNING 1",
                std::vector<Value>{ToMillis(before), bucket_ms}));
    removed = static_cast<int64_t>(rows.size());
    return {};
  });
  if (!done) return Fail(done.error());
  return removed;
}

// The advisory-lock space frugal's claims live in ('frug'), so they never meet another
// application's locks on a shared server.
constexpr int64_t kClaimSpace = 0x66727567;

Result<void> Ledger::ClaimExclusive(std::string_view key, std::string_view what) {
  if (db_->dialect() != Dialect::kPostgres) return {};
  const std::vector<Value> params{kClaimSpace, std::string(key)};
  // A holder that has just ended (a restart right after a kill) may keep its lock a moment: the
  // server drops it only once the old connection's backend has seen the close and exited. So a
  // refused claim is tried again for a short while before it is called in use.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (true) {
    std::vector<Row> got = FRUGAL_TRY(db_->Query(
        "SELECT CASE WHEN pg_try_advisory_lock(CAST(? AS integer), hashtext(?)) THEN 1 ELSE 0 "
        "END",
        params));
    if (AsInt(got.at(0).at(0)) == 1) return {};
    if (std::chrono::steady_clock::now() >= give_up) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // Who holds it, for the message; the claim is refused either way.
  std::vector<Row> holder = FRUGAL_TRY(
      db_->Query("SELECT COALESCE(host(a.client_addr), 'a local socket'), a.backend_start "
                 "FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
                 "WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2 "
                 "AND l.classid::text::bigint = ? AND l.objid::text::bigint = (hashtext(?)::bigint "
                 "& 4294967295)",
                 params));
  const std::string from =
      holder.empty() ? std::string() : " (a connection from " + AsText(holder.front().at(0)) + ")";
  return Fail(ErrorCode::kBadInput,
              fmt::format("{} is in use by another frugal process on {}{}: wait for it to end, "
                          "or stop it first",
                          what, db_->where(), from));
}

}  // namespace frugal::ledger

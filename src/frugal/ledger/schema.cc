#include "frugal/ledger/schema.h"

#include <fmt/format.h>

#include <string>

#include "frugal/core/log.h"
#include "frugal/ledger/focus_key.h"
#include "frugal/ledger/history_triggers.h"

namespace frugal::ledger {
namespace {

constexpr const char* kApplication = "frugal-ledger";

// Each migration's DDL; `{id}` becomes the dialect's auto-increment key column type.
constexpr const char* kVersion1 = R"sql(
CREATE TABLE frugal_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE runs (
  id {id}, name TEXT NOT NULL, command TEXT NOT NULL, spec TEXT NOT NULL,
  team TEXT NOT NULL, project TEXT NOT NULL, owner TEXT NOT NULL,
  status TEXT NOT NULL, start_ms BIGINT NOT NULL, end_ms BIGINT, heartbeat_ms BIGINT,
  budget_micros BIGINT, gpu_hours_cap DOUBLE PRECISION);
CREATE INDEX runs_start ON runs (start_ms);
CREATE INDEX runs_status ON runs (status, heartbeat_ms);
CREATE TABLE run_tags (
  run_id BIGINT NOT NULL REFERENCES runs (id), key TEXT NOT NULL, value TEXT NOT NULL,
  PRIMARY KEY (run_id, key));
CREATE TABLE segments (
  id {id}, run_id BIGINT NOT NULL REFERENCES runs (id),
  cloud TEXT NOT NULL, instance_type TEXT NOT NULL, region TEXT NOT NULL, zone TEXT,
  gpu TEXT, gpu_count BIGINT NOT NULL, tier TEXT NOT NULL,
  price_micros_per_hour BIGINT NOT NULL, on_demand_micros_per_hour BIGINT,
  start_ms BIGINT NOT NULL, end_ms BIGINT, end_reason TEXT);
CREATE INDEX segments_run ON segments (run_id);
CREATE INDEX segments_time ON segments (start_ms, end_ms);
CREATE TABLE events (
  id {id}, run_id BIGINT NOT NULL REFERENCES runs (id), segment_id BIGINT,
  time_ms BIGINT NOT NULL, type TEXT NOT NULL, payload TEXT NOT NULL);
CREATE INDEX events_run ON events (run_id, time_ms);
CREATE TABLE samples (
  run_id BIGINT NOT NULL, time_ms BIGINT NOT NULL, resolution_ms BIGINT NOT NULL,
  gpu_util DOUBLE PRECISION, sm_active DOUBLE PRECISION, gpu_mem_bytes DOUBLE PRECISION,
  power_watts DOUBLE PRECISION, cpu_util DOUBLE PRECISION, rss_bytes DOUBLE PRECISION,
  io_wait DOUBLE PRECISION);
CREATE INDEX samples_run_time ON samples (run_id, time_ms);
CREATE TABLE studies (
  id {id}, name TEXT NOT NULL UNIQUE, spec TEXT NOT NULL, objective TEXT NOT NULL,
  direction TEXT NOT NULL, state TEXT NOT NULL, budget_micros BIGINT,
  created_ms BIGINT NOT NULL);
CREATE TABLE trials (
  id {id}, study_id BIGINT NOT NULL REFERENCES studies (id), number BIGINT NOT NULL,
  config TEXT NOT NULL, state TEXT NOT NULL, cost_micros BIGINT NOT NULL,
  run_id BIGINT, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
  UNIQUE (study_id, number));
CREATE TABLE trial_rungs (
  trial_id BIGINT NOT NULL REFERENCES trials (id), rung BIGINT NOT NULL,
  fidelity DOUBLE PRECISION NOT NULL, value DOUBLE PRECISION NOT NULL, time_ms BIGINT NOT NULL,
  PRIMARY KEY (trial_id, rung));
)sql";

// Version 2: hourly rollups so reports never scan raw samples (back-filled from what is
// there), and imported billing rows.
constexpr const char* kVersion2 = R"sql(
CREATE TABLE sample_rollup (
  run_id BIGINT NOT NULL, hour_ms BIGINT NOT NULL, n BIGINT NOT NULL,
  gpu_util_n BIGINT NOT NULL, gpu_util_sum DOUBLE PRECISION NOT NULL,
  cpu_util_n BIGINT NOT NULL, cpu_util_sum DOUBLE PRECISION NOT NULL,
  gpu_mem_n BIGINT NOT NULL, gpu_mem_sum DOUBLE PRECISION NOT NULL,
  power_n BIGINT NOT NULL, power_sum DOUBLE PRECISION NOT NULL,
  io_wait_n BIGINT NOT NULL, io_wait_sum DOUBLE PRECISION NOT NULL,
  PRIMARY KEY (run_id, hour_ms));
INSERT INTO sample_rollup
  SELECT run_id, (time_ms / 3600000) * 3600000, COUNT(*),
    COUNT(gpu_util), COALESCE(SUM(gpu_util), 0), COUNT(cpu_util), COALESCE(SUM(cpu_util), 0),
    COUNT(gpu_mem_bytes), COALESCE(SUM(gpu_mem_bytes), 0), COUNT(power_watts),
    COALESCE(SUM(power_watts), 0), COUNT(io_wait), COALESCE(SUM(io_wait), 0)
  FROM samples GROUP BY run_id, (time_ms / 3600000) * 3600000;
CREATE TABLE billing_rows (
  id {id}, source TEXT NOT NULL, row_key TEXT NOT NULL UNIQUE,
  provider TEXT, billing_account_id TEXT, sub_account_id TEXT,
  charge_period_start_ms BIGINT NOT NULL, charge_period_end_ms BIGINT NOT NULL,
  billed_cost_micros BIGINT NOT NULL, effective_cost_micros BIGINT, list_cost_micros BIGINT,
  billing_currency TEXT, charge_category TEXT, pricing_category TEXT,
  service_name TEXT, resource_id TEXT, region_id TEXT, sku_id TEXT,
  consumed_quantity DOUBLE PRECISION, consumed_unit TEXT, tags TEXT NOT NULL,
  run_id BIGINT, imported_ms BIGINT NOT NULL);
CREATE INDEX billing_period ON billing_rows (charge_period_start_ms);
)sql";

// Version 3: the tuner's resumable study state (tables made by older tuners are kept), policy
// overrides (who proceeded past which rule, and why), and the tensor-core activity of samples.
constexpr const char* kVersion3 = R"sql(
CREATE TABLE IF NOT EXISTS tune_study_states (
  study_id BIGINT PRIMARY KEY REFERENCES studies (id), state TEXT NOT NULL,
  saved_ms BIGINT NOT NULL);
CREATE TABLE policy_overrides (
  id {id}, time_ms BIGINT NOT NULL, command TEXT NOT NULL, subject TEXT NOT NULL,
  rules TEXT NOT NULL, reason TEXT NOT NULL, user_name TEXT NOT NULL,
  team TEXT NOT NULL, project TEXT NOT NULL, policy_source TEXT NOT NULL,
  run_id BIGINT, study_id BIGINT);
CREATE INDEX policy_overrides_time ON policy_overrides (time_ms);
ALTER TABLE samples ADD COLUMN tensor_active DOUBLE PRECISION;
)sql";

// Version 4: the commitment discount of an imported FOCUS row, so the audit can judge
// commitments from the bill (the cost of their unused share) as well as from an inventory.
constexpr const char* kVersion4 = R"sql(
ALTER TABLE billing_rows ADD COLUMN commitment_discount_id TEXT;
ALTER TABLE billing_rows ADD COLUMN commitment_discount_name TEXT;
ALTER TABLE billing_rows ADD COLUMN commitment_discount_status TEXT;
)sql";

// Version 5: billing rows are keyed by their charge, not by the text of the file they came
// from (see focus_key.h). The old key is kept so that re-importing a file imported before still
// finds its rows; RecomputeChargeKeys then rewrites row_key.
constexpr const char* kVersion5 = R"sql(
ALTER TABLE billing_rows ADD COLUMN legacy_row_key TEXT;
UPDATE billing_rows SET legacy_row_key = row_key;
CREATE INDEX billing_legacy_key ON billing_rows (legacy_row_key);
)sql";

// Version 6: an imported row's ChargeDescription, where AWS names the instance type ("$3.06
// per On Demand Linux p3.2xlarge Instance Hour") that its ResourceId and SkuId do not.
constexpr const char* kVersion6 = R"sql(
ALTER TABLE billing_rows ADD COLUMN charge_description TEXT;
)sql";

// Version 7: measured profiles (`frugal profile`, docs/profile.md): what a command did on one
// machine, under a name, for plan and estimate to read (profiles.h).
constexpr const char* kVersion7 = R"sql(
CREATE TABLE profiles (
  id {id}, name TEXT NOT NULL, time_ms BIGINT NOT NULL, command TEXT NOT NULL,
  device TEXT NOT NULL, device_kind TEXT NOT NULL, device_count BIGINT NOT NULL,
  wall_ms BIGINT NOT NULL, measured_ms BIGINT NOT NULL, steps BIGINT NOT NULL,
  steps_per_second DOUBLE PRECISION NOT NULL, tokens_per_second DOUBLE PRECISION,
  samples_per_second DOUBLE PRECISION, peak_gpu_memory_bytes BIGINT,
  peak_rss_bytes BIGINT NOT NULL, cpu_cores DOUBLE PRECISION NOT NULL,
  ended TEXT NOT NULL, run_id BIGINT);
CREATE INDEX profiles_name_time ON profiles (name, time_ms);
)sql";

// Version 8: the job queue (`frugal queue`): waiting and placed jobs, and every placement
// decision the scheduler made for them.
constexpr const char* kVersion8 = R"sql(
CREATE TABLE queue_jobs (
  id {id}, name TEXT NOT NULL, state TEXT NOT NULL, command TEXT NOT NULL,
  request TEXT NOT NULL, submitted_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
  pool TEXT, devices TEXT, pid BIGINT, run_id TEXT, started_ms BIGINT, finished_ms BIGINT,
  exit_code BIGINT, expected_cost_micros BIGINT, reason TEXT);
CREATE INDEX queue_jobs_state ON queue_jobs (state);
CREATE TABLE queue_decisions (
  id {id}, job_id BIGINT NOT NULL REFERENCES queue_jobs (id), time_ms BIGINT NOT NULL,
  verdict TEXT NOT NULL, pool TEXT, start_ms BIGINT, finish_ms BIGINT, cost_micros BIGINT,
  on_demand_micros BIGINT, reason TEXT NOT NULL);
CREATE INDEX queue_decisions_job ON queue_decisions (job_id);
)sql";

// Version 9: what /metrics sums can be told unchanged without reading it again. The one row of
// `history_version` counts the changes to what the fleet's history sums (an ended segment, a
// checkpoint or resume event, a run's team or project); triggers keep it, so every writer
// counts, inside the transaction that made the change. `segments_end` finds the segments open
// at a time without walking the history.
constexpr const char* kVersion9 = R"sql(
CREATE INDEX segments_end ON segments (end_ms);
CREATE TABLE history_version (version BIGINT NOT NULL);
INSERT INTO history_version (version) VALUES (0);
)sql";

// Version 10: the change log that lets /metrics add what changed to its kept sums instead of
// summing the whole history again: `history_changes` (history_triggers.h: one row per change,
// numbered by the version it made, of kind 'ended', 'timed' or 'rewrite'), written by triggers
// that replace version 9's.
constexpr const char* kVersion10 = R"sql(
CREATE TABLE history_changes (
  version BIGINT PRIMARY KEY, kind TEXT NOT NULL, segment_id BIGINT, event_id BIGINT);
)sql";

struct Migration {
  const char* ddl;
  Result<void> (*then)(Connection&);  ///< a step SQL cannot do, or nullptr
};

constexpr Migration kMigrations[] = {{kVersion1, nullptr},
                                     {kVersion2, nullptr},
                                     {kVersion3, nullptr},
                                     {kVersion4, nullptr},
                                     {kVersion5, RecomputeChargeKeys},
                                     {kVersion6, nullptr},
                                     {kVersion7, nullptr},
                                     {kVersion8, nullptr},
                                     {kVersion9, CreateHistoryTriggers},
                                     {kVersion10, CreateChangeLogTriggers}};

std::string ForDialect(std::string ddl, Dialect dialect) {
  const std::string id_type =
      dialect == Dialect::kSqlite ? "INTEGER PRIMARY KEY" : "BIGSERIAL PRIMARY KEY";
  for (size_t at = ddl.find("{id}"); at != std::string::npos; at = ddl.find("{id}", at)) {
    ddl.replace(at, 4, id_type);
  }
  return ddl;
}

/// Names of the user tables in the database (the current schema on PostgreSQL).
Result<std::vector<std::string>> TableNames(Connection& db) {
  const char* sql = db.dialect() == Dialect::kSqlite
                        ? "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                          "'sqlite_%' ORDER BY name"
                        : "SELECT table_name FROM information_schema.tables WHERE table_schema = "
                          "current_schema() ORDER BY table_name";
  std::vector<Row> rows = FRUGAL_TRY(db.Query(sql));
  std::vector<std::string> names;
  names.reserve(rows.size());
  for (const Row& r : rows) names.push_back(AsText(r[0]));
  return names;
}

Result<int> ReadVersion(Connection& db) {
  std::vector<std::string> tables = FRUGAL_TRY(TableNames(db));
  if (tables.empty()) return 0;
  if (std::find(tables.begin(), tables.end(), "frugal_meta") == tables.end()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: not a frugal ledger (it holds other tables, e.g. '{}'); pass "
                            "another --db",
                            db.where(), tables.front()));
  }
  std::vector<Row> rows =
      FRUGAL_TRY(db.Query("SELECT key, value FROM frugal_meta WHERE key IN "
                          "('application', 'schema_version') ORDER BY key"));
  if (rows.size() != 2 || AsText(rows[0][1]) != kApplication) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: not a frugal ledger (frugal_meta is incomplete)", db.where()));
  }
  return static_cast<int>(AsInt(rows[1][1]));
}

}  // namespace

Result<int> SchemaVersion(Connection& db) { return ReadVersion(db); }

Result<void> MigrateSchema(Connection& db, int target_version) {
  FRUGAL_CHECK(target_version >= 1 && target_version <= kSchemaVersion);
  // The common case, an up-to-date ledger, needs no write lock (and works on a read-only file).
  const int current = FRUGAL_TRY(ReadVersion(db));
  if (current == target_version) return {};
  return Transact(db, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    if (c.dialect() == Dialect::kPostgres) {
      // Processes opening a fresh PostgreSQL ledger at once must not both create the tables.
      FRUGAL_TRY(c.Query("SELECT pg_advisory_xact_lock(7301)"));
    }
    const int version = FRUGAL_TRY(ReadVersion(c));
    if (version > kSchemaVersion) {
      return Fail(ErrorCode::kUnavailable,
                  fmt::format("{}: ledger schema version {} is newer than this frugal knows "
                              "({}); upgrade frugal",
                              c.where(), version, kSchemaVersion));
    }
    if (version >= target_version) return {};
    for (int v = version + 1; v <= target_version; ++v) {
      const Migration& m = kMigrations[v - 1];
      FRUGAL_TRY(c.ExecuteScript(ForDialect(m.ddl, c.dialect())));
      if (m.then != nullptr) FRUGAL_TRY(m.then(c));
    }
    const Value version_text = std::to_string(target_version);
    if (version == 0) {
      const Value app = std::string(kApplication);
      FRUGAL_TRY(c.Query("INSERT INTO frugal_meta (key, value) VALUES ('application', ?)",
                         std::vector<Value>{app}));
      FRUGAL_TRY(c.Query("INSERT INTO frugal_meta (key, value) VALUES ('schema_version', ?)",
                         std::vector<Value>{version_text}));
    } else {
      FRUGAL_TRY(c.Query("UPDATE frugal_meta SET value = ? WHERE key = 'schema_version'",
                         std::vector<Value>{version_text}));
      log::Info("{}: ledger migrated from schema {} to {}", c.where(), version, target_version);
    }
    return {};
  });
}

}  // namespace frugal::ledger

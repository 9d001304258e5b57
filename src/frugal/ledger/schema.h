#pragma once
// The ledger's on-disk schema and its forward migrations.
//
// Format (version 10; the versions that added a table are marked):
//   frugal_meta(key, value)    'application' = 'frugal-ledger', 'schema_version' = N
//   runs, run_tags             one row per run; tags other than team/project/owner in run_tags
//   segments                   one uninterrupted stretch on one offer; price and on-demand
//                              reference in micro-dollars per hour; times in UTC milliseconds
//   events                     typed, JSON payload
//   samples                    utilization readings; `resolution_ms` > 0 once downsampled
//   sample_rollup  (v2)        hourly sums per run, kept on insert; reports read these
//   studies, trials, trial_rungs   the tuner's studies
//   billing_rows   (v2)        imported FOCUS rows, apart from what frugal measured; their
//                              commitment discount id, name and status (v4); row_key is
//                              the charge key of focus_key.h, legacy_row_key the key an
//                              older frugal gave the row (v5); its ChargeDescription (v6)
//   profiles       (v7)        measured profiles by name (profiles.h)
//   queue_jobs, queue_decisions (v8)   the job queue: its jobs (the request as JSON, state,
//                              where it runs) and each placement decision made for them
//   history_version (v9)       one counter, bumped by triggers on every change to what the
//                              fleet's history sums (fleet.h: an ended segment, a checkpoint or
//                              resume event, a run's team or project); index segments_end
//   history_changes (v10)      the last changes that counter counted, one row each, numbered by
//                              the version it made: a segment that ended, a timed event, or a
//                              rewrite of what was summed (history_triggers.h); /metrics adds
//                              the first two to its kept sums (fleet_cache.h)
// A ledger at an older version is migrated forward inside one transaction when opened; one at
// a newer version is refused, never rewritten.

#include "frugal/core/error.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {

inline constexpr int kSchemaVersion = 10;

/// Brings the database to `target_version` (tests pass an older one to build old ledgers).
/// Creates the schema in an empty database. kBadInput when the database holds tables that are
/// not a frugal ledger; kUnavailable when its schema is newer than this binary knows.
[[nodiscard]] Result<void> MigrateSchema(Connection& db, int target_version = kSchemaVersion);

/// The schema version of an opened ledger (0 for an empty database).
[[nodiscard]] Result<int> SchemaVersion(Connection& db);

}  // namespace frugal::ledger

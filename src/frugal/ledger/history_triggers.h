#pragma once
// The triggers that keep the fleet's history version (schema 9) and its change log (schema 10)
// on `segments`, `events` and `runs`, for both dialects: every writer's change to what the
// history sums (fleet.h) is counted, and from schema 10 logged, inside the transaction that
// made it.
//
// Change log format (history_changes, schema 10): one row per change, numbered by the version
// it moved `history_version` to (taken under that row's lock, so on PostgreSQL a reader that
// sees version V committed sees every change numbered <= V). Kinds:
//   'ended'    a segment got its end (inserted with one, or an open one closed): segment_id
//   'timed'    a checkpoint_committed or resumed event was inserted: event_id, segment_id
//   'rewrite'  anything else the sums depend on: an ended segment changed or deleted, an event
//              changed or deleted, a checkpoint of a segment already ended preempted (its lost
//              work changes), a run's team, project or id changed, a run deleted
// The triggers keep the last kHistoryChangesKept changes and delete older ones.

#include <cstdint>
#include <string_view>

#include "frugal/core/error.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {

inline constexpr std::string_view kChangeEnded = "ended";
inline constexpr std::string_view kChangeTimed = "timed";
inline constexpr std::string_view kChangeRewrite = "rewrite";
/// How many changes history_changes keeps; a reader further behind sums the history again.
inline constexpr int64_t kHistoryChangesKept = 4096;

/// Schema 9's triggers: they bump `history_version` only.
[[nodiscard]] Result<void> CreateHistoryTriggers(Connection& db);

/// Schema 10: replaces schema 9's triggers with ones that also log each change.
[[nodiscard]] Result<void> CreateChangeLogTriggers(Connection& db);

}  // namespace frugal::ledger

#pragma once
// Row-level reads and writes of runs that the recorder, the journal catch-up and the queue's
// warm start make: kept here with the schema they touch.

#include <optional>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

/// The newest run named `name`, if any.
[[nodiscard]] Result<std::optional<RunId>> LatestRunNamed(Connection& db, const std::string& name);

/// Marks an ended run running again (its end cleared), with `heartbeat` when given: a run
/// resumed by its supervisor, or caught up from a journal that goes on past a sweep.
[[nodiscard]] Result<void> ReopenRun(Ledger& ledger, RunId run,
                                     std::optional<Timestamp> heartbeat = std::nullopt);

/// What one utilization row of a run covers: its time and resolution in milliseconds (the
/// bucket of a downsampled row).
struct SampleSpan {
  int64_t time_ms = 0;
  int64_t resolution_ms = 0;
};
[[nodiscard]] Result<std::vector<SampleSpan>> SampleSpansOf(Ledger& ledger, RunId run);

}  // namespace frugal::ledger

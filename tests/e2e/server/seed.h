#pragma once
// A small fleet written through the ledger API, for the server's tests, the browser test and
// the benchmark: three teams' runs on spot and on-demand capacity, a preemption with
// checkpoints, utilization samples, and one run still running (heartbeating now).

#include <filesystem>
#include <string>

#include "frugal/core/error.h"
#include "frugal/ledger/types.h"

namespace frugal::server_test {

/// The seeded figures the tests compare the API and the dashboard against.
struct SeededFleet {
  int64_t finished_run = 0;  ///< nlp-pretrain: spot, preempted, then on-demand; succeeded
  int64_t running_run = 0;   ///< nlp-live: one open spot segment
  int64_t vision_run = 0;    ///< vision-sweep: on-demand; succeeded
};

/// Writes the fleet into the SQLite ledger at `db` (created). Segment times are whole hours
/// before `now`.
[[nodiscard]] Result<SeededFleet> SeedFleet(const std::filesystem::path& db, ledger::Timestamp now);

/// The running run makes progress: a heartbeat and a utilization sample at `now`.
[[nodiscard]] Result<void> Progress(const std::filesystem::path& db, ledger::Timestamp now);

/// The running run ends: its segment closes and the run succeeds at `now`.
[[nodiscard]] Result<void> FinishLive(const std::filesystem::path& db, ledger::Timestamp now);

/// Adds `count` finished one-hour runs spread over the last 30 days (the benchmark's ledger),
/// in batches of one transaction each.
[[nodiscard]] Result<void> AddManyRuns(const std::filesystem::path& db, int64_t count,
                                       ledger::Timestamp now);

}  // namespace frugal::server_test

#pragma once
// The ledger a use case reads, lent by the front end, and what it recorded of a job: the
// measurements of earlier runs a plan or a run's estimate starts from.

#include <functional>
#include <optional>
#include <string>

#include "frugal/catalog/catalog.h"
#include "frugal/ledger/ledger.h"
#include "frugal/plan/job_spec.h"

namespace frugal::app {

/// Lends the ledger to one step; `create` says whether a missing ledger may be laid down (an
/// override is recorded) or not (measurements are read).
using LedgerUse = std::function<Result<void>(ledger::Ledger&)>;
using WithLedger = std::function<Result<void>(ledger::CreateMode create, const LedgerUse& use)>;

/// The command line's ledger (--db, $FRUGAL_DB or the data dir's): opened for each use. Reading
/// a default ledger not made yet finds nothing, and none is laid down.
[[nodiscard]] WithLedger LedgerAt(std::string db_flag);

/// Adds to `spec` what the ledger recorded of the job under its name: the newest measurement
/// of each GPU model its supervised runs and profiles took (run::AddLedgerMeasurements), unless
/// the spec has its own. A ledger that cannot be read is a warning, returned, never an error:
/// the plan goes on from the spec alone. No ledger: nothing is added.
[[nodiscard]] std::optional<std::string> AddRecordedMeasurements(plan::JobSpec& spec,
                                                                 const catalog::Catalog& catalog,
                                                                 const WithLedger& ledger);

}  // namespace frugal::app

#pragma once
// Where a lifetime bill's training cost comes from (`frugal tco`): the ledger's actual spend of
// a run or study (the caller's choice over the spec's), a stated figure, a job spec planned,
// or nothing. Serving sits below the ledger and does not choose where catalogs come from, so
// the front end hands both in as lookups.

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "frugal/serving/inference_spec.h"
#include "frugal/serving/lifetime.h"

namespace frugal::serving {

/// A ledger run (by its ledger number or the run id `frugal run` printed) or study named as the
/// source of a training cost; exactly one of the two is set.
struct LedgerTrainingRef {
  std::string run;
  std::string study;
};

/// What the front end reaches for serving.
struct TrainingLookups {
  /// The actual spend of a ledger run or study: `first` and `source` of a TrainingCost.
  std::function<Result<TrainingCost>(const LedgerTrainingRef& ref)> ledger_spend;
  /// The catalog with these custom offer files added (none: the front end's own catalog).
  std::function<Result<catalog::Catalog>(const std::vector<std::filesystem::path>& offer_files)>
      catalog;
  std::filesystem::path drills_dir;  ///< where a job spec's drill records are (LoadJobSpec)
};

/// The training cost of `spec`: `run` or `study` (flags; at most one) over the spec's own run or
/// study, else its stated cost, else its job spec planned on the catalog with the job's offer
/// files, else nothing ("not given"); the retraining cadence and cost from the spec (each
/// retraining costs the first by default). kBadInput for both `run` and `study`; the lookups'
/// and the planner's errors.
[[nodiscard]] Result<TrainingCost> ResolveTrainingCost(const TrainingSource& src,
                                                       const std::string& run,
                                                       const std::string& study,
                                                       const TrainingLookups& lookups);

}  // namespace frugal::serving

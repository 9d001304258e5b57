#include "frugal/serving/training_cost.h"

#include "frugal/plan/job_spec.h"

namespace frugal::serving {

Result<TrainingCost> ResolveTrainingCost(const TrainingSource& src, const std::string& run,
                                         const std::string& study, const TrainingLookups& lookups) {
  if (!run.empty() && !study.empty())
    return Fail(ErrorCode::kBadInput, "--run and --study: give at most one");
  // A flag replaces the spec's source of either kind.
  const LedgerTrainingRef ref{!run.empty() ? run : (study.empty() ? src.run : ""),
                              !study.empty() ? study : (run.empty() ? src.study : "")};
  TrainingCost t;
  if (!ref.run.empty() || !ref.study.empty()) {
    t = FRUGAL_TRY(lookups.ledger_spend(ref));
  } else if (src.cost) {
    t.first = *src.cost;
    t.source = "stated";
  } else if (!src.job.empty()) {
    const catalog::Catalog base = FRUGAL_TRY(lookups.catalog({}));
    const plan::JobSpec job =
        FRUGAL_TRY(plan::LoadJobSpec(src.job, base.gpu_names(), lookups.drills_dir));
    const catalog::Catalog c = FRUGAL_TRY(lookups.catalog(job.catalog_files));
    t.first = FRUGAL_TRY(PlannedTrainingCost(job, c, &t.source));
  } else {
    t.source = "not given (training: in the spec, or --run/--study)";
  }
  t.retrain_every_months = src.retrain_every_months.value_or(0);
  t.retrain = src.retrain_cost.value_or(t.first);
  return t;
}

}  // namespace frugal::serving

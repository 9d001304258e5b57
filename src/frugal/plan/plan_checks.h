#pragma once
// The checks a job spec passes against the catalog before it is planned, and the instance
// counts an option may use (which those checks and the planner share).

#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/plan/job_spec.h"

namespace frugal::plan {

/// How many instances of a GPU offer an option may use: one, and for 8-GPU (and larger)
/// instances doublings up to max_gpus; small instances are not clustered.
[[nodiscard]] std::vector<int> InstanceCounts(const catalog::Offer& o, int max_gpus);

/// kBadInput for a job of a family planned from measurements alone with none: none in the
/// spec, none (usable) in the ledger under its name.
[[nodiscard]] Result<void> CheckMeasuredFamily(const JobSpec& spec);

/// kBadInput for a measured profile naming an offer no catalog offer matches: a typo there
/// would otherwise leave the profile unused and the plan silently modelled.
[[nodiscard]] Result<void> CheckProfileOffers(const JobSpec& spec, const catalog::Catalog& c);

/// kBadInput for a measured profile naming a GPU (and count) that no option can have: no offer
/// rents that GPU, or none at that count under the planner's layouts and max_gpus.
[[nodiscard]] Result<void> CheckProfileGpus(const JobSpec& spec, const catalog::Catalog& c);

/// kBadInput for a constraints.clouds entry no catalog offer (custom ones included) is from:
/// a typo there would otherwise exclude every offer as "not in constraints.clouds".
[[nodiscard]] Result<void> CheckClouds(const JobSpec& spec, const catalog::Catalog& c);

}  // namespace frugal::plan

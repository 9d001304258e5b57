#pragma once
// The JSON documents of the commitment calculator (commitment.h), built once here for any
// front end: `frugal commit --json` (docs/commit.md) and the `commitment` object of
// `frugal estimate --commitment --json` (docs/estimate.md).

#include <nlohmann/json.hpp>

#include "frugal/estimate/commitment.h"

namespace frugal::estimate {

/// `frugal commit`: gpu, gpus, hours_per_month, utilization, on_demand, spot, commitments
/// (each offer: tier, offer, instance_type, gpus_per_instance, instances, price_per_hour_usd,
/// price_estimated, monthly_usd; a commitment adds break_even_vs_on_demand and
/// break_even_vs_spot) and winner.
[[nodiscard]] nlohmann::json CommitmentAnalysisJson(const CommitmentAnalysis& a);

/// `frugal estimate --commitment`: term, gpu, gpus, instances, offer, price_estimated,
/// utilization, monthly_commitment_usd, monthly_on_demand_usd, monthly_spot_usd,
/// break_even_utilization_vs_on_demand, break_even_utilization_vs_spot, pays_vs_on_demand,
/// pays_vs_spot.
[[nodiscard]] nlohmann::json CommitmentAnswerJson(const CommitmentAnalysis& a,
                                                  const CommitmentAnswer& answer);

}  // namespace frugal::estimate

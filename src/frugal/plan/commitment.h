#pragma once
// Commitments, honestly: would a 1- or 3-year commitment of N GPUs pay at a stated utilization?
//
// A commitment is paid for every hour of the month whether the GPUs are used or not
// (kHoursPerMonth = 730 h); on-demand and spot are paid only for the hours used
// (utilization × 730 h). For the cheapest matching offer of each tier this computes the monthly
// cost, the break-even utilization of each commitment term against on-demand and against spot
// (commitment monthly cost ÷ that tier's cost for a full month: above it the commitment is
// cheaper), and the tier that wins at the stated utilization. Spot's interruptions are not
// priced here: a spot figure is the price of the hours, not of finishing the work.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"

namespace frugal::plan {

/// Hours in an average month (8760 / 12), the unit commitments are billed in.
inline constexpr int64_t kHoursPerMonth = 730;

struct CommitmentQuery {
  std::string gpu;  ///< canonical name or alias ("A100-80GB")
  int gpus = 1;     ///< GPUs wanted; whole instances are rented to cover them
  /// Share of the month the GPUs are busy, in (0, 1]; unset: break-evens only.
  std::optional<double> utilization;
  std::optional<std::string> cloud;  ///< only this cloud's offers
};

/// The cheapest way to get the GPUs on one tier.
struct TierQuote {
  catalog::Tier tier = catalog::Tier::kOnDemand;
  catalog::Offer offer;  ///< the instance rented
  int instances = 1;     ///< ceil(gpus / offer.gpu_count)
  Rate hourly;           ///< instances × the offer's price
  /// Commitments: hourly × 730 h. On-demand and spot: hourly × utilization × 730 h (unset
  /// without a utilization).
  std::optional<Money> monthly;
};

/// One commitment term against the pay-as-you-go tiers.
struct CommitmentTerm {
  TierQuote quote;
  /// Commitment monthly ÷ on-demand for a full month; unset when there is no on-demand offer.
  std::optional<double> break_even_vs_on_demand;
  /// The same against spot; above 1 the commitment never beats spot's price.
  std::optional<double> break_even_vs_spot;
};

struct CommitmentAnalysis {
  std::string gpu;
  int gpus = 1;
  std::optional<double> utilization;
  std::optional<TierQuote> on_demand;
  std::optional<TierQuote> spot;
  std::vector<CommitmentTerm> commitments;  ///< 1-year first, then 3-year; only those offered
  /// The cheapest tier at the stated utilization (unset without one).
  std::optional<catalog::Tier> winner;
};

/// Parses a utilization: "60%" (percent, 0 < p ≤ 100) or a fraction "0.6" (0 < f ≤ 1).
/// kBadInput otherwise, naming --utilization.
[[nodiscard]] Result<double> ParseUtilization(std::string_view text);

/// Monthly cost of renting at `hourly` for `share` of 730 hours, rounded to the micro-dollar.
/// A share of 1 is exact: hourly × 730 h.
[[nodiscard]] Money MonthlyCost(Rate hourly, double share);

/// Analyzes the query against the catalog. kBadInput for an unknown GPU or cloud, a GPU count
/// below 1, a utilization outside (0, 1], or no commitment offer for that GPU (the message
/// says which tiers exist).
[[nodiscard]] Result<CommitmentAnalysis> AnalyzeCommitment(const catalog::Catalog& catalog,
                                                           const CommitmentQuery& query);

}  // namespace frugal::plan

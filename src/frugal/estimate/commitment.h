#pragma once
// Commitments, honestly: a reservation is paid whether it is used or not, so it is never a
// per-job price. A job is charged its share of one only at a stated utilization, and the
// question a team can ask is whether a 1- or 3-year commitment of N GPUs would pay. This is
// the one calculator behind `frugal commit` and `frugal estimate --commitment`.
//
// Prices are per instance-hour (an offer's price covers all its GPUs). N GPUs are laid out as
// the estimator places one job's GPUs: up to 8 share one instance with at least N GPUs, more take
// whole instances of at least 8 (small instances are not clustered); instances = ceil(N / GPUs
// per instance). Every tier is priced on the SAME layout (GPUs per instance and instance count):
// the smallest one, in GPUs paid for, that has a commitment and an on-demand offer. Within it
// each tier takes its cheapest offer.
//
// A commitment is paid for every hour of the month (kHoursPerMonth = 730 h); on-demand and spot
// only for the hours used (utilization × 730 h). Break-even utilization = the commitment's
// monthly cost ÷ the other tier's monthly cost at 100% use (hourly × 730 h): above it the
// commitment is cheaper; above 1 it never pays. Spot's interruptions are not priced here: a
// spot figure is the price of the hours, not of finishing the work.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/estimate/hardware.h"

namespace frugal::estimate {

/// Hours in an average month (8760 / 12), the unit commitments are billed in.
inline constexpr int64_t kHoursPerMonth = 730;

/// Reserved tiers among `costs` as a job pays them: dropped without `utilization`; with it,
/// price × wall hours ÷ utilization (the idle share of the reservation is the job's cost too).
/// kBadInput for a utilization outside (0, 1].
[[nodiscard]] Result<void> ApplyReservedUtilization(std::vector<TierCost>& costs,
                                                    std::optional<double> utilization,
                                                    double wall_hours);

struct CommitmentQuery {
  std::string gpu;  ///< canonical name or alias ("A100-80GB")
  int gpus = 1;     ///< GPUs wanted; whole instances of the layout cover them
  /// Share of the month the GPUs are busy, in (0, 1]; unset: break-evens only.
  std::optional<double> utilization;
  std::optional<std::string> cloud;  ///< only this cloud's offers
};

/// The cheapest offer of one tier on the analysis's layout.
struct TierQuote {
  CapacityTier tier = CapacityTier::kOnDemand;
  catalog::Offer offer;  ///< the instance rented
  int instances = 1;     ///< ceil(gpus / offer.gpu_count)
  Rate hourly;           ///< instances × the offer's price per instance-hour
  /// Commitments: hourly × 730 h. On-demand and spot: hourly × utilization × 730 h (unset
  /// without a utilization).
  std::optional<Money> monthly;
};

/// One commitment term against the pay-as-you-go tiers on the same layout.
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
  int gpus_per_instance = 1;  ///< the layout every tier is priced on
  std::optional<double> utilization;
  std::optional<TierQuote> on_demand;
  std::optional<TierQuote> spot;
  std::vector<CommitmentTerm> commitments;  ///< 1-year first, then 3-year; only those offered
  /// The cheapest tier at the stated utilization (unset without one).
  std::optional<CapacityTier> winner;

  /// The term's entry, or nullptr when the layout has no offer on it.
  [[nodiscard]] const CommitmentTerm* Term(CapacityTier term) const;
};

/// Parses a utilization: "60%" (percent, 0 < p ≤ 100) or a fraction "0.6" (0 < f ≤ 1).
/// kBadInput otherwise, naming --utilization.
[[nodiscard]] Result<double> ParseUtilization(std::string_view text);

/// Parses a commitment term: "1y" or "reserved_1y", "3y" or "reserved_3y". kBadInput otherwise,
/// naming --commitment.
[[nodiscard]] Result<CapacityTier> ParseCommitmentTerm(std::string_view text);

/// Monthly cost of renting at `hourly` for `share` of 730 hours, rounded to the micro-dollar.
/// A share of 1 is exact: hourly × 730 h.
[[nodiscard]] Money MonthlyCost(Rate hourly, double share);

/// Analyzes the query against the catalog. kBadInput for an unknown GPU or cloud, a GPU count
/// below 1, a utilization outside (0, 1], or no commitment offer for that GPU (the message
/// says which tiers exist).
[[nodiscard]] Result<CommitmentAnalysis> AnalyzeCommitment(const catalog::Catalog& catalog,
                                                           const CommitmentQuery& query);

/// One term of an analysis made at a utilization, as `frugal estimate --commitment` answers.
struct CommitmentAnswer {
  const CommitmentTerm* term = nullptr;  ///< into the analysis
  const TierQuote* on_demand = nullptr;  ///< into the analysis
  const TierQuote* spot = nullptr;       ///< into the analysis; nullptr: no spot offer
  bool pays_vs_on_demand = false;        ///< utilization above the break-even
  bool pays_vs_spot = false;             ///< utilization above the break-even against spot
};

/// The answer for `term` from an analysis made with a utilization. kBadInput when the layout has
/// no offer on that term or on demand.
[[nodiscard]] Result<CommitmentAnswer> AnswerFor(const CommitmentAnalysis& analysis,
                                                 CapacityTier term);

}  // namespace frugal::estimate

#pragma once
// Prices no price list gives, derived by documented rules:
// - reserved_1y / reserved_3y = on-demand × (1 − discount), per cloud and term
//   (data/catalog/reserved_discounts.csv), always flagged estimated;
// - the expected preemption rate of a spot offer, per cloud, GPU and GPU count, with how often
//   capacity can be launched and how long it stays away (data/catalog/preemption_rates.csv,
//   format version 2: cloud,gpu,min_gpus,preemptions_per_hour,available_share,
//   mean_outage_hours,source; version 1 had no min_gpus, available_share or mean_outage_hours,
//   read as 0, 1 and 0), which users can override.

#include <filesystem>
#include <string>
#include <vector>

#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

struct ReservedDiscount {
  std::string cloud;
  CapacityTier term = CapacityTier::kReserved1y;
  double discount = 0;  ///< fraction off on-demand, in [0, 1)
  std::string source;
};

struct PreemptionRate {
  std::string cloud;  ///< "*" for any
  std::string gpu;    ///< canonical name, a prefix ending in '*' ("H100*"), or "*"
  double per_hour = 0;
  std::string source;
  int min_gpus = 0;              ///< matches instances of at least this many GPUs
  double available_share = 1;    ///< share of the time capacity can be launched
  double mean_outage_hours = 0;  ///< mean stretch without capacity

  [[nodiscard]] bool Matches(const Offer& o) const;
};

[[nodiscard]] Result<std::vector<ReservedDiscount>> ReadReservedDiscounts(
    const std::filesystem::path& path);
[[nodiscard]] Result<std::vector<PreemptionRate>> ReadPreemptionRates(
    const std::filesystem::path& path);

/// How many offers DeriveReservedOffers appends to `offers` (to reserve the room once).
[[nodiscard]] size_t CountReservedOffers(const std::vector<ReservedDiscount>& discounts,
                                         const std::vector<Offer>& offers);
/// Appends a reserved offer per on-demand offer and term its cloud has a discount for.
void DeriveReservedOffers(const std::vector<ReservedDiscount>& discounts,
                          std::vector<Offer>& offers);
/// Sets preemptions_per_hour and spot_risk on every spot offer from the first matching rule
/// (rules earlier in the list win, so user overrides go first).
void ApplyPreemptionRates(const std::vector<PreemptionRate>& rates, std::vector<Offer>& offers);

}  // namespace frugal::catalog

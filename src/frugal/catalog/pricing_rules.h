#pragma once
// Prices no price list gives, derived by documented rules:
// - reserved_1y / reserved_3y = on-demand × (1 − discount), per cloud and term
//   (data/catalog/reserved_discounts.csv), always flagged estimated;
// - the expected preemption rate of a spot offer, per cloud and GPU
//   (data/catalog/preemption_rates.csv), which users can override.

#include <filesystem>
#include <string>
#include <vector>

#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

struct ReservedDiscount {
  std::string cloud;
  Tier term = Tier::kReserved1y;
  double discount = 0;  ///< fraction off on-demand, in [0, 1)
  std::string source;
};

struct PreemptionRate {
  std::string cloud;  ///< "*" for any
  std::string gpu;    ///< canonical name, a prefix ending in '*' ("H100*"), or "*"
  double per_hour = 0;
  std::string source;

  [[nodiscard]] bool Matches(const Offer& o) const;
};

[[nodiscard]] Result<std::vector<ReservedDiscount>> ReadReservedDiscounts(
    const std::filesystem::path& path);
[[nodiscard]] Result<std::vector<PreemptionRate>> ReadPreemptionRates(
    const std::filesystem::path& path);

/// Appends a reserved offer per on-demand offer and term its cloud has a discount for.
void DeriveReservedOffers(const std::vector<ReservedDiscount>& discounts,
                          std::vector<Offer>& offers);
/// Sets preemptions_per_hour on every spot offer from the first matching rule (rules earlier in
/// the list win, so user overrides go first).
void ApplyPreemptionRates(const std::vector<PreemptionRate>& rates, std::vector<Offer>& offers);

}  // namespace frugal::catalog

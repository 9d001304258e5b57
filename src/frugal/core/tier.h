#pragma once
// The tier capacity is paid on, as the ledger records it and every report and rule reads it:
// one name per tier, parsed and written here only. Owned capacity (on-prem, a cluster bought
// outright) is a tier of its own: paid for whether used or idle, never preempted, never a
// candidate for spot. The catalog's offers use the rented tiers only (catalog/offer.h): an
// offer's tier is read with ParseRentedTier.

#include <optional>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

enum class CapacityTier { kOnDemand, kSpot, kReserved1y, kReserved3y, kOwned };

/// "on_demand", "spot", "reserved_1y", "reserved_3y", "owned".
[[nodiscard]] std::string_view CapacityTierName(CapacityTier tier);
/// The names above, any case and surrounding blanks, and the spellings "ondemand",
/// "on-demand", "od", "preemptible", "reserved-1y", "reserved-3y"; kBadInput naming the known
/// tiers (with a suggestion) otherwise.
[[nodiscard]] Result<CapacityTier> ParseCapacityTier(std::string_view text);
/// The tier `text` is the name of, spelled exactly as CapacityTierName writes it (no other case,
/// blank or spelling): for a file that states a tier by its one name. Nullopt otherwise.
[[nodiscard]] std::optional<CapacityTier> TierNamed(std::string_view text);

/// Whether capacity of `tier` is rented (an offer of the catalog can carry it): every tier
/// but owned.
[[nodiscard]] constexpr bool IsRentedTier(CapacityTier tier) {
  return tier != CapacityTier::kOwned;
}
/// Whether `tier` is a commitment: reserved for one or three years.
[[nodiscard]] constexpr bool IsReservedTier(CapacityTier tier) {
  return tier == CapacityTier::kReserved1y || tier == CapacityTier::kReserved3y;
}
/// ParseCapacityTier for a tier capacity is rented on (an offer's, a query's, a spec's
/// `tiers:`): "owned" is kBadInput (owned capacity is not rented, so never an offer and never
/// a spot candidate), as is what ParseCapacityTier refuses, naming the rented tiers.
[[nodiscard]] Result<CapacityTier> ParseRentedTier(std::string_view text);

}  // namespace frugal

#pragma once
// The one rule for "the same instance in the same place on another tier": what a spot run's
// on-demand reference price is (run, tune), what a commitment's break-even divides by
// (serving, audit), and what an on-demand fleet would commit to (audit).

#include <optional>
#include <string>

#include "frugal/catalog/catalog.h"

namespace frugal::catalog {

/// What names an instance's place: cloud, instance type, region and zone ("" = none).
struct OfferPlace {
  std::string cloud;
  std::string instance_type;
  std::string region;
  std::string zone;
};

[[nodiscard]] OfferPlace PlaceOf(const Offer& offer);

/// The offer of `tier` for the same instance in the same place: same cloud, instance type and
/// region, and either priced for the whole region or in `at`'s zone; the cheapest where
/// several match. nullptr when the catalog has none.
[[nodiscard]] const Offer* TwinOffer(const Catalog& c, const OfferPlace& at, CapacityTier tier);

/// The on-demand price of `offer`'s instance in its place: its own price when it is on demand,
/// else its on-demand twin's; nullopt when the catalog has none.
[[nodiscard]] std::optional<Rate> OnDemandTwinPrice(const Catalog& c, const Offer& offer);

}  // namespace frugal::catalog

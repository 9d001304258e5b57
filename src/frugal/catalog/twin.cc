#include "frugal/catalog/twin.h"

namespace frugal::catalog {

OfferPlace PlaceOf(const Offer& offer) {
  return {offer.cloud, offer.instance_type, offer.region, offer.zone};
}

const Offer* TwinOffer(const Catalog& c, const OfferPlace& at, CapacityTier tier) {
  const Offer* best = nullptr;
  for (const Offer& o : c.offers()) {
    if (o.tier != tier || o.cloud != at.cloud || o.instance_type != at.instance_type ||
        o.region != at.region || (!o.zone.empty() && o.zone != at.zone)) {
      continue;
    }
    if (best == nullptr || o.price.per_hour < best->price.per_hour) best = &o;
  }
  return best;
}

std::optional<Rate> OnDemandTwinPrice(const Catalog& c, const Offer& offer) {
  if (offer.tier == CapacityTier::kOnDemand) return offer.price;
  if (const Offer* twin = TwinOffer(c, PlaceOf(offer), CapacityTier::kOnDemand)) return twin->price;
  return std::nullopt;
}

}  // namespace frugal::catalog

#pragma once
// The JSON document of a list of offers: what `frugal catalog offers --json` prints and what
// the server's /api/v1/catalog/offers returns.

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/catalog/offer.h"

namespace frugal::catalog {

/// One offer: where, what, tier, price per hour and per GPU-hour, spot preemption rate, source.
[[nodiscard]] nlohmann::json OfferJson(const Offer& o);

/// {"offers": [...], "count": N, "snapshot_date": ...}.
[[nodiscard]] nlohmann::json OfferListJson(const std::vector<const Offer*>& offers,
                                           const std::string& snapshot_date);

}  // namespace frugal::catalog

#pragma once
// Robust spot prices: a spot offer whose listed price is far below its peers' (one zone's
// p4d.24xlarge at $2.47/h when the same instance type lists a median of $8.19/h in 24 zones) is
// a stale or momentary quote, not a price to plan a run on. Such offers are flagged and planned
// at their peers' lower quartile; listings still show the listed price.

#include <vector>

#include "frugal/catalog/offer.h"

namespace frugal::catalog {

/// A listed spot price below this share of its peers' median is an outlier.
inline constexpr double kSpotOutlierShare = 0.5;
/// Fewer peers than this say nothing about an outlier.
inline constexpr int kMinSpotPeers = 5;

/// Flags outliers among the spot offers (Offer::spot_outlier): peers are the spot offers of the
/// same cloud and instance type in other zones and regions when there are kMinSpotPeers, else
/// every spot offer of the same GPU and count. Prices compared per GPU-hour.
void CheckSpotPrices(std::vector<Offer>& offers);

}  // namespace frugal::catalog

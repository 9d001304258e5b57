#pragma once
// Robust spot prices: a spot offer whose listed price is far below its peers' (one zone's
// p4d.24xlarge at $2.47/h when the same instance type lists a median of $8.19/h in 24 zones) is
// a stale or momentary quote, not a price to plan a run on. Such offers are flagged and planned
// at their peers' lower quartile; listings still show the listed price.
//
// Two rules flag a price. Anywhere: below half the peers' median. Where a cloud's spot quotes
// move with the market (data/catalog/spot_markets.csv: AWS per zone, Azure per region), also
// below Tukey's lower fence of the peers (Q1 - 1.5 x IQR) and under 3/4 of their median: one
// zone's p6-b200.48xlarge at $13.03/h against eight others at $21-$28/h. Where the cloud posts a
// price for weeks (GCP, at most one change in 30 days) a tight cluster of regional prices says
// nothing about a cheaper region, so only the first rule applies.

#include <filesystem>
#include <string>
#include <vector>

#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

/// A listed spot price below this share of its peers' median is an outlier.
inline constexpr double kSpotOutlierShare = 0.5;
/// Fewer peers than this say nothing about an outlier.
inline constexpr int kMinSpotPeers = 5;
/// Where quotes move, a price below the peers' lower fence and this share of their median.
inline constexpr double kSpotFenceShare = 0.75;

/// Whether a cloud's spot quotes move with the market (a row of spot_markets.csv).
struct SpotMarket {
  std::string cloud;
  bool price_moves = true;
  std::string source;
};

/// Reads data/catalog/spot_markets.csv (`cloud,price_moves,source`; price_moves yes or no).
[[nodiscard]] Result<std::vector<SpotMarket>> ReadSpotMarkets(const std::filesystem::path& path);

/// Flags outliers among the spot offers (Offer::spot_outlier): peers are the spot offers of the
/// same cloud and instance type in other zones and regions when there are kMinSpotPeers, else
/// every spot offer of the same GPU and count. Prices compared per GPU-hour. A cloud `markets`
/// does not name is taken as one whose quotes move.
void CheckSpotPrices(std::vector<Offer>& offers, const std::vector<SpotMarket>& markets = {});

}  // namespace frugal::catalog

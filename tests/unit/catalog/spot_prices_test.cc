#include "frugal/catalog/spot_prices.h"

#include <gtest/gtest.h>

namespace frugal::catalog {
namespace {

Offer Spot(std::string zone, double dollars, int gpus = 8) {
  Offer o;
  o.cloud = "aws";
  o.instance_type = "p4d.24xlarge";
  o.region = "us-east-1";
  o.zone = std::move(zone);
  o.gpu = "A100-40GB";
  o.gpu_count = gpus;
  o.tier = Tier::kSpot;
  o.price = Rate{Money::FromDollars(dollars)};
  return o;
}

// One zone's p4d at $2.47/h when the others list $6-$13: planned at the peers' lower quartile,
// and the listed price kept for listings.
TEST(SpotPrices, OneZonesPriceFarBelowItsPeersIsAnOutlierPlannedAtTheirLowerQuartile) {
  std::vector<Offer> offers = {Spot("a", 2.47),  Spot("b", 6.04), Spot("c", 6.10),
                               Spot("d", 7.52),  Spot("e", 8.19), Spot("f", 9.73),
                               Spot("g", 10.65), Spot("h", 13.34)};
  CheckSpotPrices(offers);
  ASSERT_TRUE(offers[0].spot_outlier.has_value());
  EXPECT_EQ(offers[0].spot_outlier->peers, 8);
  EXPECT_TRUE(offers[0].spot_outlier->same_instance_type);
  EXPECT_EQ(offers[0].price.per_hour, Money::FromDollars(2.47));
  EXPECT_EQ(offers[0].PlannedRate().per_hour, Money::FromDollars(6.10));
  EXPECT_NEAR(offers[0].spot_outlier->median.dollars(), 8.19, 0.01);
  for (size_t i = 1; i < offers.size(); ++i) {
    EXPECT_FALSE(offers[i].spot_outlier.has_value()) << offers[i].zone;
    EXPECT_EQ(offers[i].PlannedRate().per_hour, offers[i].price.per_hour);
  }
}

TEST(SpotPrices, TooFewPeersFlagNothing) {
  std::vector<Offer> offers = {Spot("a", 1.0), Spot("b", 9.0), Spot("c", 9.0), Spot("d", 9.0)};
  CheckSpotPrices(offers);
  for (const Offer& o : offers) EXPECT_FALSE(o.spot_outlier.has_value()) << o.zone;
}

}  // namespace
}  // namespace frugal::catalog

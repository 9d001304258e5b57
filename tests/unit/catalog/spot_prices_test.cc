#include "frugal/catalog/spot_prices.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::catalog {
namespace {

Offer Spot(std::string zone, double dollars, int gpus = 8, std::string cloud = "aws") {
  Offer o;
  o.cloud = std::move(cloud);
  o.instance_type = "p4d.24xlarge";
  o.region = "us-east-1";
  o.zone = std::move(zone);
  o.gpu = "A100-40GB";
  o.gpu_count = gpus;
  o.tier = CapacityTier::kSpot;
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

// The shipped p6-b200.48xlarge: one zone at $13.03/h (0.58x the median) against eight zones at
// $21-$28/h. Not below half the median, but far below the tight cluster where quotes move.
std::vector<Offer> B200Zones(const std::string& cloud) {
  std::vector<Offer> offers;
  for (const double price : {13.03, 21.01, 21.15, 21.73, 22.56, 23.08, 25.11, 28.44}) {
    offers.push_back(Spot("z" + std::to_string(offers.size()), price, 8, cloud));
  }
  return offers;
}

TEST(SpotPrices, WhereQuotesMoveAPriceBelowTheirLowerFenceIsAnOutlier) {
  std::vector<Offer> offers = B200Zones("aws");
  CheckSpotPrices(offers, {{"aws", true, "test"}});
  ASSERT_TRUE(offers[0].spot_outlier.has_value());
  EXPECT_EQ(offers[0].PlannedRate().per_hour, Money::FromDollars(21.15));
  for (size_t i = 1; i < offers.size(); ++i) EXPECT_FALSE(offers[i].spot_outlier.has_value());
  // A cloud the table does not name is taken as a moving market.
  std::vector<Offer> unnamed = B200Zones("other");
  CheckSpotPrices(unnamed, {{"aws", false, "test"}});
  EXPECT_TRUE(unnamed[0].spot_outlier.has_value());
}

TEST(SpotPrices, WhereACloudPostsItsPricesOnlyHalfTheMedianFlags) {
  std::vector<Offer> offers = B200Zones("gcp");
  CheckSpotPrices(offers, {{"gcp", false, "test"}});
  for (const Offer& o : offers) EXPECT_FALSE(o.spot_outlier.has_value()) << o.zone;
  offers[0].price = Rate{Money::FromDollars(10.0)};
  CheckSpotPrices(offers, {{"gcp", false, "test"}});
  EXPECT_TRUE(offers[0].spot_outlier.has_value());
}

// A price a little under a wide spread is no outlier: the fence needs 3/4 of the median too.
TEST(SpotPrices, APriceNearTheMedianIsNoOutlierEvenBelowATightFence) {
  std::vector<Offer> offers;
  for (const double price : {18.0, 21.0, 21.0, 21.0, 21.1, 21.2, 21.2}) {
    offers.push_back(Spot("z" + std::to_string(offers.size()), price));
  }
  CheckSpotPrices(offers, {{"aws", true, "test"}});
  for (const Offer& o : offers) EXPECT_FALSE(o.spot_outlier.has_value()) << o.zone;
}

TEST(SpotPrices, ABadMarketsTableIsBadInputNamingTheField) {
  testing::TempDir dir;
  const auto path = dir.path() / "spot_markets.csv";
  testing::WriteTestFile(path, "cloud,price_moves,source\naws,maybe,x\n");
  const auto read = ReadSpotMarkets(path);
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::kBadInput);
  EXPECT_NE(read.error().message.find("spot_markets.csv:2"), std::string::npos)
      << read.error().message;
  EXPECT_NE(read.error().message.find("price_moves"), std::string::npos);
}

}  // namespace
}  // namespace frugal::catalog

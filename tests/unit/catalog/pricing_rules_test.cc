#include "frugal/catalog/pricing_rules.h"

#include <gtest/gtest.h>

#include "frugal/core/paths.h"

namespace frugal::catalog {
namespace {

Offer MakeOffer(std::string cloud, std::string gpu, CapacityTier tier, int64_t cents) {
  Offer o;
  o.cloud = std::move(cloud);
  o.gpu = std::move(gpu);
  o.gpu_count = 1;
  o.tier = tier;
  o.price = Rate{Money::FromCents(cents)};
  return o;
}

TEST(PricingRules, DerivesReservedTiersFromOnDemandAndFlagsThemEstimated) {
  std::vector<Offer> offers = {MakeOffer("gcp", "L4", CapacityTier::kOnDemand, 1000),
                               MakeOffer("gcp", "L4", CapacityTier::kSpot, 300),
                               MakeOffer("vast", "L4", CapacityTier::kOnDemand, 500)};
  DeriveReservedOffers(
      {{"gcp", CapacityTier::kReserved1y, 0.37, ""}, {"gcp", CapacityTier::kReserved3y, 0.55, ""}},
      offers);
  ASSERT_EQ(offers.size(), 5u);
  EXPECT_EQ(offers[3].tier, CapacityTier::kReserved1y);
  EXPECT_EQ(offers[3].price.per_hour, Money::FromCents(630));
  EXPECT_TRUE(offers[3].price_estimated);
  EXPECT_EQ(offers[4].tier, CapacityTier::kReserved3y);
  EXPECT_EQ(offers[4].price.per_hour, Money::FromCents(450));
  EXPECT_FALSE(offers[0].price_estimated);
}

TEST(PricingRules, FirstMatchingPreemptionRuleWinsSoOverridesGoFirst) {
  std::vector<Offer> offers = {MakeOffer("aws", "H100-80GB-SXM", CapacityTier::kSpot, 100),
                               MakeOffer("aws", "T4", CapacityTier::kSpot, 100),
                               MakeOffer("aws", "T4", CapacityTier::kOnDemand, 100),
                               MakeOffer("oci", "T4", CapacityTier::kSpot, 100)};
  ApplyPreemptionRates(
      {{"aws", "H100*", 0.9, "override"}, {"aws", "*", 0.3, ""}, {"*", "*", 0.2, ""}}, offers);
  EXPECT_DOUBLE_EQ(offers[0].preemptions_per_hour, 0.9);
  EXPECT_DOUBLE_EQ(offers[1].preemptions_per_hour, 0.3);
  EXPECT_DOUBLE_EQ(offers[2].preemptions_per_hour, 0.0);
  EXPECT_DOUBLE_EQ(offers[3].preemptions_per_hour, 0.2);
}

// 8-GPU spot capacity is taken back about four times as often as single GPUs (the 8-GPU
// traces), and it is away for a while: the rule's obtainability goes with its rate.
TEST(PricingRules, PreemptionRuleMatchesByGpuCountAndCarriesObtainability) {
  Offer eight = MakeOffer("aws", "A100-40GB", CapacityTier::kSpot, 1000);
  eight.gpu_count = 8;
  std::vector<Offer> offers = {eight, MakeOffer("aws", "A100-40GB", CapacityTier::kSpot, 100)};
  PreemptionRate big{"aws", "*", 1.09, "8-GPU traces", 8, 0.475, 1.06};
  PreemptionRate small{"aws", "*", 0.30, "1-GPU traces", 1, 0.755, 1.07};
  ApplyPreemptionRates({big, small}, offers);
  EXPECT_DOUBLE_EQ(offers[0].preemptions_per_hour, 1.09);
  EXPECT_DOUBLE_EQ(offers[0].spot_risk.available_share, 0.475);
  EXPECT_DOUBLE_EQ(offers[0].spot_risk.mean_outage_hours, 1.06);
  EXPECT_EQ(offers[0].spot_risk.basis(), "8-GPU traces");
  EXPECT_DOUBLE_EQ(offers[1].preemptions_per_hour, 0.30);
  EXPECT_DOUBLE_EQ(offers[1].spot_risk.available_share, 0.755);
}

TEST(PricingRules, ShippedPreemptionTableReadsWithItsNewColumns) {
  auto rates = ReadPreemptionRates(frugal::ShippedDataDir() / "catalog" / "preemption_rates.csv");
  ASSERT_TRUE(rates) << rates.error().message;
  ASSERT_FALSE(rates->empty());
  EXPECT_EQ(rates->front().min_gpus, 8);
  EXPECT_LT(rates->front().available_share, 1.0);
  EXPECT_GT(rates->front().mean_outage_hours, 0.0);
}

}  // namespace
}  // namespace frugal::catalog

// The one rule for an offer's twin on another tier: same cloud, instance and region, priced
// for the whole region or in the offer's zone, the cheapest where several match.

#include "frugal/catalog/twin.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::catalog {
namespace {

using frugal::testing::SourceDir;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

/// Custom offers of one instance `pool-a` in region dc1: spot in zones a and b, on demand in
/// zone b only, and on demand for the whole region (dearer).
Catalog Pools(const TempDir& dir) {
  WriteTestFile(dir / "offers.yaml",
                "apiVersion: frugal/v1\n"
                "offers:\n"
                "  - {name: pool-a, cloud: dc, region: dc1, zone: a, gpu: L4, gpus: 1,\n"
                "     price_per_hour: 0.30, tier: spot}\n"
                "  - {name: pool-a, cloud: dc, region: dc1, zone: b, gpu: L4, gpus: 1,\n"
                "     price_per_hour: 0.35, tier: spot}\n"
                "  - {name: pool-a, cloud: dc, region: dc1, zone: b, gpu: L4, gpus: 1,\n"
                "     price_per_hour: 0.50, tier: on_demand}\n"
                "  - {name: pool-a, cloud: dc, region: dc1, gpu: L4, gpus: 1,\n"
                "     price_per_hour: 0.80, tier: on_demand}\n");
  Result<Catalog> c = Catalog::LoadFrom(SourceDir() / "data", {dir / "offers.yaml"});
  EXPECT_TRUE(c) << c.error().message;
  return c ? std::move(*c) : Catalog();
}

const Offer* Find(const Catalog& c, std::string_view zone, CapacityTier tier, double price) {
  for (const Offer& o : c.offers()) {
    if (o.cloud == "dc" && o.zone == zone && o.tier == tier &&
        o.price.per_hour == Money::FromDollars(price)) {
      return &o;
    }
  }
  return nullptr;
}

TEST(TwinOffer, IsTheCheapestInTheRegionOrTheSameZone) {
  TempDir dir;
  const Catalog c = Pools(dir);
  const Offer* spot_a = Find(c, "a", CapacityTier::kSpot, 0.30);
  const Offer* spot_b = Find(c, "b", CapacityTier::kSpot, 0.35);
  ASSERT_NE(spot_a, nullptr);
  ASSERT_NE(spot_b, nullptr);
  // Zone a: only the regional offer matches.
  const Offer* twin_a = TwinOffer(c, PlaceOf(*spot_a), CapacityTier::kOnDemand);
  ASSERT_NE(twin_a, nullptr);
  EXPECT_EQ(twin_a->price.per_hour, Money::FromDollars(0.80));
  // Zone b: both match, and its own zone's is the cheaper.
  EXPECT_EQ(OnDemandTwinPrice(c, *spot_b)->per_hour, Money::FromDollars(0.50));
  // An on-demand offer is its own twin; another place has none.
  EXPECT_EQ(OnDemandTwinPrice(c, *twin_a)->per_hour, Money::FromDollars(0.80));
  EXPECT_EQ(TwinOffer(c, {"dc", "pool-a", "dc2", ""}, CapacityTier::kOnDemand), nullptr);
}

TEST(TwinOffer, AShippedSpotOfferHasItsRegionsOnDemandPrice) {
  Result<Catalog> c = Catalog::LoadFrom(SourceDir() / "data");
  ASSERT_TRUE(c) << c.error().message;
  size_t checked = 0;
  for (const Offer& o : c->offers()) {
    if (o.tier != CapacityTier::kSpot || o.cloud != "aws" || o.zone.empty() || checked >= 50)
      continue;
    const Offer* twin = TwinOffer(*c, PlaceOf(o), CapacityTier::kOnDemand);
    if (twin == nullptr) continue;
    ++checked;
    EXPECT_EQ(twin->instance_type, o.instance_type);
    EXPECT_EQ(twin->region, o.region);
    EXPECT_TRUE(twin->zone.empty()) << twin->Id();
  }
  EXPECT_EQ(checked, 50U);
}

}  // namespace
}  // namespace frugal::catalog

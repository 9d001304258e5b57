#include "frugal/core/tier.h"

#include <gtest/gtest.h>

#include <cctype>
#include <iterator>
#include <set>
#include <string>

namespace frugal {
namespace {

constexpr CapacityTier kEveryTier[] = {CapacityTier::kOnDemand, CapacityTier::kSpot,
                                       CapacityTier::kReserved1y, CapacityTier::kReserved3y,
                                       CapacityTier::kOwned};

TEST(CapacityTier, EveryTierRoundTripsThroughItsOneName) {
  std::set<std::string> names;
  for (const CapacityTier tier : kEveryTier) {
    const std::string name(CapacityTierName(tier));
    EXPECT_TRUE(names.insert(name).second) << "two tiers named " << name;
    const Result<CapacityTier> parsed = ParseCapacityTier(name);
    ASSERT_TRUE(parsed.has_value()) << name << ": " << parsed.error().message;
    EXPECT_EQ(*parsed, tier) << name;
    // Any case and surrounding blanks read the same.
    std::string shouted;
    for (const char c : name) shouted += static_cast<char>(std::toupper(c));
    EXPECT_EQ(ParseCapacityTier(" " + shouted + "\t").value_or(CapacityTier::kOnDemand), tier)
        << shouted;
  }
  EXPECT_EQ(names.size(), std::size(kEveryTier));
}

TEST(CapacityTier, EveryRentedTierRoundTripsAndOwnedIsNotRented) {
  for (const CapacityTier tier : kEveryTier) {
    const std::string name(CapacityTierName(tier));
    const Result<CapacityTier> rented = ParseRentedTier(name);
    EXPECT_EQ(rented.has_value(), IsRentedTier(tier)) << name;
    if (rented) {
      EXPECT_EQ(*rented, tier) << name;
    }
  }
  const Result<CapacityTier> owned = ParseRentedTier("Owned");
  ASSERT_FALSE(owned.has_value());
  EXPECT_EQ(owned.error().code, ErrorCode::kBadInput);
  EXPECT_NE(owned.error().message.find("'owned' is not rented"), std::string::npos)
      << owned.error().message;
}

TEST(CapacityTier, TierNamedTakesOnlyTheOneName) {
  for (const CapacityTier tier : kEveryTier) {
    const std::string name(CapacityTierName(tier));
    EXPECT_EQ(TierNamed(name), tier) << name;
    std::string shouted;
    for (const char c : name) shouted += static_cast<char>(std::toupper(c));
    EXPECT_FALSE(TierNamed(shouted).has_value()) << shouted;
    EXPECT_FALSE(TierNamed(" " + name).has_value()) << name;
  }
  for (const char* other : {"on-demand", "od", "preemptible", "reserved-1y", "spto", ""}) {
    EXPECT_FALSE(TierNamed(other).has_value()) << other;
  }
}

TEST(CapacityTier, OtherSpellingsAndUnknownNames) {
  EXPECT_EQ(*ParseCapacityTier("on-demand"), CapacityTier::kOnDemand);
  EXPECT_EQ(*ParseCapacityTier("od"), CapacityTier::kOnDemand);
  EXPECT_EQ(*ParseCapacityTier("preemptible"), CapacityTier::kSpot);
  EXPECT_EQ(*ParseRentedTier("reserved-3y"), CapacityTier::kReserved3y);
  const Result<CapacityTier> typo = ParseCapacityTier("spto");
  ASSERT_FALSE(typo.has_value());
  EXPECT_EQ(typo.error().code, ErrorCode::kBadInput);
  EXPECT_NE(typo.error().message.find("unknown tier 'spto' (did you mean 'spot'?)"),
            std::string::npos)
      << typo.error().message;
  const Result<CapacityTier> rented_typo = ParseRentedTier("sport");
  ASSERT_FALSE(rented_typo.has_value());
  EXPECT_NE(
      rented_typo.error().message.find("(expected on_demand, spot, reserved_1y or reserved_3y)"),
      std::string::npos)
      << rented_typo.error().message;
  EXPECT_TRUE(IsReservedTier(CapacityTier::kReserved1y));
  EXPECT_TRUE(IsReservedTier(CapacityTier::kReserved3y));
  EXPECT_FALSE(IsReservedTier(CapacityTier::kOwned));
}

}  // namespace
}  // namespace frugal

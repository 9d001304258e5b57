#include "frugal/estimate/commitment.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::estimate {
namespace {

const catalog::Catalog& Shipped() {
  static const catalog::Catalog c =
      std::move(catalog::Catalog::LoadFrom(frugal::testing::SourceDir() / "data")).value();
  return c;
}

// "reserved_1y $290.90" for a 19.6-hour job: a reservation is not rented by the hour.
TEST(Commitment, ReservedIsNeverAPerJobPriceWithoutAUtilization) {
  auto costs = CheapestPerTier(Shipped(), "A100-80GB", 8, 19.6);
  bool had_reserved = false;
  for (const auto& t : costs) had_reserved = had_reserved || t.offer->price_estimated;
  ASSERT_TRUE(had_reserved);
  auto without = costs;
  ASSERT_TRUE(ApplyReservedUtilization(without, std::nullopt, 19.6));
  for (const auto& t : without) {
    EXPECT_TRUE(t.offer->tier == catalog::Tier::kOnDemand || t.offer->tier == catalog::Tier::kSpot);
  }
  // At 50% utilization the job pays twice its hours of the reservation.
  auto half = costs;
  ASSERT_TRUE(ApplyReservedUtilization(half, 0.5, 19.6));
  for (const auto& t : half) {
    if (t.offer->tier != catalog::Tier::kReserved1y) continue;
    EXPECT_EQ(t.cost, Rate{t.offer->price.per_hour * t.instances}.ForHours(39.2));
  }
  EXPECT_FALSE(ApplyReservedUtilization(half, 1.5, 19.6));
}

TEST(Commitment, BreakEvenIsTheReservedToOnDemandRatio) {
  auto low = AnswerCommitment(Shipped(), "A100-80GB", 8, catalog::Tier::kReserved1y, 0.3);
  ASSERT_TRUE(low) << low.error().message;
  // The monthly commitment is 730 hours of the reserved rate, used or not.
  EXPECT_EQ(low->monthly_commitment,
            Rate{low->reserved->price.per_hour * low->instances}.ForHours(1.0).Scaled(730));
  // Break-even: the utilization at which the used hours on demand cost the commitment.
  const double on_demand_full_month = low->monthly_on_demand.dollars() / 0.3;
  EXPECT_NEAR(low->break_even_vs_on_demand,
              low->monthly_commitment.dollars() / on_demand_full_month, 1e-9);
  const double b = low->break_even_vs_on_demand;
  EXPECT_FALSE(AnswerCommitment(Shipped(), "A100-80GB", 8, catalog::Tier::kReserved1y, b - 0.01)
                   ->PaysVsOnDemand());
  EXPECT_TRUE(AnswerCommitment(Shipped(), "A100-80GB", 8, catalog::Tier::kReserved1y, b + 0.01)
                  ->PaysVsOnDemand());
  // AWS 1-year discount 35%: break-even near 65% (the cheapest offers may differ by cloud).
  EXPECT_GT(low->break_even_vs_on_demand, 0.4);
  EXPECT_LT(low->break_even_vs_on_demand, 0.8);
  EXPECT_FALSE(low->PaysVsOnDemand());
  auto high = AnswerCommitment(Shipped(), "A100-80GB", 8, catalog::Tier::kReserved1y, 0.95);
  ASSERT_TRUE(high);
  EXPECT_TRUE(high->PaysVsOnDemand());
  EXPECT_FALSE(AnswerCommitment(Shipped(), "A100-80GB", 8, catalog::Tier::kReserved1y, 0));
  EXPECT_FALSE(AnswerCommitment(Shipped(), "A100-80GB", 8, catalog::Tier::kSpot, 0.5));
}

}  // namespace
}  // namespace frugal::estimate

#include "frugal/estimate/commitment.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/catalog_support.h"
#include "support/test_support.h"

namespace frugal::estimate {
namespace {

using Fixture = testing::CatalogWithOffers;

/// The shipped catalog plus `offers` (custom offers YAML entries).
std::unique_ptr<Fixture> Load(const std::string& offers) {
  return testing::ShippedCatalogWith(offers);
}

// The seed's figures: an 8 x A100 instance at $32/h on demand, $19/h on a 1-year commitment.
const std::string kSeedOffers =
    "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 32}\n"
    "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 12.80, tier: spot}\n"
    "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 19, tier: "
    "reserved_1y}\n"
    "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 13, tier: "
    "reserved_3y}\n";

CommitmentQuery Query(std::optional<double> utilization) {
  CommitmentQuery q;
  q.gpu = "a100-80gb";
  q.gpus = 8;
  q.cloud = "test";
  q.utilization = utilization;
  return q;
}

TEST(Commitment, SeedBreakEvenIsNineteenOverThirtyTwo) {
  auto f = Load(kSeedOffers);
  auto a = AnalyzeCommitment(f->catalog, Query(std::nullopt));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->gpu, "A100-80GB");
  ASSERT_EQ(a->commitments.size(), 2u);
  const CommitmentTerm& one = a->commitments[0];
  EXPECT_EQ(one.quote.tier, CapacityTier::kReserved1y);
  // 19 / 32 = 0.59375: the 1-year commitment pays above 59.4% utilization.
  EXPECT_DOUBLE_EQ(*one.break_even_vs_on_demand, 19.0 / 32.0);
  EXPECT_EQ(fmt::format("{:.1f}%", *one.break_even_vs_on_demand * 100), "59.4%");
  // Against spot at $12.80/h it never pays: 19 / 12.8 > 1.
  EXPECT_DOUBLE_EQ(*one.break_even_vs_spot, 19.0 / 12.8);
  EXPECT_DOUBLE_EQ(*a->commitments[1].break_even_vs_on_demand, 13.0 / 32.0);
  // A commitment's month is always the full 730 h: $19 x 730 = $13,870.
  EXPECT_EQ(*one.quote.monthly, Money::FromCents(1'387'000));
  // Without a utilization there is no winner and no pay-as-you-go monthly figure.
  EXPECT_FALSE(a->winner);
  EXPECT_FALSE(a->on_demand->monthly);
}

TEST(Commitment, WinnerFlipsAtTheBreakEven) {
  // Only on-demand and the 1-year term, so spot does not win everything.
  const std::string offers =
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 32}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 19, tier: "
      "reserved_1y}\n";
  auto f = Load(offers);
  auto low = AnalyzeCommitment(f->catalog, Query(0.5));
  ASSERT_TRUE(low) << low.error().message;
  // On demand at 50%: $32 x 365 h = $11,680 < $13,870.
  EXPECT_EQ(*low->on_demand->monthly, Money::FromCents(1'168'000));
  EXPECT_EQ(low->winner, CapacityTier::kOnDemand);
  auto high = AnalyzeCommitment(f->catalog, Query(0.6));
  ASSERT_TRUE(high);
  // At 60%: $32 x 438 h = $14,016 > $13,870.
  EXPECT_EQ(*high->on_demand->monthly, Money::FromCents(1'401'600));
  EXPECT_EQ(high->winner, CapacityTier::kReserved1y);
}

TEST(Commitment, SpotWinsAtLowUtilizationWhenOffered) {
  auto f = Load(kSeedOffers);
  auto a = AnalyzeCommitment(f->catalog, Query(0.6));
  ASSERT_TRUE(a);
  // Spot at 60%: $12.80 x 438 h = $5,606.40; the 3-year term's month: $13 x 730 = $9,490.
  EXPECT_EQ(*a->spot->monthly, Money::FromCents(560'640));
  EXPECT_EQ(a->winner, CapacityTier::kSpot);
  auto full = AnalyzeCommitment(f->catalog, Query(1.0));
  ASSERT_TRUE(full);
  EXPECT_EQ(full->winner, CapacityTier::kSpot);  // 12.80 < 13 even at 100%
}

TEST(Commitment, WholeInstancesOfOneLayoutCoverTheGpusAsked) {
  const std::string offers =
      "  - {name: a100x1, cloud: test, gpu: A100-80GB, gpus: 1, price_per_hour: 5}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 32}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 19, tier: "
      "reserved_1y}\n";
  auto f = Load(offers);
  CommitmentQuery q = Query(std::nullopt);
  q.gpus = 3;
  auto a = AnalyzeCommitment(f->catalog, q);
  ASSERT_TRUE(a) << a.error().message;
  // One job's 3 GPUs share one instance (single-GPU instances are not clustered), so the only
  // layout is one 8-GPU instance, on every tier: 19 / 32, not 19 / (3 x $5).
  EXPECT_EQ(a->gpus_per_instance, 8);
  EXPECT_EQ(a->on_demand->offer.gpu_count, 8);
  EXPECT_EQ(a->on_demand->instances, 1);
  EXPECT_EQ(a->on_demand->hourly.per_hour, Money::FromCents(3200));
  EXPECT_DOUBLE_EQ(*a->commitments[0].break_even_vs_on_demand, 19.0 / 32.0);
  q.gpus = 9;
  auto nine = AnalyzeCommitment(f->catalog, q);
  ASSERT_TRUE(nine);
  EXPECT_EQ(nine->commitments[0].quote.instances, 2);
  EXPECT_EQ(nine->commitments[0].quote.hourly.per_hour, Money::FromCents(3800));
  EXPECT_EQ(nine->on_demand->instances, 2);
  EXPECT_EQ(nine->on_demand->hourly.per_hour, Money::FromCents(6400));
  // A single GPU is laid out on the one-GPU instance when it has a commitment; here it has none,
  // so the 8-GPU instance is the layout (paying for 8 GPUs to use one).
  q.gpus = 1;
  auto one = AnalyzeCommitment(f->catalog, q);
  ASSERT_TRUE(one);
  EXPECT_EQ(one->gpus_per_instance, 8);
  EXPECT_DOUBLE_EQ(*one->commitments[0].break_even_vs_on_demand, 19.0 / 32.0);
}

// The case the two old calculators disagreed on (8 x A100 at 60%: `frugal estimate` said
// break-even 0.67, `frugal commit` 2.0), by hand. Prices are per instance-hour.
//   on demand  a100x8 $40/h (1 instance)             a100x1 $4/h (8 of them: another layout)
//   spot       a100x8 $14/h
//   1 year     a100x8 $26/h
// 8 GPUs -> one a100x8 instance on every tier (8 GPUs per instance, 1 instance).
//   commitment month   $26 x 730 h        = $18,980.00 (paid whatever the use)
//   on demand at 60%   $40 x 0.6 x 730 h  = $40 x 438 h = $17,520.00
//   spot at 60%        $14 x 438 h        = $6,132.00
//   break-even vs on demand  $18,980 / ($40 x 730 h = $29,200) = 0.65
//   break-even vs spot       $18,980 / ($14 x 730 h = $10,220) = 1.857... (never)
// At 60% the commitment does not pay (0.60 < 0.65); spot is cheapest. Pricing on demand as
// eight one-GPU instances ($32/h) instead gave 26 / 32 = 0.8125: a different product.
TEST(Commitment, HandComputedEightA100sAtSixtyPercent) {
  const std::string offers =
      "  - {name: a100x1, cloud: test, gpu: A100-80GB, gpus: 1, price_per_hour: 4}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 40}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 14, tier: spot}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 26, tier: "
      "reserved_1y}\n";
  auto f = Load(offers);
  auto a = AnalyzeCommitment(f->catalog, Query(0.6));
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->gpus_per_instance, 8);
  EXPECT_EQ(a->on_demand->offer.instance_type, "a100x8");
  EXPECT_EQ(a->on_demand->instances, 1);
  EXPECT_EQ(*a->on_demand->monthly, Money::FromCents(1'752'000));
  EXPECT_EQ(*a->spot->monthly, Money::FromCents(613'200));
  const CommitmentTerm* one_year = a->Term(CapacityTier::kReserved1y);
  ASSERT_NE(one_year, nullptr);
  EXPECT_EQ(*one_year->quote.monthly, Money::FromCents(1'898'000));
  EXPECT_DOUBLE_EQ(*one_year->break_even_vs_on_demand, 0.65);
  EXPECT_DOUBLE_EQ(*one_year->break_even_vs_spot, 18980.0 / 10220.0);
  EXPECT_EQ(a->winner, CapacityTier::kSpot);
  EXPECT_EQ(a->Term(CapacityTier::kReserved3y), nullptr);
}

TEST(Commitment, ParsesUtilizationAndRefusesNonsense) {
  EXPECT_DOUBLE_EQ(*ParseUtilization("60%"), 0.6);
  EXPECT_DOUBLE_EQ(*ParseUtilization("0.6"), 0.6);
  EXPECT_DOUBLE_EQ(*ParseUtilization("100%"), 1.0);
  for (const char* bad : {"", "%", "0%", "-5%", "101%", "60", "1.5", "nan", "abc", "60%%"}) {
    auto r = ParseUtilization(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find("--utilization"), std::string::npos);
  }
}

TEST(Commitment, RefusesWhatItCannotAnswer) {
  auto f = Load("  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 32}\n");
  auto none = AnalyzeCommitment(f->catalog, Query(std::nullopt));
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find("no 1- or 3-year commitment"), std::string::npos);
  CommitmentQuery q = Query(std::nullopt);
  q.gpu = "A100-80G";
  auto unknown = AnalyzeCommitment(f->catalog, q);
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("A100-80GB"), std::string::npos);
  q = Query(std::nullopt);
  q.gpus = 0;
  EXPECT_FALSE(AnalyzeCommitment(f->catalog, q));
}

TEST(Commitment, ShippedCatalogDerivesReservedTerms) {
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data");
  ASSERT_TRUE(c);
  CommitmentQuery q;
  q.gpu = "A100-80GB";
  q.gpus = 8;
  q.cloud = "aws";
  auto a = AnalyzeCommitment(*c, q);
  ASSERT_TRUE(a) << a.error().message;
  ASSERT_FALSE(a->commitments.empty());
  for (const CommitmentTerm& t : a->commitments) {
    EXPECT_TRUE(t.quote.offer.price_estimated);  // derived from discount factors
    ASSERT_TRUE(t.break_even_vs_on_demand);
    EXPECT_GT(*t.break_even_vs_on_demand, 0.0);
    EXPECT_LT(*t.break_even_vs_on_demand, 1.0);
  }
}

const catalog::Catalog& Shipped() {
  static const catalog::Catalog c =
      std::move(catalog::Catalog::LoadFrom(testing::SourceDir() / "data")).value();
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
    EXPECT_TRUE(t.offer->tier == CapacityTier::kOnDemand || t.offer->tier == CapacityTier::kSpot);
  }
  // At 50% utilization the job pays twice its hours of the reservation.
  auto half = costs;
  ASSERT_TRUE(ApplyReservedUtilization(half, 0.5, 19.6));
  for (const auto& t : half) {
    if (t.offer->tier != CapacityTier::kReserved1y) continue;
    EXPECT_EQ(t.cost, Rate{t.offer->price.per_hour * t.instances}.ForHours(39.2));
  }
  EXPECT_FALSE(ApplyReservedUtilization(half, 1.5, 19.6));
}

// On the shipped catalog every tier of 8 x A100-80GB is one 8-GPU instance, whatever cloud is
// cheapest on each tier; the break-even is the 1-year month over a full on-demand month.
TEST(Commitment, ShippedEightA100sArePricedOnOneLayout) {
  CommitmentQuery q;
  q.gpu = "A100-80GB";
  q.gpus = 8;
  q.utilization = 0.6;
  auto a = AnalyzeCommitment(Shipped(), q);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(a->gpus_per_instance, 8);
  for (const TierQuote* quote : {&*a->on_demand, &*a->spot, &a->commitments[0].quote}) {
    EXPECT_EQ(quote->offer.gpu_count, 8) << quote->offer.Id();
    EXPECT_EQ(quote->instances, 1) << quote->offer.Id();
  }
  const CommitmentTerm& one = a->commitments[0];
  EXPECT_DOUBLE_EQ(*one.break_even_vs_on_demand,
                   one.quote.monthly->RatioTo(a->on_demand->hourly.per_hour * kHoursPerMonth));
  // AWS-like 1-year discounts (35-37%): break-even between 0.4 and 0.8, so not "never".
  EXPECT_GT(*one.break_even_vs_on_demand, 0.4);
  EXPECT_LT(*one.break_even_vs_on_demand, 0.8);
  const double b = *one.break_even_vs_on_demand;
  for (const double u : {b - 0.01, b + 0.01}) {
    q.utilization = u;
    auto at = AnalyzeCommitment(Shipped(), q);
    ASSERT_TRUE(at);
    EXPECT_EQ(*at->on_demand->monthly > *at->commitments[0].quote.monthly, u > b) << u;
  }
  q.utilization = 0;
  EXPECT_FALSE(AnalyzeCommitment(Shipped(), q));
  EXPECT_FALSE(ParseCommitmentTerm("spot"));
  EXPECT_EQ(*ParseCommitmentTerm("3y"), CapacityTier::kReserved3y);
}

}  // namespace
}  // namespace frugal::estimate

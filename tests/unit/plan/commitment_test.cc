#include "frugal/plan/commitment.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::plan {
namespace {

struct Fixture {
  testing::TempDir dir;
  catalog::Catalog catalog;
};

/// The shipped catalog plus `offers` (custom offers YAML entries).
std::unique_ptr<Fixture> Load(const std::string& offers) {
  auto f = std::make_unique<Fixture>();
  testing::WriteTestFile(f->dir / "offers.yaml", "apiVersion: frugal/v1\noffers:\n" + offers);
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data", {f->dir / "offers.yaml"});
  EXPECT_TRUE(c) << c.error().message;
  f->catalog = std::move(*c);
  return f;
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
  EXPECT_EQ(one.quote.tier, catalog::Tier::kReserved1y);
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
  EXPECT_EQ(low->winner, catalog::Tier::kOnDemand);
  auto high = AnalyzeCommitment(f->catalog, Query(0.6));
  ASSERT_TRUE(high);
  // At 60%: $32 x 438 h = $14,016 > $13,870.
  EXPECT_EQ(*high->on_demand->monthly, Money::FromCents(1'401'600));
  EXPECT_EQ(high->winner, catalog::Tier::kReserved1y);
}

TEST(Commitment, SpotWinsAtLowUtilizationWhenOffered) {
  auto f = Load(kSeedOffers);
  auto a = AnalyzeCommitment(f->catalog, Query(0.6));
  ASSERT_TRUE(a);
  // Spot at 60%: $12.80 x 438 h = $5,606.40; the 3-year term's month: $13 x 730 = $9,490.
  EXPECT_EQ(*a->spot->monthly, Money::FromCents(560'640));
  EXPECT_EQ(a->winner, catalog::Tier::kSpot);
  auto full = AnalyzeCommitment(f->catalog, Query(1.0));
  ASSERT_TRUE(full);
  EXPECT_EQ(full->winner, catalog::Tier::kSpot);  // 12.80 < 13 even at 100%
}

TEST(Commitment, WholeInstancesCoverTheGpusAsked) {
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
  // Three single-GPU instances ($15/h) beat one 8-GPU instance ($32/h) on demand.
  EXPECT_EQ(a->on_demand->instances, 3);
  EXPECT_EQ(a->on_demand->hourly.per_hour, Money::FromCents(1500));
  // 19 / 15 > 1: committing to a whole 8-GPU node never pays for 3 GPUs.
  EXPECT_DOUBLE_EQ(*a->commitments[0].break_even_vs_on_demand, 19.0 / 15.0);
  q.gpus = 9;
  auto nine = AnalyzeCommitment(f->catalog, q);
  ASSERT_TRUE(nine);
  EXPECT_EQ(nine->commitments[0].quote.instances, 2);
  EXPECT_EQ(nine->commitments[0].quote.hourly.per_hour, Money::FromCents(3800));
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

}  // namespace
}  // namespace frugal::plan

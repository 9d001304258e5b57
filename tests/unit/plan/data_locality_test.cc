// Data locality priced before the run: egress by route, spot restarts reading again, one copy
// plus storage when several runs read the data, and the ranking that follows from it.

#include "frugal/plan/data_locality.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "frugal/plan/planner.h"
#include "support/catalog_support.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

constexpr const char* kTransfer =
    "cloud,inter_region_usd_per_gb,internet_usd_per_gb,object_storage_usd_per_gb_month\n"
    "aws,0.02,0.09,0.023\n"
    "gcp,0.02,0.12,0.020\n";

catalog::Offer MakeOffer(const std::string& cloud, const std::string& region) {
  catalog::Offer o;
  o.cloud = cloud;
  o.region = region;
  o.instance_type = "x";
  o.gpu = "L4";
  o.gpu_count = 1;
  return o;
}

DataSource Mumbai(double gb, int runs = 1) {
  DataSource s;
  s.from = {"aws", "ap-south-1", "job.yaml:9:13", "job.yaml:9:13"};
  s.gb = gb;
  s.runs = runs;
  return s;
}

TEST(DataLocality, EgressIsSizeTimesTheRoutesPricePerGb) {
  const auto prices = catalog::TransferPrices::Parse(kTransfer, "transfer.csv");
  ASSERT_TRUE(prices) << prices.error().message;
  LaunchCosts launch;
  launch.staging_gbps = 10;
  const DataSource s = Mumbai(800);
  // 800 GB at 10 Gb/s: 800 × 8 / 10 = 640 s, whatever the route.
  const auto here = PriceData(s, &*prices, MakeOffer("aws", "ap-south-1"), launch, 0);
  ASSERT_TRUE(here);
  EXPECT_EQ(here->route, DataRoute::kSameRegion);
  EXPECT_EQ(here->cost, Money());
  EXPECT_NEAR(here->transfer_hours * 3600, 640, 1e-9);
  // Another AWS region: 800 GB × $0.02 = $16.00.
  const auto east = PriceData(s, &*prices, MakeOffer("aws", "us-east-1"), launch, 0);
  ASSERT_TRUE(east);
  EXPECT_EQ(east->route, DataRoute::kInterRegion);
  EXPECT_EQ(east->cost, Money::FromCents(1600));
  // Another cloud: internet egress from AWS, 800 GB × $0.09 = $72.00.
  const auto gcp = PriceData(s, &*prices, MakeOffer("gcp", "us-central1"), launch, 0);
  ASSERT_TRUE(gcp);
  EXPECT_EQ(gcp->route, DataRoute::kInternet);
  EXPECT_EQ(gcp->cost, Money::FromCents(7200));
  // Half a spot restart expected: the data is read 1.5 times, 1.5 × $72 = $108.00.
  const auto spot = PriceData(s, &*prices, MakeOffer("gcp", "us-central1"), launch, 0.5);
  ASSERT_TRUE(spot);
  EXPECT_EQ(spot->cost, Money::FromCents(10800));
  // The source cloud charges the egress: AWS to a cloud the table does not list is internet.
  const auto lambda = PriceData(s, &*prices, MakeOffer("lambda", "us-east-1"), launch, 0);
  ASSERT_TRUE(lambda);
  EXPECT_EQ(lambda->cost, Money::FromCents(7200));
  // Data in a cloud the table has no prices for cannot be priced elsewhere: never zero.
  DataSource on_lambda = s;
  on_lambda.from = {"lambda", "us-south-1", "job.yaml:9:13", "job.yaml:9:13"};
  EXPECT_FALSE(PriceData(on_lambda, &*prices, MakeOffer("aws", "us-east-1"), launch, 0));
  EXPECT_TRUE(PriceData(on_lambda, &*prices, MakeOffer("lambda", "us-south-1"), launch, 0));
  // No location: staging time only, nothing priced.
  DataSource unplaced;
  unplaced.gb = 800;
  const auto none = PriceData(unplaced, nullptr, MakeOffer("lambda", "x"), launch, 0);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->route, DataRoute::kNone);
  EXPECT_NEAR(none->transfer_hours * 3600, 640, 1e-9);
}

TEST(DataLocality, SeveralRunsShareOneCopyAndItsStorageWhenThatIsCheaper) {
  const auto prices = catalog::TransferPrices::Parse(kTransfer, "transfer.csv");
  ASSERT_TRUE(prices);
  const LaunchCosts launch;
  // Ten runs in us-east-1: one copy 800 × $0.02 = $16.00, kept a month in S3 800 × $0.023 =
  // $18.40; ($16.00 + $18.40) / 10 = $3.44 a run, against $16.00 of egress a run.
  const auto copy = PriceData(Mumbai(800, 10), &*prices, MakeOffer("aws", "us-east-1"), launch, 2);
  ASSERT_TRUE(copy);
  EXPECT_EQ(copy->route, DataRoute::kCopy);
  EXPECT_EQ(copy->copy_cost, Money::FromCents(1600));
  EXPECT_EQ(copy->storage_cost, Money::FromCents(1840));
  EXPECT_EQ(copy->cost, Money::FromCents(344));
  EXPECT_EQ(copy->reads, 0);  // restarts read the copy in the region
  // Two runs: ($16.00 + $18.40) / 2 = $17.20 > $16.00: egress each run stays cheaper.
  const auto two = PriceData(Mumbai(800, 2), &*prices, MakeOffer("aws", "us-east-1"), launch, 0);
  ASSERT_TRUE(two);
  EXPECT_EQ(two->route, DataRoute::kInterRegion);
  EXPECT_EQ(two->cost, Money::FromCents(1600));
}

using Fixture = testing::CatalogWithOffers;

/// The shipped catalog plus three L4 offers: in the data's region, in another AWS region, and
/// in GCP; compute gets cheaper the farther it is from the data.
std::unique_ptr<Fixture> Load() {
  return testing::ShippedCatalogWith(
      "  - {name: near, cloud: aws, region: ap-south-1, gpu: L4, price_per_hour: 2.00}\n"
      "  - {name: east, cloud: aws, region: us-east-1, gpu: L4, price_per_hour: 1.50}\n"
      "  - {name: far, cloud: gcp, region: us-central1, gpu: L4, price_per_hour: 1.00}\n");
}

/// A job measured at 1 h on each of the three offers, with no boot or setup, and `data`.
Result<Plan> PlanWith(const Fixture& f, const std::string& data) {
  const std::string text =
      "apiVersion: frugal/v1\nmodel: {family: other}\n"
      "measured:\n  - {offer: near, runtime: 1h}\n  - {offer: east, runtime: 1h}\n"
      "  - {offer: far, runtime: 1h}\n"
      "constraints: {tiers: [on_demand]}\n"
      "fixed_costs: {boot: 0s, setup: 0s, staging_gbps: 10, billing_increment: 1s, "
      "minimum_billed: 0s}\n" +
      data;
  auto spec = ParseJobSpec(text, "job.yaml", f.dir.path(), f.names);
  if (!spec) return tl::unexpected(spec.error());
  return MakePlan(*spec, f.catalog, PlanRequest{});
}

const Option* Find(const Plan& p, const std::string& name) {
  for (const Option& o : p.options) {
    if (o.offer->instance_type == name) return &o;
  }
  return nullptr;
}

TEST(DataLocality, TheRankingTrainsWhereTheDataLivesUnlessEgressIncludedIsCheaper) {
  auto f = Load();
  const auto prices = catalog::LoadShippedTransferPrices();
  ASSERT_TRUE(prices) << prices.error().message;
  const Money inter = prices->Find("aws")->inter_region_per_gb;
  const Money internet = prices->Find("aws")->internet_per_gb;
  // 800 GB: each option computes 1 h + 640 s of staging = 1.17778 h.
  auto plan = PlanWith(*f, "data: {location: aws:ap-south-1, size_gb: 800}\n");
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->options.size(), 3u);
  const double hours = 1 + 640.0 / 3600;
  const Money near = Rate{Money::FromCents(200)}.ForHours(hours);
  const Money east = Rate{Money::FromCents(150)}.ForHours(hours) + inter.Scaled(800);
  const Money far = Rate{Money::FromCents(100)}.ForHours(hours) + internet.Scaled(800);
  std::cout << fmt::format(
      "800 GB in aws:ap-south-1: near $2.00/h x {:.5f} h = {}; east $1.50/h x {:.5f} h + 800 GB x "
      "{}/GB = {}; far $1.00/h x {:.5f} h + 800 GB x {}/GB = {}\n",
      hours, near.ToString(), hours, inter.ToString(), east.ToString(), hours, internet.ToString(),
      far.ToString());
  EXPECT_EQ(plan->options[0].offer->instance_type, "near");
  EXPECT_EQ(Find(*plan, "near")->expected_cost, near);
  EXPECT_EQ(Find(*plan, "east")->expected_cost, east);
  EXPECT_EQ(Find(*plan, "far")->expected_cost, far);
  EXPECT_EQ(Find(*plan, "far")->data.cost, internet.Scaled(800));
  EXPECT_NEAR(Find(*plan, "far")->data.Hours() * 3600, 640, 1e-6);
  bool advised = false;
  for (const std::string& a : plan->advice)
    advised = advised || a.find("Training where the data lives (aws:ap-south-1) wins") == 0;
  EXPECT_TRUE(advised) << ::testing::PrintToString(plan->advice);

  // 10 GB: egress is small, and the cheapest with it included wins: east at $1.50/h + $0.20
  // beats far at $1.00/h + $0.90 and near at $2.00/h.
  plan = PlanWith(*f, "data: {location: aws:ap-south-1, size_gb: 10}\n");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->options[0].offer->instance_type, "east");
  const double small = 1 + 8.0 / 3600;  // 10 GB at 10 Gb/s: 8 s
  EXPECT_EQ(plan->options[0].expected_cost,
            Rate{Money::FromCents(150)}.ForHours(small) + inter.Scaled(10));
  EXPECT_EQ(Find(*plan, "far")->expected_cost,
            Rate{Money::FromCents(100)}.ForHours(small) + internet.Scaled(10));
  advised = false;
  for (const std::string& a : plan->advice)
    advised = advised || a.find("Moving the data pays") == 0;
  EXPECT_TRUE(advised) << ::testing::PrintToString(plan->advice);

  // Without a location the far offer wins on compute alone, paying nothing for the data.
  plan = PlanWith(*f, "data: {size_gb: 800}\n");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->options[0].offer->instance_type, "far");
  EXPECT_EQ(plan->options[0].data.cost, Money());
}

TEST(DataLocality, ACacheElsewhereIsWhatRunsRead) {
  auto f = Load();
  const auto prices = catalog::LoadShippedTransferPrices();
  ASSERT_TRUE(prices);
  // The raw 800 GB is in Mumbai, the 120 GB tokenized cache in GCP us-central1: the far offer
  // reads the cache in its own region and pays nothing.
  auto plan =
      PlanWith(*f,
               "data:\n  location: aws:ap-south-1\n  size_gb: 800\n  preprocessing:\n"
               "    cache_key: tok\n    cache: {location: gcp:us-central1, size_gb: 120}\n");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->options[0].offer->instance_type, "far");
  EXPECT_EQ(plan->options[0].data.cost, Money());
  EXPECT_EQ(Find(*plan, "near")->data.cost, prices->Find("gcp")->internet_per_gb.Scaled(120));
  // No cache: preprocessing is repeated by every run and counted in its data time.
  plan = PlanWith(*f,
                  "data:\n  location: aws:ap-south-1\n  size_gb: 800\n  preprocessing: "
                  "{cache_key: tok, duration: 30m}\n");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_NEAR(Find(*plan, "near")->data.Hours() * 3600, 640 + 1800, 1e-6);
  EXPECT_NEAR(Find(*plan, "near")->wall_hours, 1.5 + 640.0 / 3600, 1e-9);
}

TEST(DataLocality, BadLocationsAreErrorsNamingTheLineAndField) {
  auto f = Load();
  const auto expect = [&](const std::string& data, const std::string& what) {
    auto plan = PlanWith(*f, data);
    ASSERT_FALSE(plan) << data;
    EXPECT_EQ(plan.error().code, ErrorCode::kBadInput);
    EXPECT_NE(plan.error().message.find(what), std::string::npos) << plan.error().message;
  };
  expect("data: {location: awz:ap-south-1, size_gb: 8}\n",
         "job.yaml:9:18: field 'location': unknown cloud 'awz' (did you mean 'aws'?)");
  expect("data: {location: aws:ap-south1, size_gb: 8}\n",
         "job.yaml:9:18: field 'location': aws has no region 'ap-south1' in the catalog (did you "
         "mean 'ap-south-1'?)");
  expect("data: {cloud: aws, region: ap-south1, size_gb: 8}\n",
         "job.yaml:9:28: field 'region': aws has no region 'ap-south1'");
  expect("data: {cloud: awz, region: ap-south-1, size_gb: 8}\n",
         "job.yaml:9:15: field 'cloud': unknown cloud 'awz'");
  expect("data: {region: us-east-1, size_gb: 8}\n",
         "field 'region': region 'us-east-1' is in aws and lambda: name the cloud");
  expect("data: {location: aws:ap-south-1}\n", "job.yaml:9:7: field 'size_gb'");
  // A region only one cloud has names its cloud.
  auto plan = PlanWith(*f, "data: {region: ap-south-1, size_gb: 800}\n");
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_EQ(plan->data.from.Label(), "aws:ap-south-1");
  EXPECT_EQ(plan->options[0].offer->instance_type, "near");
}

}  // namespace
}  // namespace frugal::plan

#include "frugal/plan/fixed_costs.h"

#include <gtest/gtest.h>

#include "frugal/plan/planner.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

TEST(FixedCosts, BillingRoundsUpToTheIncrementAndMinimum) {
  LaunchCosts c;
  c.billing_increment_hours = 1.0 / 60;  // per minute
  c.minimum_billed_hours = 10.0 / 60;
  EXPECT_DOUBLE_EQ(BilledHours(c, 1.0 / 3600), 10.0 / 60);  // 1 s: the 10-minute minimum
  EXPECT_DOUBLE_EQ(BilledHours(c, 11.5 / 60), 12.0 / 60);   // 11m30s: 12 minutes
  EXPECT_DOUBLE_EQ(BilledHours(c, 2.2), 2.2);               // whole minutes stay
  const LaunchCosts aws = DefaultLaunchCosts("aws");
  EXPECT_DOUBLE_EQ(BilledHours(aws, 30.0 / 3600), 1.0 / 60);  // AWS: 60 s minimum
  // A custom pool is already running: nothing to pay, billed per second.
  const LaunchCosts pool = DefaultLaunchCosts("onprem");
  EXPECT_DOUBLE_EQ(pool.boot_hours + pool.setup_hours, 0);
  EXPECT_DOUBLE_EQ(BilledHours(pool, 2.2), 2.2);
}

TEST(FixedCosts, LaunchIsBootSetupAndStagingAtTheOffersBandwidth) {
  catalog::Offer one;
  one.cloud = "aws";
  one.gpu_count = 1;
  catalog::Offer eight = one;
  eight.gpu_count = 8;
  const LaunchCosts aws = DefaultLaunchCosts("aws");
  // 3 min boot + 5 min setup; 8-GPU instances boot in 8 min.
  EXPECT_DOUBLE_EQ(LaunchHours(aws, one, std::nullopt), 8.0 / 60);
  EXPECT_DOUBLE_EQ(LaunchHours(aws, eight, std::nullopt), 13.0 / 60);
  // 450 GB at 10 Gb/s: 3600 Gb / 10 = 360 s.
  EXPECT_DOUBLE_EQ(StagingHours(aws, 450), 0.1);
  // The job overrides the cloud, a custom offer its own figures.
  LaunchOverrides job;
  job.boot_hours = 0;
  job.staging_gbps = 100;
  const LaunchCosts c = LaunchCostsFor(eight, job);
  EXPECT_DOUBLE_EQ(LaunchHours(c, eight, 450), 5.0 / 60 + 0.01);
  catalog::Offer custom = one;
  custom.launch = std::make_shared<const catalog::OfferLaunch>(
      catalog::OfferLaunch{.boot_hours = {},
                           .setup_hours = 0.5,
                           .staging_gbps = {},
                           .billing_increment_hours = {},
                           .minimum_billed_hours = {}});
  EXPECT_DOUBLE_EQ(LaunchCostsFor(custom, {}).setup_hours, 0.5);
  EXPECT_EQ(ShortDuration(13.0 / 60), "13m");
}

// A 110M-parameter BERT-base for 2B tokens on demand: without fixed costs the 8 x B200
// instance is cheapest (it computes in minutes); with boot, setup and billing it is not.
TEST(FixedCosts, SmallJobIsNotPlannedOnEightGpusWhenLaunchOverheadMakesOneCheaper) {
  testing::TempDir dir;
  testing::WriteTestFile(dir / "offers.yaml",
                         "apiVersion: frugal/v1\noffers:\n"
                         "  - {name: one-l4, cloud: aws, region: lab, gpu: L4, gpus: 1, "
                         "price_per_hour: 0.80}\n"
                         "  - {name: eight-b200, cloud: aws, region: lab, gpu: B200, gpus: 8, "
                         "price_per_hour: 64.00}\n");
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data", {dir / "offers.yaml"});
  ASSERT_TRUE(c) << c.error().message;
  std::vector<std::string> names;
  for (const auto& g : c->gpus()) names.push_back(g.name);
  const std::string job =
      "apiVersion: frugal/v1\n"
      "model: {layers: 12, hidden: 768, heads: 12, mlp: gelu, vocab: 30522, seq: 512, "
      "tied_embeddings: true}\n"
      "training: {precision: bf16, micro_batch: 32, global_batch: 256}\n"
      "work: {tokens: 2b}\n"
      "constraints: {clouds: [aws], regions: [lab], tiers: [on_demand]}\n";
  auto plan_with = [&](const std::string& extra) {
    auto spec = ParseJobSpec(job + extra, "job.yaml", dir.path(), names);
    EXPECT_TRUE(spec) << spec.error().message;
    PlanRequest request;
    auto plan = MakePlan(*spec, *c, request);
    EXPECT_TRUE(plan) << plan.error().message;
    return *plan;
  };
  const auto find = [](const Plan& p, const std::string& type) -> const Option* {
    for (const Option& o : p.options) {
      if (o.offer->instance_type == type) return &o;
    }
    return nullptr;
  };

  // Launch free: the 8 x B200 wins on its minutes of work.
  const Plan free = plan_with("fixed_costs: {boot: 0s, setup: 0s}\n");
  ASSERT_FALSE(free.options.empty());
  EXPECT_EQ(free.options.front().offer->instance_type, "eight-b200");

  const Plan plan = plan_with("");
  const Option* b200 = find(plan, "eight-b200");
  const Option* l4 = find(plan, "one-l4");
  ASSERT_NE(b200, nullptr);
  ASSERT_NE(l4, nullptr);
  EXPECT_EQ(plan.options.front().offer->instance_type, "one-l4");
  EXPECT_EQ(plan.options.front().gpus, 1);
  // The arithmetic. AWS defaults: 8-GPU boot 8 min + setup 5 min = 13 min; 1-GPU 3 + 5 = 8.
  EXPECT_DOUBLE_EQ(b200->launch_hours, 13.0 / 60);
  EXPECT_DOUBLE_EQ(l4->launch_hours, 8.0 / 60);
  EXPECT_LT(b200->work_hours, b200->launch_hours);  // a job shorter than its launch
  // cost = price × (launch + work), billed per second.
  const double b200_cost = 64.00 * (13.0 / 60 + b200->work_hours);
  const double l4_cost = 0.80 * (8.0 / 60 + l4->work_hours);
  EXPECT_NEAR(b200->expected_cost.dollars(), b200_cost, 0.02);
  EXPECT_NEAR(l4->expected_cost.dollars(), l4_cost, 0.01);
  EXPECT_LT(l4_cost, b200_cost);
  // Without the 13 minutes the B200 would have cost less than the L4.
  EXPECT_LT(64.00 * b200->work_hours, l4_cost);
  bool explained = false;
  for (const std::string& a : plan.advice) {
    explained = explained || (a.find("B200 x8") != std::string::npos &&
                              a.find("launch overhead 13m on a") != std::string::npos);
  }
  EXPECT_TRUE(explained) << (plan.advice.empty() ? "no advice" : plan.advice.back());
}

}  // namespace
}  // namespace frugal::plan

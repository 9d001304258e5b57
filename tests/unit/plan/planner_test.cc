#include "frugal/plan/planner.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "support/catalog_support.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

using Fixture = testing::CatalogWithOffers;

/// The shipped catalog plus `offers` (custom offers YAML entries) in cloud "test".
std::unique_ptr<Fixture> Load(const std::string& offers) {
  return testing::ShippedCatalogWith(offers);
}

JobSpec Spec(const Fixture& f, const std::string& text) {
  auto spec = ParseJobSpec("apiVersion: frugal/v1\n" + text, "job.yaml", f.dir.path(), f.names);
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : JobSpec{};
}

const std::string kSeedOffers =
    "  - {name: option-a, cloud: test, gpu: A100-80GB, price_per_hour: 4.00}\n"
    "  - {name: option-b, cloud: test, gpu: L4, price_per_hour: 1.40}\n";
const std::string kSeedJob =
    "model: {params: 500m, seq: 1024}\ntraining: {micro_batch: 4, global_batch: 32}\nwork: "
    "{tokens: 200m}\n"
    "constraints: {clouds: [test], deadline: 3h}\n";

TEST(Planner, SeedExampleCostsAreExact) {
  auto f = Load(kSeedOffers);
  const JobSpec spec = Spec(
      *f,
      kSeedJob +
          "measured:\n  - {offer: option-a, runtime: 1h}\n  - {offer: option-b, runtime: 2.2h}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->options.size(), 2u);
  EXPECT_EQ(plan->options[0].offer->instance_type, "option-b");
  EXPECT_EQ(plan->options[0].expected_cost, Money::FromCents(308));
  EXPECT_EQ(plan->options[1].expected_cost, Money::FromCents(400));
  EXPECT_TRUE(plan->options[0].meets_deadline);
  PlanRequest tight;
  tight.deadline_hours = 1.5;
  plan = MakePlan(spec, f->catalog, tight);
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->options[0].offer->instance_type, "option-a");
  EXPECT_FALSE(plan->options[1].meets_deadline);
}

TEST(Planner, MeasuredPeakThatDoesNotFitExcludesTheOffer) {
  auto f = Load(kSeedOffers);
  const JobSpec spec =
      Spec(*f, kSeedJob +
                   "measured:\n  - {offer: option-a, runtime: 1h, peak_memory_gib: 30}\n"
                   "  - {offer: option-b, runtime: 2.2h}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options.size(), 1u);
  EXPECT_EQ(plan->options[0].offer->instance_type, "option-a");
  bool found = false;
  for (const auto& e : plan->excluded)
    found = found || e.reason.find("L4 x1: does not fit, needs 30.0 GiB") == 0;
  EXPECT_TRUE(found);
}

TEST(Planner, KnobSearchFindsRecomputeThatFitsTheSmallGpuAndAdvisesIt) {
  // 1.3B full training at seq 8192: without recompute (or with selective) it needs more than
  // 24 GiB at any micro-batch; full recompute brings it under.
  auto f = Load(
      "  - {name: big, cloud: test, gpu: A100-80GB, price_per_hour: 8.00}\n"
      "  - {name: small, cloud: test, gpu: L4, price_per_hour: 0.50}\n");
  const JobSpec spec = Spec(*f,
                            "model: {layers: 24, hidden: 2048, heads: 16, seq: 8192}\n"
                            "training: {micro_batch: 1, global_batch: 16, optimizer: adam8bit}\n"
                            "work: {tokens: 20m}\nconstraints: {clouds: [test]}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  ASSERT_FALSE(plan->options.empty());
  const Option& best = plan->options[0];
  EXPECT_EQ(best.offer->instance_type, "small");
  EXPECT_EQ(best.knobs.recompute, estimate::Recompute::kFull);
  EXPECT_LE(best.peak_gib, 24.0);
  ASSERT_FALSE(plan->advice.empty());
  EXPECT_NE(plan->advice[0].find("instead of"), std::string::npos) << plan->advice[0];
  EXPECT_NE(plan->advice[0].find("L4"), std::string::npos) << plan->advice[0];
}

TEST(Planner, ReservedOnlyWithUtilizationAndPricedByIt) {
  auto f =
      Load("  - {name: r, cloud: test, gpu: A100-80GB, price_per_hour: 2.00, tier: reserved_1y}\n");
  JobSpec spec =
      Spec(*f,
           "model: {params: 500m, seq: 1024}\nwork: {tokens: 200m}\nconstraints: {clouds: [test]}\n"
           "measured:\n  - {offer: r, runtime: 3h}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->options.empty());
  spec.constraints.reserved_utilization = 0.5;
  plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options.size(), 1u);
  EXPECT_EQ(plan->options[0].kind, RunKind::kReserved);
  EXPECT_TRUE(plan->options[0].estimated_price);
  EXPECT_EQ(plan->options[0].expected_cost, Money::FromCents(1200));  // $2 × 3 h / 0.5
}

TEST(Planner, SpotIsPricedWithDalyOverheadAndGetsAFallback) {
  auto f = Load(
      "  - {name: s, cloud: test, gpu: A100-80GB, price_per_hour: 1.00, tier: spot, "
      "preemptions_per_hour: 0.5}\n"
      "  - {name: s, cloud: test, gpu: A100-80GB, price_per_hour: 4.00}\n");
  const JobSpec spec = Spec(*f,
                            "model: {params: 500m, seq: 1024}\nwork: {tokens: 200m}\n"
                            "constraints: {clouds: [test], deadline: 11h}\n"
                            "measured:\n  - {offer: s, runtime: 10h}\n"
                            "fault_tolerance: {checkpoint_write: 6m, restart: 6m}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  const Option* spot = nullptr;
  const Option* fallback = nullptr;
  for (const auto& o : plan->options) {
    if (o.kind == RunKind::kSpot) spot = &o;
    if (o.kind == RunKind::kFallback) fallback = &o;
  }
  ASSERT_NE(spot, nullptr);
  const double tau = DalyInterval(0.1, 2.0);
  EXPECT_DOUBLE_EQ(spot->wall_hours, ExpectedWallHours(10, tau, 0.1, 0.1, 2.0));
  // Billed per second (a custom pool: no launch costs), so the wall rounds up to the second.
  EXPECT_DOUBLE_EQ(spot->launch_hours, 0);
  EXPECT_NEAR(spot->billed_hours, spot->wall_hours, 1.0 / 3600);
  EXPECT_GE(spot->billed_hours, spot->wall_hours - 1e-9);
  EXPECT_EQ(spot->expected_cost, Rate{Money::FromCents(100)}.ForHours(spot->billed_hours));
  EXPECT_FALSE(spot->meets_deadline);  // 10 h of work, 11 h deadline, 0.5 preemptions/h
  ASSERT_NE(fallback, nullptr);
  EXPECT_TRUE(fallback->meets_deadline);
  // The switch leaves the on-demand restart and the rest of the work before the deadline.
  EXPECT_GT(fallback->fallback.on_demand_hours, 0.1);
  EXPECT_LE(fallback->fallback.switch_at_hours + fallback->fallback.on_demand_hours, 11.0);
  EXPECT_GT(fallback->expected_cost, spot->expected_cost);
  EXPECT_EQ(plan->options[0].kind, RunKind::kFallback);  // cheaper than $40 on demand
  EXPECT_LT(plan->options[0].expected_cost, Money::FromCents(4000));
}

TEST(Planner, BudgetAndUnsupportedGpusAreGroupedExclusions) {
  auto f = Load(kSeedOffers + "  - {name: old, cloud: test, gpu: T4, price_per_hour: 0.10}\n");
  JobSpec spec = Spec(
      *f,
      kSeedJob +
          "knobs: {precision: [bf16]}\n"
          "measured:\n  - {offer: option-a, runtime: 1h}\n  - {offer: option-b, runtime: 2.2h}\n");
  PlanRequest request;
  request.budget = Money::FromCents(350);
  auto plan = MakePlan(spec, f->catalog, request);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options.size(), 1u);
  EXPECT_EQ(plan->options[0].offer->instance_type, "option-b");
  std::vector<std::string> reasons;
  for (const auto& e : plan->excluded) reasons.push_back(e.reason);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(), "over the $3.50 budget"), reasons.end());
  EXPECT_NE(std::find(reasons.begin(), reasons.end(),
                      "T4 (Turing) has no bf16 support; use fp16 or fp32"),
            reasons.end());
  request.budget = Money::FromCents(100);
  plan = MakePlan(spec, f->catalog, request);
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->options.empty());
  ASSERT_GE(plan->advice.size(), 2u);
  EXPECT_NE(plan->advice[1].find("budget"), std::string::npos);
}

TEST(Planner, ImpossibleDeadlineSaysWhatWouldMeetIt) {
  auto f = Load(kSeedOffers);
  const JobSpec spec = Spec(
      *f,
      kSeedJob +
          "measured:\n  - {offer: option-a, runtime: 1h}\n  - {offer: option-b, runtime: 2.2h}\n");
  PlanRequest request;
  request.deadline_hours = 0.5;
  auto plan = MakePlan(spec, f->catalog, request);
  ASSERT_TRUE(plan);
  ASSERT_FALSE(plan->options.empty());
  EXPECT_FALSE(plan->options[0].meets_deadline);
  bool said = false;
  for (const auto& a : plan->advice) said = said || a.find("Nothing meets the 30m deadline") == 0;
  EXPECT_TRUE(said);
}

TEST(Planner, ObjectiveTimeRanksFastestFirstAndTopGroupsTheRest) {
  auto f = Load(kSeedOffers);
  const JobSpec spec = Spec(
      *f,
      kSeedJob +
          "measured:\n  - {offer: option-a, runtime: 1h}\n  - {offer: option-b, runtime: 2.2h}\n");
  PlanRequest request;
  request.objective = Objective::kTime;
  request.top = 1;
  auto plan = MakePlan(spec, f->catalog, request);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options.size(), 1u);
  EXPECT_EQ(plan->options[0].offer->instance_type, "option-a");
  bool grouped = false;
  for (const auto& e : plan->excluded)
    grouped = grouped || e.reason == "L4 on_demand: 2.2x the time of the best option";
  EXPECT_TRUE(grouped);
}

TEST(Planner, MeasuredProfileForAGpuCountNoOptionHasIsBadInput) {
  auto f = Load(kSeedOffers);
  // The catalog has A100-80GB in 1, 2, 4 and 8 GPUs per instance; never 3.
  JobSpec spec = Spec(*f, kSeedJob +
                              "measured:\n  - gpu: A100-80GB\n    gpus: 3\n"
                              "    tokens_per_second: 50000\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, ErrorCode::kBadInput);
  EXPECT_NE(plan.error().message.find("job.yaml:8:11: field 'gpus': no option runs A100-80GB x3"),
            std::string::npos)
      << plan.error().message;
  // 16 GPUs are two 8-GPU instances: an option only when max_gpus allows it.
  spec = Spec(*f, kSeedJob + "measured:\n  - {gpu: A100-80GB, gpus: 16, runtime: 1h}\n");
  EXPECT_FALSE(MakePlan(spec, f->catalog, PlanRequest{}).has_value());  // max_gpus 8
  spec.constraints.max_gpus = 16;
  EXPECT_TRUE(MakePlan(spec, f->catalog, PlanRequest{}).has_value());
  spec = Spec(*f, kSeedJob + "measured:\n  - {gpu: A100-80GB, gpus: 1, runtime: 1h}\n");
  plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->options[0].measured);
}

TEST(Planner, UnknownCloudInTheConstraintsIsBadInput) {
  auto f = Load(kSeedOffers);
  const JobSpec spec = Spec(*f,
                            "model: {params: 500m, seq: 1024}\nwork: {tokens: 200m}\n"
                            "constraints:\n  clouds: [test, awz]\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_FALSE(plan);
  EXPECT_EQ(plan.error().code, ErrorCode::kBadInput);
  EXPECT_NE(plan.error().message.find(
                "job.yaml:5:18: field 'clouds': unknown cloud 'awz' (did you mean 'aws'?)"),
            std::string::npos)
      << plan.error().message;
}

TEST(Planner, LosersThatMissTheDeadlineAreNotCalledCheaper) {
  auto f = Load(kSeedOffers + "  - {name: option-c, cloud: test, gpu: L4, price_per_hour: 5.00}\n");
  const JobSpec spec = Spec(*f, kSeedJob +
                                    "measured:\n  - {offer: option-a, runtime: 1h}\n"
                                    "  - {offer: option-b, runtime: 2.2h}\n"
                                    "  - {offer: option-c, runtime: 1h}\n");
  PlanRequest request;
  request.deadline_hours = 1.5;
  request.top = 1;
  auto plan = MakePlan(spec, f->catalog, request);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options[0].offer->instance_type, "option-a");  // $4.00 in 1 h
  // option-b ($3.08) is cheaper but misses the deadline; option-c ($5.00) meets it.
  std::vector<std::string> reasons;
  for (const auto& e : plan->excluded) reasons.push_back(e.reason);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(),
                      "L4 on_demand: 1.2x the cost of the best option; one of them misses the "
                      "deadline"),
            reasons.end())
      << ::testing::PrintToString(reasons);
  request.deadline_hours = 0.9;  // nothing meets it: distances over all, by cost
  plan = MakePlan(spec, f->catalog, request);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options[0].offer->instance_type, "option-b");
  reasons.clear();
  for (const auto& e : plan->excluded) reasons.push_back(e.reason);
  EXPECT_NE(std::find(reasons.begin(), reasons.end(),
                      "A100-80GB on_demand: 1.3x the cost of the best option"),
            reasons.end())
      << ::testing::PrintToString(reasons);
}

// By cost, an option within constraints.fewer_gpus_within (default 5%) of the cheapest that
// takes fewer GPUs ranks first, with a note; past the band, or with 0, cost alone decides.
TEST(Planner, FewerGpusRankFirstWithinTheBandOfTheCheapest) {
  // The offers the plan points at live in the fixture: each plan keeps its own.
  std::vector<std::unique_ptr<Fixture>> fixtures;
  const auto plan_with = [&](const std::string& four_per_hour, const std::string& band) {
    fixtures.push_back(
        Load("  - {name: one, cloud: test, gpu: L4, price_per_hour: 1.00}\n"
             "  - {name: four, cloud: test, gpu: L4, gpus: 4, price_per_hour: " +
             four_per_hour + "}\n"));
    const Fixture& f = *fixtures.back();
    const JobSpec spec =
        Spec(f,
             "model: {params: 500m, seq: 1024}\ntraining: {micro_batch: 4, global_batch: 32}\n"
             "work: {tokens: 200m}\nconstraints: {clouds: [test]" +
                 band +
                 "}\n"
                 "measured:\n  - {offer: one, runtime: 2h}\n  - {offer: four, runtime: 30m}\n");
    auto plan = MakePlan(spec, f.catalog, PlanRequest{});
    EXPECT_TRUE(plan) << plan.error().message;
    return plan ? *plan : Plan{};
  };
  // Four L4 for $1.96 against one for $2.00: 2% less, inside the band.
  Plan p = plan_with("3.92", "");
  ASSERT_EQ(p.options.size(), 2u);
  EXPECT_EQ(p.options[0].offer->instance_type, "one");
  EXPECT_DOUBLE_EQ(p.fewer_gpus_within, kDefaultFewerGpusWithin);
  EXPECT_TRUE(std::any_of(p.advice.begin(), p.advice.end(), [](const std::string& a) {
    return a.find("#1 takes 1 GPU where the cheapest option takes 4") == 0 &&
           a.find("constraints.fewer_gpus_within (5%)") != std::string::npos;
  }));
  p = plan_with("3.92", ", fewer_gpus_within: 0");
  ASSERT_FALSE(p.options.empty());
  EXPECT_EQ(p.options[0].offer->instance_type, "four");
  // $1.50 against $2.00: 25% less is a saving worth the split.
  p = plan_with("3.00", "");
  ASSERT_FALSE(p.options.empty());
  EXPECT_EQ(p.options[0].offer->instance_type, "four");
  EXPECT_TRUE(std::none_of(p.advice.begin(), p.advice.end(), [](const std::string& a) {
    return a.find("fewer_gpus_within") != std::string::npos;
  }));
}

}  // namespace
}  // namespace frugal::plan

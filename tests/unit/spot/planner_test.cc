#include <gtest/gtest.h>

#include <random>

#include "frugal/spot/availability_model.h"
#include "frugal/spot/deadline_planner.h"
#include "frugal/spot/frugal_policy.h"
#include "frugal/spot/simulator.h"
#include "spot_test_util.h"

namespace frugal::spot {
namespace {

using testing::MakeJob;
using testing::MakeStepTrace;

PlannerInput Input(int compute, int spare, int changeover, std::vector<float> stay_up,
                   std::vector<float> stay_down) {
  PlannerInput in;
  in.compute = compute;
  in.spare = spare;
  in.changeover = changeover;
  in.price_ratio = 3;
  in.ages = static_cast<int>(stay_up.size());
  in.stay_up = std::move(stay_up);
  in.stay_down = std::move(stay_down);
  return in;
}

TEST(SpotAvailabilityModel, SurvivalByAgeFromSeenRuns) {
  AvailabilityModel model;
  model.Reset(10, 10);
  // Lifetimes of exactly 3 steps, outages of 1.
  for (int i = 0; i < 200; ++i) {
    for (int k = 0; k < 3; ++k) model.Observe(true);
    model.Observe(false);
  }
  model.Observe(true);
  EXPECT_TRUE(model.current_available());
  EXPECT_EQ(model.current_age(), 1);
  // The default (10) counts as two runs among the 200 seen.
  const double mean = (3.0 * 200 + 2 * 10) / 202;
  EXPECT_DOUBLE_EQ(model.Mean(true), mean);
  const std::vector<float> up = model.StayProbabilities(true, 1, 5);
  ASSERT_EQ(up.size(), 5u);
  EXPECT_GT(up[0], 0.98);  // a run of age 1 goes on
  EXPECT_GT(up[1], 0.98);
  EXPECT_LT(up[2], 0.02);  // and ends at age 3
  // Nothing seen past 3: the memoryless guess (1 − 1/mean) for the older ages and the tail.
  EXPECT_NEAR(up[3], 1 - 1 / mean, 1e-6);
  EXPECT_NEAR(up[4], 1 - 1 / mean, 1e-6);
  // On a coarser grid (units of 3 steps) a lifetime is one unit.
  EXPECT_LT(model.StayProbabilities(true, 3, 2)[0], 0.02);
  const std::vector<float> down = model.StayProbabilities(false, 1, 2);
  EXPECT_LT(down[0], 0.02);
}

TEST(SpotAvailabilityModel, OneOddRunDoesNotOutweighTheDefault) {
  AvailabilityModel model;
  model.Reset(100, 50);
  EXPECT_DOUBLE_EQ(model.Mean(true), 100);
  model.AddRun(true, 1);
  EXPECT_DOUBLE_EQ(model.Mean(true), 67);
  EXPECT_DOUBLE_EQ(model.Mean(false), 50);
  // The one run that ended at once makes age 1 risky, not every age.
  const std::vector<float> up = model.StayProbabilities(true, 1, 3);
  EXPECT_LT(up[0], 0.7);
  EXPECT_GT(up[1], 0.98);
}

TEST(SpotPlanner, SpotThatNeverEndsIsUsedAtOnce) {
  DeadlinePlanner planner;
  planner.Solve(Input(10, 4, 2, {1, 1, 1, 1}, {0.5f, 0.5f, 0.5f, 0.5f}));
  EXPECT_EQ(planner.Decide(4, 10, Mode::kIdle, true, 1), Mode::kSpot);
  EXPECT_EQ(planner.Decide(4, 10, Mode::kSpot, true, 3), Mode::kSpot);
  // The expected cost from idle with spot up: changeover plus work, at spot prices.
  EXPECT_NEAR(planner.ExpectedCostFromIdle(true, 1), 12, 1e-4);
}

TEST(SpotPlanner, SpotThatDiesAtOnceIsNotWorthItsChangeover) {
  DeadlinePlanner planner;
  planner.Solve(Input(10, 4, 2, {0, 0, 0}, {0, 0, 0}));
  // Spot flips every step: entering it only buys changeovers that never finish.
  EXPECT_EQ(planner.Decide(4, 10, Mode::kOnDemand, true, 1), Mode::kOnDemand);
  EXPECT_NEAR(planner.ExpectedCostFromIdle(true, 1), 3.0 * 12, 1e-3);
}

TEST(SpotPlanner, WaitsOutAShortOutageButNotWithoutSpare) {
  DeadlinePlanner planner;
  // Outages last exactly 2 steps (a run of age 1 goes on, one of age 2 ends), spot never
  // ends once back.
  planner.Solve(Input(20, 6, 1, {1, 1, 1}, {1, 0, 0}));
  EXPECT_EQ(planner.Decide(6, 20, Mode::kIdle, false, 1), Mode::kIdle);
  EXPECT_EQ(planner.Decide(6, 20, Mode::kIdle, false, 2), Mode::kIdle);
  // With only the changeover to spare, waiting would miss the deadline if spot did not come.
  EXPECT_EQ(planner.Decide(1, 20, Mode::kIdle, false, 1), Mode::kOnDemand);
  EXPECT_EQ(planner.Decide(0, 20, Mode::kIdle, true, 1), Mode::kOnDemand);
}

TEST(SpotPlanner, CoarseGridRoundsSpareDownAndWorkUp) {
  PlannerInput in = Input(12, 6, 2, {1, 1}, {0.9f, 0.9f});
  in.unit = 2;
  EXPECT_LT(DeadlinePlanner::Work(in), DeadlinePlanner::Work(Input(12, 6, 2, {1, 1}, {1, 1})));
  DeadlinePlanner planner;
  planner.Solve(in);
  EXPECT_EQ(planner.unit(), 2);
  EXPECT_EQ(planner.Decide(6, 12, Mode::kIdle, true, 1), Mode::kSpot);
  // One step of spare rounds down to none: on-demand.
  EXPECT_EQ(planner.Decide(1, 12, Mode::kIdle, false, 1), Mode::kOnDemand);
}

// 60,000 steps of a memoryless market: each step, spot ends with probability `up_ends` and an
// outage with probability `down_ends`.
StepTrace MemorylessTrace(uint64_t seed, double up_ends, double down_ends) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution ends_up(up_ends), ends_down(down_ends);
  std::string pattern;
  bool up = true;
  for (int i = 0; i < 60000; ++i) {
    pattern += up ? '1' : '0';
    if (up ? ends_up(rng) : ends_down(rng)) up = !up;
  }
  return MakeStepTrace(pattern);
}

// The plan's expected cost is what the simulator then charges on average, on a market that
// follows the learned model: the program and the simulator agree on every step rule.
TEST(SpotPlanner, ExpectedCostMatchesSimulatedRuns) {
  const StepTrace trace = MemorylessTrace(3, 1.0 / 12, 1.0 / 5);
  const StepJob job = MakeJob(40, 52, 3);
  FrugalPolicy policy;
  double predicted = 0, realized = 0;
  int runs = 0;
  for (int start = 20000; start + job.deadline + 10 < trace.steps(); start += 97) {
    PolicyContext context;
    context.job = job;
    context.past = std::span<const uint8_t>(trace.available.data(), static_cast<size_t>(start));
    AvailabilityModel model;
    model.Reset(1, 1);
    for (uint8_t a : context.past) model.Observe(a != 0);
    PlannerInput in =
        Input(job.compute, job.deadline - job.compute, job.changeover,
              model.StayProbabilities(true, 1, 48), model.StayProbabilities(false, 1, 48));
    DeadlinePlanner planner;
    planner.Solve(in);
    const bool available = trace.available[static_cast<size_t>(start)] != 0;
    // The run in progress at the start is one step older than the past shows.
    const int age = available == model.current_available() ? model.current_age() + 1 : 1;
    predicted += planner.ExpectedCostFromIdle(available, age);
    const RunResult r = Simulate(trace, start, job, policy);
    ASSERT_TRUE(r.deadline_met);
    ASSERT_TRUE(policy.planned());
    realized += r.cost_usd;
    ++runs;
  }
  ASSERT_GT(runs, 300);
  EXPECT_NEAR(realized / runs, predicted / runs, 0.03 * predicted / runs);
}

// Told the true memoryless market, the policy plans against it without learning: the cost it
// expects at the start is what the runs cost on average (the bound of bench/spot rests on it).
TEST(SpotPlanner, InformedPolicyPaysWhatItsPlanExpects) {
  constexpr double kStayUp = 11.0 / 12, kStayDown = 4.0 / 5;
  const StepTrace trace = MemorylessTrace(5, 1 - kStayUp, 1 - kStayDown);
  const StepJob job = MakeJob(40, 52, 3);
  DeadlinePlanner planner;
  planner.Solve(Input(job.compute, job.deadline - job.compute, job.changeover,
                      {static_cast<float>(kStayUp)}, {static_cast<float>(kStayDown)}));
  FrugalPolicy informed;
  informed.AssumeMemoryless(kStayUp, kStayDown);
  double predicted = 0, realized = 0;
  int runs = 0;
  for (int start = 100; start + job.deadline + 10 < trace.steps(); start += 97) {
    predicted += planner.ExpectedCostFromIdle(trace.available[static_cast<size_t>(start)] != 0, 1);
    const RunResult r = Simulate(trace, start, job, informed);
    ASSERT_TRUE(r.deadline_met);
    ASSERT_TRUE(informed.planned());
    realized += r.cost_usd;
    ++runs;
  }
  ASSERT_GT(runs, 500);
  EXPECT_NEAR(realized / runs, predicted / runs, 0.02 * predicted / runs);
  // What it is told is what it plans on: told that spot dies within a step, it never
  // enters spot, on a market where it learns otherwise.
  FrugalPolicy pessimist;
  pessimist.AssumeMemoryless(0.01, 0.99);
  EXPECT_EQ(Simulate(trace, 1000, job, pessimist).spot_steps, 0);
  FrugalPolicy learner;
  EXPECT_GT(Simulate(trace, 1000, job, learner).spot_steps, 0);
}

}  // namespace
}  // namespace frugal::spot

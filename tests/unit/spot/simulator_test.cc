#include "frugal/spot/simulator.h"

#include <gtest/gtest.h>

#include "frugal/spot/baseline_policies.h"
#include "spot_test_util.h"

namespace frugal::spot {
namespace {

using testing::MakeJob;
using testing::MakeStepTrace;

std::vector<Mode> Repeat(Mode mode, int n) { return std::vector<Mode>(static_cast<size_t>(n), mode); }

TEST(SpotSimulator, OnDemandPaysChangeoverAndWork) {
  const StepTrace trace = MakeStepTrace("0000000000");
  OnDemandPolicy od;
  RunResult r = Simulate(trace, 0, MakeJob(5, 10, 2), od);
  EXPECT_TRUE(r.deadline_met);
  EXPECT_EQ(r.finish_step, 7);
  EXPECT_EQ(r.on_demand_steps, 7);
  EXPECT_DOUBLE_EQ(r.cost_usd, 21);
  EXPECT_EQ(r.changeovers, 1);
}

TEST(SpotSimulator, ChangeoverIsBilledAtTheNewPrice) {
  // Two spot steps of changeover+work, preempted, then on-demand.
  const StepTrace trace = MakeStepTrace("1111000000");
  std::vector<Mode> plan = {Mode::kSpot, Mode::kSpot, Mode::kSpot, Mode::kOnDemand,
                            Mode::kOnDemand, Mode::kOnDemand, Mode::kOnDemand};
  RunResult r = SimulateSequence(trace, 0, MakeJob(3, 10, 1), plan);
  // spot: 1 changeover + 2 work ($3); od: 1 changeover + 1 work ($6).
  EXPECT_EQ(r.spot_steps, 3);
  EXPECT_EQ(r.on_demand_steps, 2);
  EXPECT_DOUBLE_EQ(r.cost_usd, 9);
  EXPECT_EQ(r.changeovers, 2);
  EXPECT_EQ(r.finish_step, 5);
  EXPECT_EQ(r.preemptions, 0);  // it left spot before the outage
}

TEST(SpotSimulator, PreemptionLosesUncommittedWork) {
  // Checkpoint costs 1 step every 2 work steps; no changeover.
  const StepTrace trace = MakeStepTrace("11111" "0000000000000000");
  RunResult r = SimulateSequence(trace, 0, MakeJob(6, 20, 0, 1, 2), Repeat(Mode::kSpot, 5));
  // Steps: work, work, save (committed 2), work, work -> preempted at step 5 losing 2.
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_EQ(r.lost_steps, 2);
  EXPECT_FALSE(r.deadline_met);  // idle afterwards until forced on-demand at the deadline
}

TEST(SpotSimulator, NoticeLetsTheJobSaveBeforePreemption) {
  const StepTrace trace = MakeStepTrace("11111" "0000000000000000");
  RunResult r =
      SimulateSequence(trace, 0, MakeJob(6, 20, 0, 1, 10, 2), Repeat(Mode::kSpot, 5));
  // Work 3 steps, notice at step 3 (outage at 5 is 2 steps away) → save at step 3; work at 4.
  EXPECT_EQ(r.preemptions, 1);
  EXPECT_EQ(r.lost_steps, 1);
}

TEST(SpotSimulator, LeavingWithUnsavedWorkCheckpointsFirst) {
  const StepTrace trace = MakeStepTrace("1111111111");
  std::vector<Mode> plan = {Mode::kSpot, Mode::kSpot, Mode::kOnDemand, Mode::kOnDemand,
                            Mode::kOnDemand, Mode::kOnDemand, Mode::kOnDemand};
  RunResult r = SimulateSequence(trace, 0, MakeJob(3, 10, 0, 1, 5), plan);
  // Two work steps on spot, one save step on spot, then one on-demand work step.
  EXPECT_EQ(r.spot_steps, 3);
  EXPECT_EQ(r.on_demand_steps, 1);
  EXPECT_EQ(r.lost_steps, 0);
  EXPECT_EQ(r.finish_step, 4);
}

TEST(SpotSimulator, PastTheDeadlineTheJobIsFinishedOnDemand) {
  const StepTrace trace = MakeStepTrace("0000000000");
  RunResult r = SimulateSequence(trace, 0, MakeJob(2, 4, 1), {});
  EXPECT_FALSE(r.deadline_met);
  EXPECT_EQ(r.finish_step, 7);
  EXPECT_DOUBLE_EQ(r.cost_usd, 9);
}

TEST(SpotSimulator, RecordsEveryStep) {
  const StepTrace trace = MakeStepTrace("1100");
  GreedyPolicy greedy;
  std::vector<StepRecord> record;
  RunResult r = Simulate(trace, 0, MakeJob(2, 4, 0), greedy, &record);
  EXPECT_TRUE(r.deadline_met);
  ASSERT_EQ(record.size(), 2u);
  EXPECT_EQ(record[1].progress, 2);
  EXPECT_EQ(record[0].mode, Mode::kSpot);
}

}  // namespace
}  // namespace frugal::spot

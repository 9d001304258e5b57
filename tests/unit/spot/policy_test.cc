#include "frugal/spot/policy.h"

#include <gtest/gtest.h>

#include "frugal/spot/baseline_policies.h"
#include "frugal/spot/frugal_policy.h"
#include "frugal/spot/simulator.h"
#include "spot_test_util.h"

namespace frugal::spot {
namespace {

using testing::MakeJob;
using testing::MakeStepTrace;

std::string Modes(const std::vector<StepRecord>& record) {
  std::string s;
  for (const StepRecord& r : record) s += r.mode == Mode::kSpot ? 'S' : r.mode == Mode::kOnDemand ? 'O' : '.';
  return s;
}

std::string RunModes(Policy& policy, const std::string& pattern, const StepJob& job, int start = 0) {
  std::vector<StepRecord> record;
  RunResult r = Simulate(MakeStepTrace(pattern), start, job, policy, &record);
  EXPECT_TRUE(r.deadline_met) << policy.name() << " on " << pattern;
  return Modes(record);
}

TEST(SpotPolicies, NamesAreKnownAndTyposSuggested) {
  for (const std::string& name : PolicyNames()) {
    auto policy = MakePolicy(name);
    ASSERT_TRUE(policy);
    EXPECT_EQ((*policy)->name(), name);
  }
  auto typo = MakePolicy("gredy");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("did you mean 'greedy'"), std::string::npos);
}

TEST(SpotPolicies, SpareStepsCountTheChangeoverAndCheckpoint) {
  const StepJob job = MakeJob(10, 20, 2, 1, 3);
  Observation idle{5, false, Mode::kIdle, 0, 4, 0, 3};
  EXPECT_EQ(StepsToFinishOnDemand(job, idle), 1 + 2 + 6);
  EXPECT_EQ(SpareSteps(job, idle), 15 - 9);
  Observation od{5, false, Mode::kOnDemand, 1, 4, 2, 3};
  EXPECT_EQ(StepsToFinishOnDemand(job, od), 1 + 4);
}

TEST(SpotPolicies, GreedyUsesSpotWaitsThenLocksOnDemand) {
  GreedyPolicy greedy;
  // C=4, D=8, d=1: spare at idle = 8 − t − 5; waits while spare ≥ 1 (t ≤ 2), then on-demand
  // for good even though spot comes back.
  EXPECT_EQ(RunModes(greedy, "11000011111", MakeJob(4, 8, 1)), "SS..OOOO");
  // Spot all along: spot to the end.
  EXPECT_EQ(RunModes(greedy, "1111111111", MakeJob(4, 8, 1)), "SSSSS");
}

TEST(SpotPolicies, UniformProgressCatchesUpOnDemandWithHysteresis) {
  UniformProgressPolicy up;
  // C=6, D=12, d=1: ep(t) = t/2. Idle at t=0 is not behind; at t=1 it is (0 < 0.5) → on-demand
  // until cp ≥ ep(t + 2) ; spot when it appears after that.
  const std::string modes = RunModes(up, "000000111111111111", MakeJob(6, 12, 1));
  EXPECT_EQ(modes.substr(0, 2), ".O");
  // Hysteresis: on on-demand until cp ≥ ep(t + 2): cp = t − 2 reaches (t + 2)/2 at t = 6.
  EXPECT_EQ(modes, ".OOOOOSSS");
  // Safety net: with no slack beyond 2d, UP goes on-demand at once and stays there.
  UniformProgressPolicy tight;
  EXPECT_EQ(RunModes(tight, "111111111111", MakeJob(6, 7, 1)), "OOOOOOO");
}

TEST(SpotPolicies, UniformProgressStaysOnSpotWhileAvailable) {
  UniformProgressPolicy up;
  EXPECT_EQ(RunModes(up, "1111111111111", MakeJob(6, 12, 1)), "SSSSSSS");
}

TEST(SpotPolicies, FrugalWaitsWhileSpareTimeIsAboveTheReserve) {
  FrugalPolicy frugal;
  // Plenty of slack: the outage is waited out, everything runs on spot.
  const std::string modes = RunModes(frugal, std::string(10, '1') + std::string(6, '0') +
                                            std::string(40, '1'),
                                MakeJob(12, 40, 1));
  EXPECT_EQ(modes.find('O'), std::string::npos) << modes;
}

TEST(SpotPolicies, FrugalCoversLongOutagesOnDemandAndReturnsToSpot) {
  FrugalPolicy frugal;
  // Tight: C=20, D=26, d=1 — spare 5 at the start. A long outage must be covered by
  // on-demand, and a long spot run afterwards is worth returning for.
  // Past: long spot runs (so returning pays).
  std::string past;
  for (int i = 0; i < 6; ++i) past += std::string(30, '1') + std::string(5, '0');
  const std::string job_window = std::string(3, '1') + std::string(8, '0') + std::string(40, '1');
  std::vector<StepRecord> record;
  RunResult r = Simulate(MakeStepTrace(past + job_window), static_cast<int>(past.size()),
                         MakeJob(20, 26, 1), frugal, &record);
  EXPECT_TRUE(r.deadline_met);
  const std::string modes = Modes(record);
  EXPECT_EQ(modes.substr(0, 3), "SSS") << modes;
  EXPECT_NE(modes.find('O'), std::string::npos) << modes;
  EXPECT_NE(modes.rfind('S'), 2u) << modes;  // back on spot after the outage
}

TEST(SpotPolicies, FrugalStaysOnDemandWhenSpotRunsAreTooShortToPay) {
  FrugalPolicy frugal;
  std::string past;
  for (int i = 0; i < 30; ++i) past += "10000";  // spot never lives more than a step
  std::vector<StepRecord> record;
  std::string window = "00";
  for (int i = 0; i < 10; ++i) window += "10000";
  RunResult r = Simulate(MakeStepTrace(past + window), static_cast<int>(past.size()),
                         MakeJob(12, 30, 2), frugal, &record);
  EXPECT_TRUE(r.deadline_met);
  EXPECT_EQ(r.spot_steps, 0) << Modes(record);
}

}  // namespace
}  // namespace frugal::spot

#include "frugal/plan/checkpointing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace frugal::plan {
namespace {

TEST(Checkpointing, YoungIsTheSquareRootOfTwoCM) {
  EXPECT_DOUBLE_EQ(YoungInterval(0.1, 5.0), 1.0);
  EXPECT_DOUBLE_EQ(YoungInterval(2.0 / 60, 1.0 / 0.3), std::sqrt(2.0 * (2.0 / 60) / 0.3));
}

TEST(Checkpointing, DalyAddsHigherOrderTermsAndCapsAtM) {
  // C = 0.1, M = 5: √(2CM) = 1, C/2M = 0.01: 1·(1 + 0.1/3 + 0.01/9) − 0.1
  EXPECT_NEAR(DalyInterval(0.1, 5.0), 1.0 + 0.1 / 3 + 0.01 / 9 - 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(DalyInterval(3.0, 1.0), 1.0);
}

TEST(Checkpointing, ExpectedWallTimeIsDalysClosedForm) {
  const double t = ExpectedWallHours(10, 1, 0.1, 0.1, 5);
  EXPECT_NEAR(t, 5 * std::exp(0.02) * (std::exp(0.22) - 1) * 10, 1e-9);
  EXPECT_NEAR(t, 12.5525, 1e-3);
}

// The closed form against a seeded simulation of the process it models: segments of τ work
// plus a checkpoint; a failure loses the segment and costs a restart (which can fail too).
TEST(Checkpointing, ClosedFormMatchesASeededSimulation) {
  const double tau = 0.5, c = 0.05, r = 0.1, m = 2.0;
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> failure(1.0 / m);
  const int segments = 200'000;
  double time = 0;
  for (int s = 0; s < segments; ++s) {
    while (true) {
      const double f = failure(rng);
      if (f >= tau + c) {
        time += tau + c;
        break;
      }
      time += f;
      while (true) {
        const double g = failure(rng);
        if (g >= r) {
          time += r;
          break;
        }
        time += g;
      }
    }
  }
  const double expected = ExpectedWallHours(segments * tau, tau, c, r, m);
  EXPECT_NEAR(time / expected, 1.0, 0.01);
}

TEST(Checkpointing, PeriodicRunBreaksDownItsOverhead) {
  FaultTolerance ft;
  ft.checkpoint_write_hours = 0.1;
  ft.restart_hours = 0.1;
  const SpotRun run = ModelSpotRun(10, 0.2, ft, std::nullopt);
  EXPECT_EQ(run.strategy, CheckpointStrategy::kPeriodic);
  EXPECT_DOUBLE_EQ(run.interval_hours, DalyInterval(0.1, 5));
  EXPECT_DOUBLE_EQ(run.expected_wall_hours, ExpectedWallHours(10, run.interval_hours, 0.1, 0.1, 5));
  EXPECT_DOUBLE_EQ(run.expected_preemptions, 0.2 * run.expected_wall_hours);
  EXPECT_DOUBLE_EQ(run.checkpoint_hours, 10 / run.interval_hours * 0.1);
  EXPECT_NEAR(run.checkpoint_hours + run.restart_hours + run.lost_work_hours + 10,
              run.expected_wall_hours, 1e-9);
  EXPECT_GT(run.lost_work_hours, 0);
}

TEST(Checkpointing, CheckpointOnNoticeLosesOnlyRestartsWhenTheSaveFitsTheNotice) {
  FaultTolerance ft;
  ft.checkpoint_on_notice = true;
  ft.notice_hours = 2.0 / 60;
  ft.checkpoint_write_hours = 1.0 / 60;
  ft.restart_hours = 0.1;
  const SpotRun run = ModelSpotRun(10, 0.5, ft, std::nullopt);
  EXPECT_EQ(run.strategy, CheckpointStrategy::kOnNotice);
  EXPECT_DOUBLE_EQ(run.expected_wall_hours, 10 / (1 - 0.5 * (0.1 + 1.0 / 60)));
  EXPECT_DOUBLE_EQ(run.lost_work_hours, 0);
  ft.checkpoint_write_hours = 3.0 / 60;  // too slow for the notice: periodic
  EXPECT_EQ(ModelSpotRun(10, 0.5, ft, std::nullopt).strategy, CheckpointStrategy::kPeriodic);
}

TEST(Checkpointing, DeadlineRiskIsAPoissonTail) {
  EXPECT_NEAR(PoissonTail(2.0, 1), 1 - std::exp(-2.0) * (1 + 2), 1e-12);
  EXPECT_DOUBLE_EQ(PoissonTail(2.0, -1), 1.0);
  EXPECT_DOUBLE_EQ(PoissonTail(0.0, 3), 0.0);
  FaultTolerance ft;
  ft.checkpoint_on_notice = true;
  ft.checkpoint_write_hours = 0;
  ft.restart_hours = 0.25;
  // 4 h of work, 5 h deadline: the slack absorbs 4 preemptions at 0.25 h each.
  const SpotRun run = ModelSpotRun(4, 0.5, ft, 5.0);
  EXPECT_NEAR(run.deadline_miss_probability, PoissonTail(0.5 * run.expected_wall_hours, 4), 1e-12);
  EXPECT_DOUBLE_EQ(ModelSpotRun(4, 0.5, ft, 3.9).deadline_miss_probability, 1.0);
  EXPECT_DOUBLE_EQ(ModelSpotRun(4, 0.0, ft, 5.0).deadline_miss_probability, 0.0);
}

TEST(Checkpointing, FallbackPricesTheSwitchByItsProbability) {
  SpotRun spot;
  spot.viable = true;
  spot.expected_wall_hours = 5;
  spot.deadline_miss_probability = 0.2;
  // W = 4, T = 5: progress 0.8/h; D = 6: switch at (6 − 4)/(1 − 0.8) = 10 → capped at 6.
  FallbackRun f = ModelFallback(4, spot, 1.0, 3.0, 6);
  EXPECT_DOUBLE_EQ(f.switch_at_hours, 6);
  EXPECT_DOUBLE_EQ(f.expected_cost_dollars, 0.8 * 5 + 0.2 * 6);
  // D = 4.2: switch at 0.2/0.2 = 1 h; then 3.2 h on demand.
  f = ModelFallback(4, spot, 1.0, 3.0, 4.2);
  EXPECT_NEAR(f.switch_at_hours, 1.0, 1e-12);
  EXPECT_NEAR(f.expected_cost_dollars, 0.8 * 5 + 0.2 * (1.0 + 3.0 * 3.2), 1e-12);
}

}  // namespace
}  // namespace frugal::plan

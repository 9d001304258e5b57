#include "frugal/tune/budget_gate.h"

#include <gtest/gtest.h>

namespace frugal::tune {
namespace {

Rate Price(int64_t cents) { return Rate{Money::FromCents(cents)}; }

TEST(BudgetGate, CapIsTheTighterOfDollarsAndGpuHours) {
  Gates g;
  g.budget = Money::FromCents(100'00);
  g.max_gpu_hours = 20;
  // $100 at $2.50 per GPU-hour is 40 GPU-hours: the 20 GPU-hour cap binds first.
  EXPECT_DOUBLE_EQ(BudgetGate(g, Price(250), 1).cap_gpu_seconds(), 20 * 3600.0);
  // At $10 per GPU-hour $100 buys 10 GPU-hours: the dollar cap binds.
  EXPECT_DOUBLE_EQ(BudgetGate(g, Price(1000), 1).cap_gpu_seconds(), 10 * 3600.0);
}

TEST(BudgetGate, ReservationsCountAgainstTheCap) {
  Gates g;
  g.budget = Money::FromCents(10'00);
  BudgetGate gate(g, Price(100), 2);  // 2 GPUs per trial: $1 buys 30 wall minutes
  EXPECT_TRUE(gate.Fits(5 * 3600.0, 0.0));
  EXPECT_FALSE(gate.Fits(3 * 3600.0, 2.5 * 3600.0));
  gate.Accrue(4 * 3600.0);
  EXPECT_EQ(gate.spend(), Money::FromCents(8'00));
  EXPECT_TRUE(gate.Fits(3600.0, 0.0));
  EXPECT_FALSE(gate.Fits(3600.0 + 1, 0.0));
  EXPECT_EQ(gate.Overshoot(), Money{});
  gate.Accrue(1.5 * 3600.0);
  EXPECT_EQ(gate.Overshoot(), Money::FromCents(1'00));
}

TEST(BudgetGate, TrialCap) {
  Gates g;
  g.max_trials = 40;
  const BudgetGate gate(g, std::nullopt, 1);
  EXPECT_TRUE(gate.MayStartTrial(39));
  EXPECT_FALSE(gate.MayStartTrial(40));
  EXPECT_TRUE(gate.Fits(1e12, 0.0));  // no cap at all
}

TEST(CostEstimator, PriorUntilObserved) {
  CostEstimator e(std::optional<double>(240.0));
  EXPECT_EQ(e.SecondsPerUnit(), 240.0);
  e.Observe(2, 100);
  EXPECT_EQ(e.SecondsPerUnit(), 50.0);
  EXPECT_FALSE(CostEstimator(std::nullopt).SecondsPerUnit());
}

}  // namespace
}  // namespace frugal::tune

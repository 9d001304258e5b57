#include "frugal/run/budget_guard.h"

#include <gtest/gtest.h>

namespace frugal::run {
namespace {

using std::chrono::minutes;
using std::chrono::seconds;

Rate PerHour(int cents) { return Rate{Money::FromCents(cents)}; }

TEST(BudgetGuard, SpendIsPriceTimesTotalElapsed) {
  BudgetGuard guard({}, PerHour(306), 1);
  for (int i = 1; i <= 3600; ++i) guard.Accrue(seconds(i));
  EXPECT_EQ(guard.usage().spent, Money::FromCents(306));
  EXPECT_DOUBLE_EQ(guard.usage().gpu_hours, 1.0);
}

TEST(BudgetGuard, WarnsOnceAtEightyPercentThenStopsAtTheCap) {
  BudgetCaps caps;
  caps.dollars = Money::FromCents(100);
  BudgetGuard guard(caps, PerHour(100), 1);  // $1/h: the cap is one hour
  EXPECT_FALSE(guard.Accrue(minutes(47)).warn);
  const BudgetCheck at48 = guard.Accrue(minutes(48));
  ASSERT_TRUE(at48.warn);
  EXPECT_EQ(*at48.warn, CapKind::kDollars);
  EXPECT_FALSE(at48.exceeded);
  EXPECT_FALSE(guard.Accrue(minutes(50)).warn);
  EXPECT_FALSE(guard.Accrue(minutes(59)).exceeded);
  const BudgetCheck at60 = guard.Accrue(minutes(60));
  ASSERT_TRUE(at60.exceeded);
  EXPECT_EQ(*at60.exceeded, CapKind::kDollars);
  guard.Accrue(minutes(61));
  EXPECT_EQ(guard.DollarOvershoot(), Money::FromMicros(16'667));
  EXPECT_EQ(guard.Overshoot(CapKind::kDollars), "$0.0167");
}

TEST(BudgetGuard, GpuHoursCountEveryGpu) {
  BudgetCaps caps;
  caps.gpu_hours = 8.0;
  BudgetGuard guard(caps, PerHour(1000), 8);
  EXPECT_FALSE(guard.Accrue(minutes(59)).exceeded);
  EXPECT_EQ(*guard.Accrue(minutes(60)).exceeded, CapKind::kGpuHours);
}

TEST(BudgetGuard, WallCapAndPriorAttemptsCount) {
  BudgetCaps caps;
  caps.wall = minutes(10);
  BudgetGuard guard(caps, PerHour(100), 1, BudgetUsage{Money::FromCents(5), 0.1, minutes(6)});
  EXPECT_FALSE(guard.Accrue(minutes(3)).exceeded);
  EXPECT_EQ(*guard.Accrue(minutes(4)).exceeded, CapKind::kWall);
  EXPECT_EQ(guard.usage().spent, Money::FromCents(5) + Rate{Money::FromCents(100)}.For(minutes(4)));
}

TEST(BudgetGuard, ElapsedNeverGoesBackwards) {
  BudgetGuard guard({}, PerHour(100), 1);
  guard.Accrue(minutes(10));
  guard.Accrue(minutes(5));
  EXPECT_EQ(guard.usage().wall, minutes(10));
}

}  // namespace
}  // namespace frugal::run

#include "frugal/core/clock.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace frugal {
namespace {

using std::chrono::milliseconds;

TEST(FakeClock, MovesOnlyWhenAdvancedAndBothClocksTogether) {
  const WallTime start = WallTime(std::chrono::seconds(1'800'000'000));
  FakeClock clock(start);
  const SteadyTime steady = clock.Steady();
  EXPECT_EQ(clock.Wall(), start);
  EXPECT_EQ(clock.Steady(), steady);
  clock.Advance(milliseconds(1500));
  EXPECT_EQ(clock.Steady() - steady, milliseconds(1500));
  EXPECT_EQ(clock.Wall() - start, milliseconds(1500));
  clock.Advance(milliseconds(0));
  EXPECT_EQ(clock.Wall() - start, milliseconds(1500));
}

TEST(FakeClock, AdvancesFromManyThreadsAddUp) {
  FakeClock clock;
  const SteadyTime steady = clock.Steady();
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&clock] {
      for (int i = 0; i < 1000; ++i) clock.Advance(milliseconds(1));
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(clock.Steady() - steady, milliseconds(4000));
}

TEST(RealClock, SteadyTimeNeverGoesBack) {
  const Clock& clock = RealClock();
  SteadyTime last = clock.Steady();
  for (int i = 0; i < 1000; ++i) {
    const SteadyTime now = clock.Steady();
    EXPECT_GE(now, last);
    last = now;
  }
  EXPECT_GT(clock.Wall().time_since_epoch().count(), 0);
}

}  // namespace
}  // namespace frugal

// The supervised runner reads time from the clock it is given: the study clock a tuner reports
// moves with a fake clock, not with the machine's.

#include <gtest/gtest.h>

#include "frugal/core/clock.h"
#include "frugal/tune/supervised_runner.h"

namespace frugal::tune {
namespace {

TEST(SupervisedRunnerClock, TheStudyClockIsTheGivenClocksAndCarriesEarlierTuners) {
  FakeClock clock;
  SupervisedRunnerOptions options;
  options.command = {"/bin/true"};
  options.clock = &clock;
  SupervisedRunner runner(options);
  EXPECT_DOUBLE_EQ(runner.Now(), 0.0);
  clock.Advance(std::chrono::seconds(90));
  EXPECT_DOUBLE_EQ(runner.Now(), 90.0);
  // A resumed study's clock goes on from what the earlier tuner process had counted.
  const nlohmann::json saved = runner.Save();
  SupervisedRunner resumed(options);
  ASSERT_TRUE(resumed.Load(saved));
  clock.Advance(std::chrono::seconds(10));
  EXPECT_DOUBLE_EQ(resumed.Now(), 100.0);
}

}  // namespace
}  // namespace frugal::tune

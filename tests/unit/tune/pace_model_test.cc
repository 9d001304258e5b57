// The pace model on its own: what it learns from reports and what it predicts from that.

#include "frugal/tune/pace_model.h"

#include <gtest/gtest.h>

namespace frugal::tune {
namespace {

TEST(PaceModel, AheadIsTheAverageUntilAnIntervalWasDearer) {
  PaceModel model;
  EXPECT_DOUBLE_EQ(model.PaceAhead(0, 2.0, false), 2.0);
  EXPECT_DOUBLE_EQ(model.PaceAhead(0, std::nullopt, false), 0.0);
  model.ObserveInterval(0, 1.0, 5.0);  // 5 s per unit over the last interval
  EXPECT_DOUBLE_EQ(model.PaceAhead(0, 2.0, false), 5.0);
  EXPECT_DOUBLE_EQ(model.PaceAhead(1, 2.0, false), 2.0);  // another trial's interval is not its
  EXPECT_DOUBLE_EQ(model.MaxPace(), 5.0);
}

TEST(PaceModel, AnIntervalThatGainedNothingTeachesNothing) {
  PaceModel model;
  model.ObserveInterval(0, 0.0, 30.0);  // a heartbeat: seconds, no fidelity
  model.ObserveInterval(0, 2.0, 0.0);
  EXPECT_FALSE(model.RecentPace(0));
  EXPECT_DOUBLE_EQ(model.MaxPace(), 0.0);
}

TEST(PaceModel, GrowthOfCompletedRunsScalesTrialsOnTheirWayWithinItsBound) {
  PaceModel model;
  // Trial 0 first reported at 10 s per unit and completed at 20 s per unit: pace doubled.
  model.ObserveFirstReport(0, 10.0, 1.0);
  model.LearnGrowth(0, 200.0, 10.0);
  EXPECT_DOUBLE_EQ(model.PaceAhead(1, 3.0, false), 6.0);
  EXPECT_DOUBLE_EQ(model.PaceAhead(1, 3.0, true), 3.0);  // a completed trial has no way ahead
  // A growth of 10x is taken for noise: bounded at kMaxPaceGrowth on average.
  model.ObserveFirstReport(2, 1.0, 1.0);
  model.LearnGrowth(2, 100.0, 10.0);                                 // 10x
  EXPECT_DOUBLE_EQ(model.PaceAhead(1, 1.0, false), kMaxPaceGrowth);  // mean 6x, bounded
}

TEST(PaceModel, LearnsGrowthOncePerFirstReport) {
  PaceModel model;
  model.ObserveFirstReport(0, 10.0, 1.0);
  model.ObserveFirstReport(0, 99.0, 2.0);  // a later report is not the first
  model.LearnGrowth(0, 20.0, 1.0);         // 2x
  model.LearnGrowth(0, 90.0, 1.0);         // used: ignored
  EXPECT_DOUBLE_EQ(model.PaceAhead(1, 1.0, false), 2.0);
}

TEST(PaceModel, FirstReportUnitsIsTheEarliestSeenCappedByTheTarget) {
  PaceModel model;
  EXPECT_DOUBLE_EQ(model.FirstReportUnits(4.0), 4.0);
  model.ObserveFirstReport(0, 10.0, 2.0);
  model.ObserveFirstReport(1, 10.0, 3.0);
  EXPECT_DOUBLE_EQ(model.FirstReportUnits(4.0), 2.0);
  EXPECT_DOUBLE_EQ(model.FirstReportUnits(1.0), 1.0);
}

TEST(PaceModel, SecondsFollowAGrowingPaceButNeverPastItsBound) {
  PaceModel model;
  // No interval: the flat figure.
  EXPECT_DOUBLE_EQ(model.Seconds(0, 2.0, false, 4.0, 10.0), 12.0);
  // The last interval (1 unit wide) at 4 s/unit against an average of 2 over [0, 5]: the pace
  // grows along the schedule and the remaining 5 units cost more than 5 x 4.
  model.ObserveInterval(0, 1.0, 4.0);
  const double grown = model.Seconds(0, 2.0, false, 5.0, 10.0);
  EXPECT_GT(grown, 20.0);
  EXPECT_LE(grown, kMaxPaceGrowth * 20.0);
  // A target behind where it is costs nothing.
  EXPECT_DOUBLE_EQ(model.Seconds(0, 2.0, false, 5.0, 3.0), 0.0);
}

TEST(PaceModel, KeptWithTheStateAndRestoredForKnownTrialsOnly) {
  PaceModel model;
  model.ObserveInterval(0, 1.0, 4.0);
  model.ObserveInterval(5, 1.0, 9.0);
  model.SetInterval(0, 30.0);
  model.SetInterval(5, 60.0);
  model.ObserveFirstReport(1, 10.0, 2.0);
  const nlohmann::json saved = model.ToJson();

  PaceModel restored;
  restored.Restore(saved, 3);  // trial 5 is unknown to a study of three trials
  EXPECT_EQ(restored.RecentPace(0), 4.0);
  EXPECT_FALSE(restored.RecentPace(5));
  EXPECT_EQ(restored.Interval(0), 30.0);
  EXPECT_FALSE(restored.Interval(5));
  EXPECT_DOUBLE_EQ(restored.MaxPace(), 9.0);  // what was seen stays seen
  EXPECT_DOUBLE_EQ(restored.FirstReportUnits(4.0), 2.0);
  EXPECT_THROW(restored.Restore(nlohmann::json::object(), 3), nlohmann::json::exception);
}

}  // namespace
}  // namespace frugal::tune

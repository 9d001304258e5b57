#include "frugal/run/preemption_source.h"

#include <gtest/gtest.h>

namespace frugal::run {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

TEST(ChaosPreemptions, ANoticeWaitsForTheSegmentsFirstProgressReport) {
  ChaosPreemptions chaos(milliseconds(400), 11, 0);
  const SteadyTime t0{};
  chaos.SegmentStarted(t0);
  // The command is still loading, long past 1.5 × every: no notice yet.
  EXPECT_FALSE(chaos.Poll(t0 + seconds(30)).has_value());
  const SteadyTime first = t0 + seconds(30);
  chaos.ProgressReported(ProgressReport{}, first);
  EXPECT_FALSE(chaos.Poll(first + milliseconds(199)).has_value());
  // Later reports of the segment do not push the notice back.
  chaos.ProgressReported(ProgressReport{}, first + milliseconds(300));
  const std::optional<PreemptionNotice> notice = chaos.Poll(first + milliseconds(600));
  ASSERT_TRUE(notice.has_value());
  EXPECT_EQ(notice->source, "chaos");
  EXPECT_EQ(chaos.fired(), 1);
  EXPECT_FALSE(chaos.Poll(first + seconds(10)).has_value());  // once per segment
}

TEST(ChaosPreemptions, TheDelaysAreTheSeedsWhenTheSegmentsArm) {
  // Two sources of one seed, one armed at once and one after a slow start, draw the same
  // delays: the notice lands the same time after arming.
  for (const ChaosArming arming : {ChaosArming::kAtFirstProgress, ChaosArming::kAtSegmentStart}) {
    ChaosPreemptions a(milliseconds(400), 5, 0, arming);
    ChaosPreemptions b(milliseconds(400), 5, 0, ChaosArming::kAtFirstProgress);
    const SteadyTime t0{};
    a.SegmentStarted(t0);
    a.ProgressReported(ProgressReport{}, t0);
    b.SegmentStarted(t0);
    b.ProgressReported(ProgressReport{}, t0 + seconds(5));
    int64_t a_ms = -1, b_ms = -1;
    for (int64_t ms = 0; ms <= 600 && (a_ms < 0 || b_ms < 0); ++ms) {
      if (a_ms < 0 && a.Poll(t0 + milliseconds(ms))) a_ms = ms;
      if (b_ms < 0 && b.Poll(t0 + seconds(5) + milliseconds(ms))) b_ms = ms;
    }
    EXPECT_GE(a_ms, 200);
    EXPECT_EQ(a_ms, b_ms);
  }
}

TEST(ChaosPreemptions, ArmedAtTheSegmentStartItNeedsNoProgress) {
  ChaosPreemptions chaos(milliseconds(400), 11, 1, ChaosArming::kAtSegmentStart);
  const SteadyTime t0{};
  chaos.SegmentStarted(t0);
  EXPECT_FALSE(chaos.Poll(t0 + milliseconds(199)).has_value());
  EXPECT_TRUE(chaos.Poll(t0 + milliseconds(600)).has_value());
  // Its one preemption spent, the next segment is left alone.
  chaos.SegmentStarted(t0 + seconds(1));
  chaos.ProgressReported(ProgressReport{}, t0 + seconds(1));
  EXPECT_FALSE(chaos.Poll(t0 + seconds(60)).has_value());
}

}  // namespace
}  // namespace frugal::run

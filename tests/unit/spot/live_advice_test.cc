// The live advice's kept plans: jobs of one shape with the same history share one solve, and
// the advice is what a fresh solve gives.

#include "frugal/spot/live_advice.h"

#include <gtest/gtest.h>

#include <vector>

namespace frugal::spot {
namespace {

using std::chrono::hours;
using std::chrono::minutes;

LiveJob Job(Duration compute) {
  LiveJob j;
  j.compute = compute;
  j.deadline = hours(48);
  j.changeover = minutes(5);
  j.price_ratio = 3;
  return j;
}

TEST(LiveAdvice, EachAdviceIsReadBackFromTheWordADecisionRecordsAndNoOtherWordIsOne) {
  for (const Mode mode : {Mode::kIdle, Mode::kSpot, Mode::kOnDemand}) {
    EXPECT_EQ(ParseAdvice(AdviceName(mode)), mode) << AdviceName(mode);
  }
  EXPECT_EQ(AdviceName(Mode::kIdle), "wait_for_spot");
  EXPECT_FALSE(ParseAdvice("move_to_on_demand"));  // the queue's move, not an advice
  EXPECT_FALSE(ParseAdvice("Spot"));
  EXPECT_FALSE(ParseAdvice(""));
}

TEST(LiveAdvice, JobsOfOneShapeAndHistoryShareOneSolveAndGetTheSameAdvice) {
  const std::vector<AvailabilitySpan> history = {{true, hours(1)}, {false, minutes(40)}};
  LiveState early;
  early.elapsed = hours(2);
  early.work_done = minutes(50);
  LiveState late = early;
  late.elapsed = hours(30);

  const int64_t before = LivePlansSolved();
  const Result<LiveAdvice> a = AdviseLive(Job(hours(20)), history, early);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_EQ(LivePlansSolved(), before + 1);
  // Another job of the same shape and history in another state: the kept plan, looked up there.
  const Result<LiveAdvice> b = AdviseLive(Job(hours(20)), history, late);
  ASSERT_TRUE(b) << b.error().message;
  EXPECT_EQ(LivePlansSolved(), before + 1);
  // The same question again gives the same answer as the first time.
  const Result<LiveAdvice> a2 = AdviseLive(Job(hours(20)), history, early);
  ASSERT_TRUE(a2);
  EXPECT_EQ(a2->mode, a->mode);
  EXPECT_EQ(a2->spare, a->spare);
  EXPECT_EQ(a2->planned, a->planned);

  // Another shape or another history is planned on its own.
  ASSERT_TRUE(AdviseLive(Job(hours(21)), history, early));
  EXPECT_EQ(LivePlansSolved(), before + 2);
  const std::vector<AvailabilitySpan> longer = {{true, hours(1)}, {false, hours(3)}};
  ASSERT_TRUE(AdviseLive(Job(hours(20)), longer, early));
  EXPECT_EQ(LivePlansSolved(), before + 3);
}

TEST(LiveAdvice, AKeptPlanAdvisesAsAFreshSolveWould) {
  // The late state asked first on a fresh shape, then the same after other shapes pushed it
  // out of the kept plans: both solves agree with the advice a kept plan gave.
  const std::vector<AvailabilitySpan> history = {{true, minutes(90)}, {false, minutes(20)}};
  LiveState s;
  s.elapsed = hours(40);
  s.work_done = hours(2);
  const Result<LiveAdvice> kept_first = AdviseLive(Job(hours(7)), history, s);
  ASSERT_TRUE(kept_first);
  const Result<LiveAdvice> reused = AdviseLive(Job(hours(7)), history, s);
  ASSERT_TRUE(reused);
  for (int h = 8; h < 14; ++h) ASSERT_TRUE(AdviseLive(Job(hours(h)), history, s));
  const int64_t before = LivePlansSolved();
  const Result<LiveAdvice> fresh = AdviseLive(Job(hours(7)), history, s);
  ASSERT_TRUE(fresh);
  EXPECT_EQ(LivePlansSolved(), before + 1) << "pushed out, solved again";
  for (const Result<LiveAdvice>* r : {&reused, &fresh}) {
    EXPECT_EQ((*r)->mode, kept_first->mode);
    EXPECT_EQ((*r)->spare, kept_first->spare);
    EXPECT_EQ((*r)->work_left, kept_first->work_left);
  }
}

}  // namespace
}  // namespace frugal::spot

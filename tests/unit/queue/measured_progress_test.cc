// A running job's measured progress, read from a journal the run's own journal writer wrote:
// the rate over the newest segment, heartbeats before the first progress left out, and a
// resumed segment measured from its first progress, not from its start.

#include "frugal/queue/measured_progress.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "frugal/run/run_journal.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

using run::EventKind;
using run::WallTime;
using std::chrono::seconds;

const WallTime kT0 = WallTime(seconds(1'796'000'000));

double At(int s) { return 1'796'000'000.0 + s; }

run::RunEvent Event(EventKind kind, int segment, int at, int64_t step) {
  run::RunEvent e;
  e.kind = kind;
  e.segment = segment;
  e.at = kT0 + seconds(at);
  e.step = step;
  return e;
}

run::Heartbeat Beat(int segment, int at, int64_t step) {
  run::Heartbeat h;
  h.segment = segment;
  h.at = kT0 + seconds(at);
  h.step = step;
  return h;
}

TEST(MeasuredProgress, RateOverTheNewestSegmentAndTheFinishItGives) {
  testing::TempDir dir;
  const auto path = dir / "journal.jsonl";
  EXPECT_FALSE(ReadMeasuredProgress(path));  // no journal yet
  run::RunJournal journal(path);
  ASSERT_TRUE(journal.Open());
  journal.SegmentOpened({1, kT0, std::nullopt, 0});
  journal.RecordHeartbeat(Beat(1, 0, 0));  // before any progress: not a measurement
  EXPECT_FALSE(ReadMeasuredProgress(path));
  journal.Event(Event(EventKind::kCheckpointCommitted, 1, 20, 10));
  // One point: the step is known, the rate is not.
  auto m = ReadMeasuredProgress(path);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->step, 10);
  EXPECT_EQ(m->steps_per_second, 0);
  EXPECT_FALSE(MeasuredFinish(*m, 100));
  journal.RecordHeartbeat(Beat(1, 30, 60));
  m = ReadMeasuredProgress(path);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->step, 60);
  EXPECT_DOUBLE_EQ(m->at, At(30));
  EXPECT_DOUBLE_EQ(m->steps_per_second, 5.0);  // 50 steps in 10 s
  // 40 steps left at 5/s: 8 s after the last step was recorded.
  EXPECT_DOUBLE_EQ(*MeasuredFinish(*m, 100), At(38));
  EXPECT_DOUBLE_EQ(*MeasuredFinish(*m, 60), At(30));  // done: finishes when it was seen
  EXPECT_FALSE(MeasuredFinish(*m, 0));                // no total: no finish

  // A second segment after a preemption: its heartbeat before the command spoke carries the
  // old step, and the load time before its first progress is not part of the rate.
  journal.SegmentClosed({1, kT0 + seconds(31), run::SegmentEnd::kPreempted, std::nullopt, {}, 60});
  journal.SegmentOpened({2, kT0 + seconds(100), std::nullopt, 60});
  journal.RecordHeartbeat(Beat(2, 101, 60));
  journal.Event(Event(EventKind::kResumed, 2, 140, 61));
  journal.RecordHeartbeat(Beat(2, 150, 81));
  m = ReadMeasuredProgress(path);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->step, 81);
  EXPECT_DOUBLE_EQ(m->steps_per_second, 2.0);  // 20 steps in the 10 s after the resume
  EXPECT_DOUBLE_EQ(*MeasuredFinish(*m, 101), At(160));
}

TEST(MeasuredProgress, ASegmentLongerThanTheTailReadIsMeasuredOverItsNewestRecords) {
  testing::TempDir dir;
  const auto path = dir / "journal.jsonl";
  run::RunJournal journal(path);
  ASSERT_TRUE(journal.Open());
  journal.SegmentOpened({1, kT0, std::nullopt, 0});
  // A day-long segment: a step a second at first, then ten a second; its heartbeats come to
  // more than the bytes read back, so only the newer pace is in what is read.
  int64_t step = 0;
  int t = 0;
  for (; t < 12000; ++t) journal.RecordHeartbeat(Beat(1, t, ++step));
  for (; t < 24000; ++t) journal.RecordHeartbeat(Beat(1, t, step += 10));
  ASSERT_GT(std::filesystem::file_size(path), 2 * kMeasuredTailBytes);
  const auto m = ReadMeasuredProgress(path);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->step, step);
  EXPECT_DOUBLE_EQ(m->at, At(t - 1));
  EXPECT_DOUBLE_EQ(m->steps_per_second, 10.0);
  // A new segment opened near the end is measured from its opening, older ones left out.
  journal.SegmentClosed({1, kT0 + seconds(t), run::SegmentEnd::kPreempted, std::nullopt, {}, step});
  journal.SegmentOpened({2, kT0 + seconds(t + 10), std::nullopt, step});
  journal.RecordHeartbeat(Beat(2, t + 20, step + 3));
  journal.RecordHeartbeat(Beat(2, t + 30, step + 63));
  const auto next = ReadMeasuredProgress(path);
  ASSERT_TRUE(next);
  EXPECT_EQ(next->step, step + 63);
  EXPECT_DOUBLE_EQ(next->steps_per_second, 6.0);
}

}  // namespace
}  // namespace frugal::queue

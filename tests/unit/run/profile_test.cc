#include "frugal/run/profile.h"

#include <gtest/gtest.h>

namespace frugal::run {
namespace {

using std::chrono::milliseconds;

ProgressReport Step(int64_t step) {
  ProgressReport r;
  r.step = step;
  return r;
}

ProgressPoint At(int64_t ms, int64_t step, std::optional<double> tokens = std::nullopt,
                 std::optional<double> samples = std::nullopt) {
  return {SteadyTime(milliseconds(ms)), step, tokens, samples, std::nullopt};
}

TEST(MeasureThroughput, RatesRunFromTheFirstReportToTheLast) {
  // Start-up before step 1 is not in the rate: 40 steps in 4 s is 10 steps/s.
  auto t = MeasureThroughput(
      {At(9000, 1, 512, 8), At(11000, 21, 512 * 21, 168), At(13000, 41, 512 * 41, 328)});
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->measured, milliseconds(4000));
  EXPECT_EQ(t->steps, 40);
  EXPECT_DOUBLE_EQ(t->steps_per_second, 10.0);
  EXPECT_DOUBLE_EQ(*t->tokens_per_second, 5120.0);
  EXPECT_DOUBLE_EQ(*t->samples_per_second, 80.0);
}

TEST(MeasureThroughput, CountsOnlyWhenBothEndsCarryThem) {
  auto t = MeasureThroughput({At(0, 1), At(1000, 11, 5000)});
  ASSERT_TRUE(t);
  EXPECT_DOUBLE_EQ(t->steps_per_second, 10.0);
  EXPECT_FALSE(t->tokens_per_second);
  EXPECT_FALSE(t->samples_per_second);
}

TEST(MeasureThroughput, TimesByTheChildsClockWhenBothEndsCarryIt) {
  // Read in the same poll (no time apart by frugal's clock), 0.25 s apart by the child's.
  ProgressPoint first = At(500, 1, 100);
  ProgressPoint last = At(500, 51, 5100);
  first.child_seconds = 1000.0;
  last.child_seconds = 1000.25;
  auto t = MeasureThroughput({first, last});
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_DOUBLE_EQ(t->steps_per_second, 200.0);
  EXPECT_DOUBLE_EQ(*t->tokens_per_second, 20000.0);
  EXPECT_EQ(t->measured, milliseconds(250));
  last.child_seconds.reset();  // one end without: frugal's clock, which saw no time pass
  EXPECT_FALSE(MeasureThroughput({first, last}));
}

TEST(MeasureThroughput, LeavesTheDowntimeBetweenSegmentsOut) {
  // 10 steps in 1 s, a preemption, 60 s down, then 20 steps in 2 s after the restart (steps
  // lost to the preemption are redone): 30 steps over 3 s of work, not over 63 s.
  std::vector<ProgressPoint> points = {At(0, 1, 100), At(1000, 11, 1100), At(61000, 5, 500),
                                       At(62000, 15, 1500), At(63000, 25, 2500)};
  points[2].segment = points[3].segment = points[4].segment = 1;
  auto t = MeasureThroughput(points);
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->steps, 30);
  EXPECT_DOUBLE_EQ(t->steps_per_second, 10.0);
  EXPECT_DOUBLE_EQ(*t->tokens_per_second, 1000.0);
  EXPECT_EQ(t->measured, milliseconds(3000));
  // A segment with one report adds nothing; one without counts drops the counts' rate.
  points.push_back(At(90000, 2));
  points.back().segment = 2;
  auto more = MeasureThroughput(points);
  ASSERT_TRUE(more);
  EXPECT_EQ(more->steps, 30);
  points.push_back(At(91000, 12));
  points.back().segment = 2;
  auto without = MeasureThroughput(points);
  ASSERT_TRUE(without);
  EXPECT_EQ(without->steps, 40);
  EXPECT_FALSE(without->tokens_per_second);
}

TEST(ProfileMeter, NumbersTheSegmentsItSees) {
  ProfileMeter meter({});
  meter.SegmentStarted(SteadyTime(milliseconds(0)));
  meter.ProgressReported(Step(1), SteadyTime(milliseconds(10)));
  meter.SegmentStarted(SteadyTime(milliseconds(20)));
  meter.ProgressReported(Step(1), SteadyTime(milliseconds(30)));
  ASSERT_EQ(meter.points().size(), 2u);
  EXPECT_EQ(meter.points()[0].segment, 0);
  EXPECT_EQ(meter.points()[1].segment, 1);
  EXPECT_FALSE(meter.Poll(SteadyTime(milliseconds(1000000))));  // no limits: never stops a run
}

TEST(VisibleGpuNames, FollowsCudaVisibleDevicesLikeCuda) {
  const std::vector<std::string> eight(8, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(VisibleGpuNames(eight, std::nullopt).size(), 8u);  // unset: every GPU
  EXPECT_EQ(VisibleGpuNames(eight, "0").size(), 1u);           // a 1-GPU job on an 8-GPU box
  EXPECT_EQ(VisibleGpuNames(eight, "2, 5").size(), 2u);
  EXPECT_EQ(VisibleGpuNames(eight, "GPU-8a1c2f3e-aaaa").size(), 1u);
  EXPECT_TRUE(VisibleGpuNames(eight, "").empty());  // none: the job runs on the CPU
  EXPECT_TRUE(VisibleGpuNames(eight, "-1").empty());
  EXPECT_EQ(VisibleGpuNames(eight, "1,9,2").size(), 1u);  // CUDA stops at the first bad entry
  EXPECT_EQ(VisibleGpuNames(eight, "3,x,4").size(), 1u);
  const std::vector<std::string> mixed = {"Tesla T4", "NVIDIA L4"};
  EXPECT_EQ(VisibleGpuNames(mixed, "1"), std::vector<std::string>{"NVIDIA L4"});
  EXPECT_TRUE(VisibleGpuNames({}, "0").empty());
}

TEST(MeasureThroughput, RefusesTooLittleToMeasure) {
  EXPECT_EQ(MeasureThroughput({}).error().code, ErrorCode::kFailed);
  EXPECT_NE(MeasureThroughput({At(0, 1)}).error().message.find("two progress reports"),
            std::string::npos);
  EXPECT_FALSE(MeasureThroughput({At(0, 1), At(0, 5)}));     // no time between them
  EXPECT_FALSE(MeasureThroughput({At(0, 5), At(1000, 5)}));  // no step between them
}

TEST(ProfileMeter, AsksToStopAtTheStepLimitOnce) {
  ProfileMeter meter({.steps = 10, .duration = std::nullopt});
  const SteadyTime t0(milliseconds(0));
  meter.SegmentStarted(t0);
  meter.ProgressReported(Step(9), t0);
  EXPECT_FALSE(meter.Poll(t0));
  meter.ProgressReported(Step(10), t0);
  auto notice = meter.Poll(t0);
  ASSERT_TRUE(notice);
  EXPECT_TRUE(notice->stop_request);
  EXPECT_EQ(meter.stopped_by(), "steps");
  EXPECT_FALSE(meter.Poll(t0));  // once
  EXPECT_EQ(meter.points().size(), 2u);
}

TEST(ProfileMeter, AsksToStopAfterTheDuration) {
  ProfileMeter meter({.steps = std::nullopt, .duration = milliseconds(2000)});
  meter.SegmentStarted(SteadyTime(milliseconds(1000)));
  EXPECT_FALSE(meter.Poll(SteadyTime(milliseconds(2999))));
  ASSERT_TRUE(meter.Poll(SteadyTime(milliseconds(3000))));
  EXPECT_EQ(meter.stopped_by(), "time");
}

TEST(ProgressCounts, ParsedWhenGivenAndGarbageWhenNotNumbers) {
  auto line = ParseReportLine(
      R"({"type":"progress","step":3,"tokens":1536,"samples":12,"t":1764180000.5,"metrics":{}})");
  ASSERT_TRUE(line) << line.error().message;
  const auto& p = std::get<ProgressReport>(**line);
  EXPECT_DOUBLE_EQ(*p.tokens, 1536);
  EXPECT_DOUBLE_EQ(*p.samples, 12);
  EXPECT_DOUBLE_EQ(*p.time_seconds, 1764180000.5);
  auto plain = ParseReportLine(R"({"type":"progress","step":3})");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(std::get<ProgressReport>(**plain).tokens);
  EXPECT_FALSE(std::get<ProgressReport>(**plain).time_seconds);
  for (const char* bad : {R"({"type":"progress","step":3,"tokens":"many"})",
                          R"({"type":"progress","step":3,"samples":-1})",
                          R"({"type":"progress","step":3,"t":null})"}) {
    EXPECT_FALSE(ParseReportLine(bad)) << bad;
  }
}

TEST(CpuModelName, ReadsTheModelNameLine) {
  EXPECT_EQ(CpuModelName("processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC "
                         "7B13 64-Core Processor\nflags\t: fpu\n"),
            "AMD EPYC 7B13 64-Core Processor");
  EXPECT_EQ(CpuModelName("processor\t: 0\nHardware\t: BCM2835\n"), "BCM2835");
  EXPECT_EQ(CpuModelName(""), "unknown CPU");
  EXPECT_EQ(CpuModelName("model name\t:\n"), "unknown CPU");
}

// The name `frugal profile` stores a command under, and its run folder.
TEST(ProfileName, IsTheFlagElseTheScriptElseTheProgram) {
  EXPECT_EQ(ProfileName("bert", {"python3", "train.py"}).value(), "bert");
  EXPECT_EQ(ProfileName("", {"/usr/bin/python3", "-u", "src/train.py", "--lr", "3"}).value(),
            "train");
  EXPECT_EQ(ProfileName("", {"torchrun", "--standalone", "finetune.py"}).value(), "finetune");
  EXPECT_EQ(ProfileName("", {"./bin/trainer", "config.yaml"}).value(), "trainer");
  EXPECT_EQ(ProfileName("", {"bash"}).value(), "bash");
  for (const std::string& bad : {std::string("a/b"), std::string(".."), std::string(201, 'x')}) {
    const auto r = ProfileName(bad, {"python3", "train.py"});
    ASSERT_FALSE(r) << bad;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find("--name"), std::string::npos);
  }
  EXPECT_FALSE(ProfileName("\xff", {"python3", "train.py"}));
}

TEST(ProfileWorkDirName, KeepsSafeCharactersAndTheTime) {
  const ledger::Timestamp t = ledger::FromMillis(1'767'225'600'000);
  EXPECT_EQ(ProfileWorkDirName("bert-v1.2_a", t), "profile-bert-v1.2_a-1767225600000");
  EXPECT_EQ(ProfileWorkDirName("my run:é", t), "profile-my_run___-1767225600000");
  EXPECT_EQ(ProfileWorkDirName(std::string(100, 'a'), t),
            "profile-" + std::string(64, 'a') + "-1767225600000");
}

TEST(ShortWindowWarning, WarnsWhenTheMeasuredStretchIsTooShortToTrust) {
  // 63 steps in 2 ms (a rate of tens of thousands per second): a warning that says so.
  ledger::NewProfile p;
  p.steps = 63;
  p.measured = milliseconds(2);
  const auto warning = ShortWindowWarning(p);
  ASSERT_TRUE(warning);
  EXPECT_NE(warning->find("0.00s (63 steps): too short"), std::string::npos) << *warning;
  EXPECT_NE(warning->find("--steps"), std::string::npos) << *warning;
  p.measured = milliseconds(4000);
  EXPECT_FALSE(ShortWindowWarning(p));
}

}  // namespace
}  // namespace frugal::run

#include "frugal/run/self_checks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>

#include "frugal/monitor/sampler.h"
#include "frugal/run/run_journal.h"
#include "run_test_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

using std::chrono::milliseconds;

bool Advises(const RunResult& r) {
  for (const SelfCheck& c : RunSelfChecks(r, false)) {
    if (c.id == "gpu_underutilized") return true;
  }
  return false;
}

// The right-size advice judges the GPU by the samples taken while training, and only with
// enough of them: start-up and resumes idle any GPU, so a short run's average is not a verdict.
TEST(SelfChecks, TheRightSizeAdviceJudgesTheTrainingSamplesAndNeedsEnoughOfThem) {
  RunResult r;
  r.outcome = RunOutcome::kFinished;
  r.utilization.gpu_util_mean = 41;  // a short run: start-up and checkpoints in the average
  r.utilization.gpu_util_training_mean = 85;
  r.utilization.gpu_training_samples = 40;
  EXPECT_FALSE(Advises(r));
  r.utilization.gpu_util_training_mean = 30;
  EXPECT_TRUE(Advises(r));
  r.utilization.gpu_training_samples = kMinTrainingSamples - 1;
  EXPECT_FALSE(Advises(r));
  r.utilization.gpu_training_samples = kMinTrainingSamples;
  r.outcome = RunOutcome::kFailed;  // may have died of out-of-memory
  EXPECT_FALSE(Advises(r));
}

TEST(SelfChecks, TheSpotReadyVerdictNeverRoundsTheSlowestResumeDown) {
  RunResult r;
  r.resume_times = {milliseconds(400), milliseconds(1230)};
  std::string verdict;
  for (const SelfCheck& c : RunSelfChecks(r, true)) {
    if (c.id == "spot_ready") verdict = c.message;
  }
  EXPECT_NE(verdict.find("in at most 1.23s"), std::string::npos) << verdict;
  EXPECT_EQ(FormatDurationAtMost(milliseconds(1231)), "1.24s");
  EXPECT_EQ(FormatDurationAtMost(milliseconds(61'200)), "1m02s");
  EXPECT_EQ(FormatDurationAtMost(milliseconds(850)), "850ms");
}

// A GPU that idles for the command's first 400 ms (imports, model build) and is busy after.
class StartUpThenBusyGpu : public monitor::Sampler {
 public:
  monitor::Sample Take(pid_t /*pgid*/) override {
    monitor::Sample s;
    s.at = std::chrono::system_clock::now();
    s.gpu_util_percent = std::chrono::steady_clock::now() - start_ < milliseconds(400) ? 0.0 : 90.0;
    return s;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

TEST(SelfChecks, SamplesBeforeTheFirstProgressReportAreNotTraining) {
  frugal::testing::TempDir dir;
  testing::UsePythonHelper();
  std::string counter;
  for (const std::string& arg : testing::CounterCommand(25, 0.04, 100)) counter += " '" + arg + "'";
  SupervisorConfig c;
  c.command = testing::Shell("sleep 0.6; exec" + counter);
  c.run_id = "gpu-samples";
  c.run_dir = dir.path() / "run";
  c.price = Rate{Money::FromCents(360)};
  c.accrual_interval = milliseconds(50);
  c.heartbeat_interval = milliseconds(200);
  c.sample_interval = milliseconds(40);
  RunJournal journal(c.run_dir / "journal.jsonl");
  Supervisor supervisor(c, journal);
  supervisor.SetSampler(std::make_unique<StartUpThenBusyGpu>());
  auto r = supervisor.Run();
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const UtilizationSummary& u = r->utilization;
  ASSERT_TRUE(u.gpu_util_mean && u.gpu_util_training_mean);
  EXPECT_LT(*u.gpu_util_mean, 80);  // the idle start-up is in the plain average
  EXPECT_DOUBLE_EQ(*u.gpu_util_training_mean, 90);
  EXPECT_GT(u.gpu_training_samples, 0);
  EXPECT_LT(u.gpu_training_samples, u.samples);
}

}  // namespace
}  // namespace frugal::run

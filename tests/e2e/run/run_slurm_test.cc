// frugal run as a real Slurm batch job (examples/slurm/frugal-job.sbatch) on a single-node
// cluster started by the test: a job that Slurm requeues (as preemption with
// PreemptMode=REQUEUE does), one that frugal asks to requeue (exit 75), and one given the
// checkpoint notice Slurm sends before a time limit all come back with the same job id, resume
// from their last checkpoint under one ledger run, and end with the result an uninterrupted
// run gives.

#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <thread>

#include "run_e2e_support.h"
#include "slurm_cluster.h"
#include "support/test_support.h"

namespace frugal::run::e2e {
namespace {

namespace fs = std::filesystem;
using frugal::testing::ReadTestFile;
using frugal::testing::RunFrugal;
using frugal::testing::SlurmCluster;
using frugal::testing::TempDir;
using json = nlohmann::json;

constexpr int kSteps = 24;

using frugal::testing::CounterValue;
class SlurmRun : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = SlurmCluster::Start(); }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override {
    // A machine that cannot run a cluster skips; one that should and did not is a failure.
    if (!cluster_ && SlurmCluster::unavailable()) GTEST_SKIP() << SlurmCluster::why();
    if (!cluster_) FAIL() << SlurmCluster::why();
  }

  /// Submits the example batch script running the counter under `frugal run`; the job id.
  std::string Submit() {
    const fs::path binary_dir = fs::path(FRUGAL_BINARY).parent_path();
    const char* path = std::getenv("PATH");
    const testing::CommandResult submitted = cluster_->Client(
        "sbatch",
        Concat({"--parsable", "--job-name=frugal-test", "-o", (home_ / "job.log").string(),
                (testing::SourceDir() / "examples/slurm/frugal-job.sbatch").string(), "--price",
                "3.60/h", "--budget", "1", "--"},
               Counter(kSteps, 0.25, 4)),
        {"FRUGAL_HOME=" + home_.path().string(), PythonPath(),
         "PATH=" + binary_dir.string() + ":" + (path != nullptr ? path : "/usr/bin:/bin")});
    EXPECT_EQ(submitted.exit_code, 0) << submitted.err;
    std::string job = submitted.out.substr(0, submitted.out.find_first_of(";\n"));
    return job;
  }

  fs::path RunDir(const std::string& job) const {
    return home_.path() / "data" / "runs" / ("slurm-" + job);
  }

  /// Waits until the run's journal has a committed checkpoint.
  bool WaitForCheckpoint(const std::string& job) const {
    for (int i = 0; i < 240; ++i) {
      if (ReadTestFile(RunDir(job) / "journal.jsonl").find("checkpoint_committed") !=
          std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
  }

  /// A requeued job waits out a begin time Slurm sets; the test lets it start at once.
  void StartRequeuedJob(const std::string& job) const {
    const std::string why = cluster_->StartRequeuedJobNow(job, std::chrono::seconds(30));
    ASSERT_TRUE(why.empty()) << why;
  }

  /// The job ended well, and the ledger holds one run of two segments: the first preempted,
  /// the second resumed from its checkpoint and finished with an uninterrupted run's value.
  void ExpectOneRunResumedOnce(const std::string& job) const {
    ASSERT_TRUE(
        cluster_->WaitForJob(job, {"COMPLETED", "FAILED", "CANCELLED"}, std::chrono::seconds(90)))
        << cluster_->JobState(job);
    const std::string log = ReadTestFile(home_ / "job.log");
    EXPECT_EQ(cluster_->JobState(job), "COMPLETED") << log;
    EXPECT_NE(log.find("final value " + std::to_string(CounterValue(kSteps))), std::string::npos)
        << log;
    EXPECT_NE(log.find("attempt 2 of job " + job + " ended with exit 0"), std::string::npos) << log;

    const auto shown = RunFrugal({"--json", "runs", "show", "slurm-" + job}, home_.path());
    ASSERT_EQ(shown.exit_code, 0) << shown.err;
    const json run = json::parse(shown.out);
    EXPECT_EQ(run["status"], "succeeded");
    ASSERT_EQ(run["segments"].size(), 2u) << run["segments"].dump();
    EXPECT_EQ(run["segments"][0]["end_reason"], "preempted");
    EXPECT_EQ(run["segments"][1]["end_reason"], "finished");
    int resumed_at = -1;
    for (const json& e : run["events"]) {
      if (e["type"] == "resumed") resumed_at = e["payload"]["step"].get<int>();
    }
    // The second attempt went on from a checkpoint, not from the start.
    EXPECT_GT(resumed_at, 1) << run["events"].dump();
  }

  static std::unique_ptr<SlurmCluster> cluster_;
  TempDir home_;
};

std::unique_ptr<SlurmCluster> SlurmRun::cluster_;

TEST_F(SlurmRun, AJobSlurmRequeuesResumesFromItsCheckpointAsOneRun) {
  const std::string job = Submit();
  ASSERT_TRUE(WaitForCheckpoint(job)) << ReadTestFile(home_ / "job.log");
  // What Slurm does to a job it preempts with PreemptMode=REQUEUE: SIGTERM to the job's
  // processes, then the job goes back to the queue under its id.
  const auto requeued = cluster_->Client("scontrol", {"requeue", job});
  ASSERT_EQ(requeued.exit_code, 0) << requeued.err;
  StartRequeuedJob(job);
  ExpectOneRunResumedOnce(job);
}

TEST_F(SlurmRun, AJobFrugalFindsPreemptedRequeuesItselfWithExit75) {
  const std::string job = Submit();
  ASSERT_TRUE(WaitForCheckpoint(job)) << ReadTestFile(home_ / "job.log");
  // A preemption only frugal hears of (here a signal to the supervisor, as a cloud notice
  // would be): it exits 75 and the batch script asks Slurm for the requeue.
  const pid_t supervisor =
      static_cast<pid_t>(std::stol(ReadTestFile(RunDir(job) / "supervisor.lock")));
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  StartRequeuedJob(job);
  ExpectOneRunResumedOnce(job);
  EXPECT_NE(ReadTestFile(home_ / "job.log").find("preempted; requeueing job " + job),
            std::string::npos);
}

TEST_F(SlurmRun, TheTimeLimitNoticeToTheBatchScriptCheckpointsAndRequeuesTheJob) {
  const std::string job = Submit();
  ASSERT_TRUE(WaitForCheckpoint(job)) << ReadTestFile(home_ / "job.log");
  // What the script's `--signal=B:USR1@120` has Slurm do before a time limit: USR1 to the batch
  // shell alone (Slurm sends it from a check it makes every 30 s; the test sends it at once).
  const auto signalled = cluster_->Client("scancel", {"--batch", "--signal=USR1", job});
  ASSERT_EQ(signalled.exit_code, 0) << signalled.err;
  StartRequeuedJob(job);
  ExpectOneRunResumedOnce(job);
  const std::string log = ReadTestFile(home_ / "job.log");
  EXPECT_NE(log.find("preemption notice: SIGUSR1 to frugal"), std::string::npos) << log;
  EXPECT_NE(log.find("preempted; requeueing job " + job), std::string::npos) << log;
}

}  // namespace
}  // namespace frugal::run::e2e

// The Slurm executor's reading of Slurm, and what a pass does when Slurm fails: a controller
// that does not answer changes no job, an sbatch that fails leaves the job waiting with the
// reason. (The real cluster is in tests/e2e/queue/queue_slurm_e2e_test.cc; the client here
// only injects the faults.)

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "frugal/ledger/ledger.h"
#include "frugal/ledger/queue_jobs.h"
#include "frugal/queue/executor.h"
#include "frugal/queue/queue_service.h"
#include "frugal/queue/slurm_client.h"
#include "shipped_gpus.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

const Seconds kNow = 1'795'996'800 + 10 * 3600;

TEST(ScontrolFields, ReadsTheOneLineForm) {
  const auto f = ParseScontrolFields(
      "JobId=12 JobName=frugal-queue-3 UserId=root(0) Priority=1 JobState=PENDING "
      "Reason=BeginTime Dependency=(null) Requeue=1 Restarts=2 ExitCode=0:0 "
      "StartTime=2026-11-26T22:15:00 Partition=spot TRES=cpu=1,mem=1000M,node=1 "
      "Socks/Node=* Command=/var/lib/frugal/queue/3.sbatch /usr/bin/frugal run --run-id "
      "queue-3\n");
  EXPECT_EQ(f.at("JobId"), "12");
  EXPECT_EQ(f.at("JobState"), "PENDING");
  EXPECT_EQ(f.at("Reason"), "BeginTime");
  EXPECT_EQ(f.at("Restarts"), "2");
  EXPECT_EQ(f.at("TRES"), "cpu=1,mem=1000M,node=1");
  EXPECT_EQ(f.at("Socks/Node"), "*");
  EXPECT_EQ(f.at("Command"), "/var/lib/frugal/queue/3.sbatch /usr/bin/frugal run --run-id queue-3");
  EXPECT_TRUE(ParseScontrolFields("slurm_load_jobs error: Invalid job id specified\n").empty());
}

/// A Slurm whose commands give scripted answers: per command, else `answer`.
class ScriptedSlurm final : public SlurmClient {
 public:
  explicit ScriptedSlurm(Result<SlurmOutput> answer) : answer_(std::move(answer)) {}
  Result<SlurmOutput> Run(const std::string& tool, const std::vector<std::string>& args) override {
    calls.push_back(tool);
    last_args = args;
    const auto it = by_tool.find(tool);
    return it != by_tool.end() ? it->second : answer_;
  }
  std::vector<std::string> calls;
  std::vector<std::string> last_args;
  std::map<std::string, Result<SlurmOutput>> by_tool;

 private:
  Result<SlurmOutput> answer_;
};

struct Fixture {
  testing::TempDir dir;
  std::unique_ptr<ledger::Ledger> ledger;
  Capacity cap;
  int64_t id = 0;

  Fixture() {
    ledger = std::move(*ledger::Ledger::Open((dir / "ledger.db").string()));
    cap = *ParseCapacity(
        "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
        "  - {name: od, kind: slurm, partition: ondemand, tier: on_demand, cpu_slots: 4,\n"
        "     price_per_gpu_hour: 1, changeover: 1s}\n",
        "c.yaml", ShippedGpus());
    JobRequest job;
    job.name = "train";
    job.cpu_only = true;
    job.runtime_hours = 1;
    job.arrival = job.not_before = kNow;
    const auto sub = SubmitJob(ledger->connection(), cap, job, {"true"}, kNow);
    EXPECT_TRUE(sub) << sub.error().message;
    id = sub ? sub->id : 0;
  }
  std::unique_ptr<Executor> SlurmWith(Result<SlurmOutput> answer, ScriptedSlurm** client) {
    auto scripted = std::make_unique<ScriptedSlurm>(std::move(answer));
    *client = scripted.get();
    return MakeSlurmExecutor(std::move(scripted), "/usr/bin/frugal", "", dir / "queue");
  }
  ledger::QueueJobRow Row() { return **ledger::GetQueueJob(ledger->connection(), id); }
};

TEST(SlurmExecutor, AFailedSbatchLeavesTheJobWaitingWithTheReason) {
  Fixture f;
  ScriptedSlurm* slurm = nullptr;
  auto executor = f.SlurmWith(
      SlurmOutput{1, "", "sbatch: error: invalid partition specified: ondemand"}, &slurm);
  auto pass = RunPass(f.ledger->connection(), f.cap, *executor, kNow);
  ASSERT_TRUE(pass) << pass.error().message;
  EXPECT_EQ(slurm->calls, std::vector<std::string>{"sbatch"});
  EXPECT_EQ(f.Row().state, QueueJobState::kWaiting);
  EXPECT_NE(f.Row().reason.find("invalid partition specified"), std::string::npos)
      << f.Row().reason;
}

TEST(SlurmExecutor, AControllerThatDoesNotAnswerChangesNoJob) {
  Fixture f;
  ScriptedSlurm* slurm = nullptr;
  auto started = f.SlurmWith(SlurmOutput{0, "4242\n", ""}, &slurm);
  ASSERT_TRUE(RunPass(f.ledger->connection(), f.cap, *started, kNow));
  ASSERT_EQ(f.Row().state, QueueJobState::kRunning);
  EXPECT_EQ(f.Row().pid, 4242);
  // Minutes later the controller is gone: the job is neither failed nor started again.
  auto down = f.SlurmWith(Fail(ErrorCode::kUnavailable, "scontrol: no answer within 30 s"), &slurm);
  auto pass = RunPass(f.ledger->connection(), f.cap, *down, kNow + 600);
  ASSERT_TRUE(pass) << pass.error().message;
  EXPECT_EQ(f.Row().state, QueueJobState::kRunning);
  EXPECT_EQ(f.Row().pid, 4242);
  EXPECT_EQ(slurm->calls, std::vector<std::string>{"scontrol"});
}

TEST(SlurmExecutor, AStartCutShortAfterSbatchIsFoundByNameAndNotSubmittedAgain) {
  Fixture f;
  // A scheduler claimed the job and ran sbatch, then died before recording the Slurm job id.
  ledger::QueueJobRow claim;
  claim.pool = "od";
  claim.run_id = fmt::format("queue-{}", f.id);
  claim.started_ms = kNow * 1000;
  const std::vector<QueueJobState> waiting = {QueueJobState::kWaiting};
  ASSERT_TRUE(*ledger::MoveQueueJob(f.ledger->connection(), f.id, waiting, QueueJobState::kStarting,
                                    claim, kNow * 1000));
  ScriptedSlurm* slurm = nullptr;
  auto executor = f.SlurmWith(Fail(ErrorCode::kFailed, "unexpected command"), &slurm);
  slurm->by_tool.emplace("squeue", SlurmOutput{0, "5151\n", ""});
  slurm->by_tool.emplace(
      "scontrol", SlurmOutput{0,
                              "JobId=5151 JobName=frugal-queue-1 JobState=RUNNING Reason=None "
                              "Restarts=0 Partition=ondemand ExitCode=0:0\n",
                              ""});
  // Within the minute another scheduler may still be starting it: nothing is decided.
  ASSERT_TRUE(RunPass(f.ledger->connection(), f.cap, *executor, kNow + 10));
  EXPECT_EQ(f.Row().state, QueueJobState::kStarting);
  auto pass = RunPass(f.ledger->connection(), f.cap, *executor, kNow + 120);
  ASSERT_TRUE(pass) << pass.error().message;
  EXPECT_EQ(f.Row().state, QueueJobState::kRunning);
  EXPECT_EQ(f.Row().pid, 5151);
  EXPECT_EQ(std::count(slurm->calls.begin(), slurm->calls.end(), "sbatch"), 0);
}

bool Has(const std::vector<std::string>& args, const std::string& arg) {
  return std::find(args.begin(), args.end(), arg) != args.end();
}

TEST(SlurmExecutor, SubmitsWithThePoolsPartitionGresRequeueSignalAndBeginTime) {
  testing::TempDir dir;
  auto ledger = std::move(*ledger::Ledger::Open((dir / "ledger.db").string()));
  const Capacity cap = *ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: cloud, kind: slurm, partition: gpu-od, gres: 'gpu:a10g:4', tier: on_demand,\n"
      "     gpu: A10G, gpus_per_node: 4, nodes: 4, price_per_gpu_hour: 1.4, changeover: 1s}\n",
      "c.yaml", ShippedGpus());
  JobRequest job;
  job.name = "train";
  job.units = 8;
  job.runtime_hours = 1;
  job.arrival = kNow;
  job.not_before = kNow + 3600;  // deferred: it waits in Slurm
  const auto sub = SubmitJob(ledger->connection(), cap, job, {"python3", "train.py"}, kNow);
  ASSERT_TRUE(sub) << sub.error().message;
  const int64_t id = sub->id;
  auto scripted = std::make_unique<ScriptedSlurm>(SlurmOutput{0, "77;cluster\n", ""});
  ScriptedSlurm* slurm = scripted.get();
  auto executor =
      MakeSlurmExecutor(std::move(scripted), "/usr/bin/frugal", "postgresql://db/x", dir / "queue");
  ASSERT_TRUE(RunPass(ledger->connection(), cap, *executor, kNow));
  ASSERT_EQ(slurm->calls, std::vector<std::string>{"sbatch"})
      << (*ledger::GetQueueJob(ledger->connection(), id))->reason;
  const std::vector<std::string>& a = slurm->last_args;
  EXPECT_TRUE(Has(a, fmt::format("--job-name=frugal-queue-{}", id)));
  EXPECT_TRUE(Has(a, "--partition=gpu-od"));
  EXPECT_TRUE(Has(a, "--requeue"));
  EXPECT_TRUE(Has(a, "--signal=B:USR1@120"));
  // Eight GPUs on 4-GPU nodes: two whole nodes, of the pool's GRES type.
  EXPECT_TRUE(Has(a, "--nodes=2"));
  EXPECT_TRUE(Has(a, "--gres=gpu:a10g:4"));
  EXPECT_TRUE(Has(a, "--begin=now+3600"));
  // The script, then frugal run as the same ledger run on every attempt.
  const auto script =
      std::find(a.begin(), a.end(), (dir / "queue" / fmt::format("{}.sbatch", id)).string());
  ASSERT_NE(script, a.end());
  EXPECT_EQ(std::vector<std::string>(script + 1, script + 6),
            (std::vector<std::string>{"/usr/bin/frugal", "--db", "postgresql://db/x", "run",
                                      "--run-id"}));
  EXPECT_EQ(*(script + 6), fmt::format("queue-{}", id));
  EXPECT_EQ(a.back(), "train.py");
  const auto row = **ledger::GetQueueJob(ledger->connection(), id);
  EXPECT_EQ(row.state, QueueJobState::kRunning);
  EXPECT_EQ(row.pid, 77);
  EXPECT_EQ(row.pool, "cloud");
}

}  // namespace
}  // namespace frugal::queue

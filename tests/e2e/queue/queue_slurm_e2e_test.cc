// The live queue on a real single-node Slurm cluster (tests/e2e/run/slurm_cluster.h) with a
// "spot" and an "ondemand" partition: jobs go out as Slurm batch jobs running `frugal run`
// over a checkpointing child; a requeue on spot (`scontrol requeue`, what Slurm does to a job
// it preempts) is a preemption the spot deadline policy decides on, and the job resumes from
// its checkpoint as the same ledger run, on spot or moved to on-demand.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <ctime>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "../run/run_e2e_support.h"
#include "../run/slurm_cluster.h"
#include "support/test_support.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using run::e2e::Counter;
using run::e2e::PythonPath;
using testing::ReadTestFile;
using testing::SlurmCluster;
using testing::TempDir;
using testing::WriteTestFile;

constexpr int kSteps = 24;

constexpr const char* kCapacity =
    "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
    "  - {name: spot, kind: slurm, partition: spot, tier: spot, cpu_slots: 8,\n"
    "     price_per_gpu_hour: 0.30, preemptions_per_hour: 0.1, changeover: 1s}\n"
    "  - {name: ondemand, kind: slurm, partition: ondemand, tier: on_demand, cpu_slots: 8,\n"
    "     price_per_gpu_hour: 1.00, changeover: 1s}\n";

using frugal::testing::CounterValue;
class QueueSlurmE2e : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = SlurmCluster::Start(); }
  static void TearDownTestSuite() { cluster_.reset(); }
  void SetUp() override {
    // A machine without Slurm skips; one that has it and could not start a cluster fails.
    if (!cluster_ && SlurmCluster::unavailable()) GTEST_SKIP() << SlurmCluster::why();
    if (!cluster_) FAIL() << SlurmCluster::why();
    cap_ = (home_ / "capacity.yaml").string();
    db_ = (home_ / "ledger.db").string();
    WriteTestFile(cap_, kCapacity);
  }

  std::vector<std::string> Env() const {
    const char* path = std::getenv("PATH");
    return {cluster_->conf_env(), PythonPath(),
            "PATH=" + std::string(path != nullptr ? path : "/usr/bin:/bin")};
  }
  testing::CommandResult Frugal(std::vector<std::string> args) const {
    args.insert(args.begin(), {"--db", db_});
    return testing::RunFrugal(args, home_.path(), Env());
  }
  /// Submits a job spec body with `command`; its queue id.
  int Submit(const std::string& name, const std::string& body,
             const std::vector<std::string>& flags, const std::vector<std::string>& command) {
    const std::string spec = (home_ / (name + ".yaml")).string();
    WriteTestFile(spec, "apiVersion: frugal/v1\nkind: QueueJob\nname: " + name + "\n" + body);
    std::vector<std::string> args = {"--json", "queue", "submit", spec, "--capacity", cap_};
    args.insert(args.end(), flags.begin(), flags.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    const auto r = Frugal(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out)["id"].get<int>() : -1;
  }
  void Pass() const {
    const auto r = Frugal({"queue", "run", "--once", "--capacity", cap_});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  }
  json Show(int id) const {
    const auto r = Frugal({"--json", "queue", "show", std::to_string(id)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json::object();
  }
  /// Passes until job `id` is in `state` (90 s at most).
  bool WaitFor(int id, const std::string& state) const {
    for (int i = 0; i < 180; ++i) {
      Pass();
      if (Show(id)["state"] == state) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
    }
    return false;
  }
  /// The newest Slurm job behind queue job `id` (its batch jobs are named for it); "" if none.
  std::string SlurmJob(int id) const {
    const auto listed = cluster_->Client(
        "squeue", {"-h", "-t", "all", "--name=frugal-queue-" + std::to_string(id), "-o", "%i"});
    int64_t newest = 0;
    for (size_t at = 0, nl; (nl = listed.out.find('\n', at)) != std::string::npos; at = nl + 1) {
      newest = std::max<int64_t>(newest, std::atoll(listed.out.substr(at, nl - at).c_str()));
    }
    return newest > 0 ? std::to_string(newest) : "";
  }
  std::string Field(const std::string& job, const std::string& key) const {
    const auto shown = cluster_->Client("scontrol", {"show", "job", "-o", job});
    const size_t at = shown.out.find(" " + key + "=");
    if (at == std::string::npos) return "";
    const size_t begin = at + key.size() + 2;
    return shown.out.substr(begin, shown.out.find_first_of(" \n", begin) - begin);
  }
  fs::path RunDir(int id) const {
    return home_.path() / "data" / "runs" / ("queue-" + std::to_string(id));
  }
  bool WaitForCheckpoint(int id) const {
    for (int i = 0; i < 240; ++i) {
      if (ReadTestFile(RunDir(id) / "journal.jsonl").find("checkpoint_committed") !=
          std::string::npos) {
        return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
    return false;
  }
  std::string Log(int id) const {
    return ReadTestFile(home_.path() / "data" / "queue" / (std::to_string(id) + ".log"));
  }
  json Run(int id) const {
    const auto r = Frugal({"--json", "runs", "show", "queue-" + std::to_string(id)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json::object();
  }
  /// The run resumed once from a checkpoint and ended with an uninterrupted run's value.
  void ExpectResumedOnce(int id, const std::string& first_tier, const std::string& second_tier) {
    const std::string log = Log(id);
    EXPECT_NE(log.find("final value " + std::to_string(CounterValue(kSteps))), std::string::npos)
        << log;
    const json run = Run(id);
    EXPECT_EQ(run["status"], "succeeded") << run.dump();
    ASSERT_EQ(run["segments"].size(), 2u) << run["segments"].dump();
    EXPECT_EQ(run["segments"][0]["end_reason"], "preempted");
    EXPECT_EQ(run["segments"][0]["tier"], first_tier);
    EXPECT_EQ(run["segments"][1]["end_reason"], "finished");
    EXPECT_EQ(run["segments"][1]["tier"], second_tier);
    int resumed_at = -1;
    for (const json& e : run["events"]) {
      if (e["type"] == "resumed") resumed_at = e["payload"]["step"].get<int>();
    }
    EXPECT_GT(resumed_at, 1) << run["events"].dump();
  }
  /// A requeued job waits out a begin time Slurm sets; the test lets it start at once.
  void StartNow(const std::string& job) const {
    const std::string why = cluster_->StartRequeuedJobNow(job, std::chrono::seconds(30));
    ASSERT_TRUE(why.empty()) << why;
  }
  static std::vector<std::string> Verdicts(const json& job) {
    std::vector<std::string> v;
    for (const json& d : job["decisions"]) v.push_back(d["verdict"].get<std::string>());
    return v;
  }

  static std::unique_ptr<SlurmCluster> cluster_;
  TempDir home_;
  std::string cap_;
  std::string db_;
};

std::unique_ptr<SlurmCluster> QueueSlurmE2e::cluster_;

const char* const kCheckpointing = "cpu_slots: 1\nruntime: 10m\ncheckpoints: true\nrestart: 10s\n";

TEST_F(QueueSlurmE2e, ASubmittedJobRunsAsASlurmBatchJobToCompletion) {
  // It does not checkpoint, so it is not offered spot: the on-demand partition runs it.
  const int id = Submit("plain", "cpu_slots: 1\nruntime: 10m\n", {}, Counter(4, 0.1, 2));
  ASSERT_GT(id, 0);
  ASSERT_TRUE(WaitFor(id, "succeeded")) << Show(id).dump() << Log(id);
  const json job = Show(id);
  EXPECT_EQ(job["pool"], "ondemand");
  EXPECT_EQ(job["exit_code"], 0);
  const std::string slurm = SlurmJob(id);
  ASSERT_FALSE(slurm.empty()) << job.dump();
  EXPECT_EQ(job["slurm_job_id"], std::stoll(slurm)) << job.dump();
  EXPECT_EQ(Field(slurm, "JobName"), "frugal-queue-" + std::to_string(id));
  EXPECT_EQ(Field(slurm, "Partition"), "ondemand");
  EXPECT_EQ(Field(slurm, "Requeue"), "1");
  EXPECT_NE(Log(id).find("final value " + std::to_string(CounterValue(4))), std::string::npos);
  EXPECT_EQ(Run(id)["status"], "succeeded");
}

TEST_F(QueueSlurmE2e, ARequeueOnSpotIsAPreemptionAndTheJobResumesAsTheSameRun) {
  // No deadline: after the preemption the policy has no reason to pay for on-demand.
  const int id = Submit("ckpt", kCheckpointing, {}, Counter(kSteps, 0.25, 4));
  ASSERT_GT(id, 0);
  Pass();
  ASSERT_EQ(Show(id)["pool"], "spot") << Show(id).dump();
  const std::string slurm = SlurmJob(id);
  ASSERT_FALSE(slurm.empty());
  EXPECT_EQ(Field(slurm, "Partition"), "spot");
  ASSERT_TRUE(WaitForCheckpoint(id)) << Log(id);
  const auto requeued = cluster_->Client("scontrol", {"requeue", slurm});
  ASSERT_EQ(requeued.exit_code, 0) << requeued.err;
  ASSERT_TRUE(cluster_->WaitForJob(slurm, {"PENDING"}, std::chrono::seconds(30)));
  Pass();
  json job = Show(id);
  ASSERT_FALSE(job["decisions"].empty());
  EXPECT_EQ(job["decisions"].back()["verdict"], "wait_for_spot") << job.dump();
  EXPECT_NE(
      job["decisions"].back()["reason"].get<std::string>().find("preempted on spot (restart 1)"),
      std::string::npos);
  StartNow(slurm);
  ASSERT_TRUE(WaitFor(id, "succeeded")) << Show(id).dump() << Log(id);
  job = Show(id);
  EXPECT_EQ(job["pool"], "spot");
  EXPECT_EQ(SlurmJob(id), slurm);  // the same batch job, restarted by Slurm
  const auto listed = Frugal({"--json", "queue", "list"});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(json::parse(listed.out)["jobs"][0]["slurm_job_id"], std::stoll(slurm)) << listed.out;
  // One decision for the one preemption, however many passes saw it.
  const std::vector<std::string> verdicts = Verdicts(job);
  EXPECT_EQ(std::count(verdicts.begin(), verdicts.end(), "wait_for_spot"), 1);
  ExpectResumedOnce(id, "spot", "spot");
}

TEST_F(QueueSlurmE2e, ThePolicyMovesAPreemptedJobToOnDemandAndItResumesThere) {
  // Ten minutes of work (10m43s expected on spot) due in 26m10s, of which the scheduler keeps
  // 15m as a safety margin: spot is worth a try, but after a preemption there is about a
  // minute to wait for it to come back.
  const int id = Submit("tight", kCheckpointing, {"--deadline", "1570s"}, Counter(kSteps, 0.25, 4));
  ASSERT_GT(id, 0);
  Pass();
  ASSERT_EQ(Show(id)["pool"], "spot") << Show(id).dump();
  const std::string spot_job = SlurmJob(id);
  ASSERT_FALSE(spot_job.empty());
  ASSERT_TRUE(WaitForCheckpoint(id)) << Log(id);
  ASSERT_EQ(cluster_->Client("scontrol", {"requeue", spot_job}).exit_code, 0);
  ASSERT_TRUE(cluster_->WaitForJob(spot_job, {"PENDING"}, std::chrono::seconds(30)));
  // The policy may wait out the spare time first: the loop asks it again on every pass.
  json job = json::object();
  for (int i = 0; i < 240 && job.value("pool", "") != "ondemand"; ++i) {
    Pass();
    job = Show(id);
    if (job["pool"] != "ondemand") std::this_thread::sleep_for(std::chrono::milliseconds(500));
  }
  ASSERT_EQ(job["pool"], "ondemand") << job.dump();
  const json& moved = job["decisions"].back();
  EXPECT_EQ(moved["verdict"], "move_to_on_demand") << job.dump();
  EXPECT_EQ(moved["pool"], "ondemand");
  EXPECT_NE(moved["reason"].get<std::string>().find("spot policy says on_demand"),
            std::string::npos)
      << moved.dump();
  // The spot job was cancelled, not left to come back; a new one runs on the on-demand partition.
  EXPECT_TRUE(cluster_->WaitForJob(spot_job, {"CANCELLED"}, std::chrono::seconds(30)))
      << cluster_->JobState(spot_job);
  const std::string od_job = SlurmJob(id);
  ASSERT_FALSE(od_job.empty());
  EXPECT_NE(od_job, spot_job);
  EXPECT_EQ(Field(od_job, "Partition"), "ondemand");
  ASSERT_TRUE(WaitFor(id, "succeeded")) << Show(id).dump() << Log(id);
  EXPECT_EQ(Show(id)["slurm_job_id"], std::stoll(od_job));
  ExpectResumedOnce(id, "spot", "on_demand");
}

TEST_F(QueueSlurmE2e, APreemptionOnlyFrugalRunHeardOfResumesAsTheSameRun) {
  const int id = Submit("notice", kCheckpointing, {}, Counter(kSteps, 0.25, 4));
  ASSERT_GT(id, 0);
  Pass();
  ASSERT_EQ(Show(id)["pool"], "spot") << Show(id).dump();
  const std::string slurm = SlurmJob(id);
  ASSERT_FALSE(slurm.empty());
  ASSERT_TRUE(WaitForCheckpoint(id)) << Log(id);
  // A cloud notice would do this: the supervisor checkpoints, stops the command and exits 75.
  const pid_t supervisor =
      static_cast<pid_t>(std::stol(ReadTestFile(RunDir(id) / "supervisor.lock")));
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  // The batch script asks Slurm for the requeue: the same batch job comes back after a begin
  // time Slurm sets, which the test cuts short.
  StartNow(slurm);
  ASSERT_TRUE(WaitFor(id, "succeeded")) << Show(id).dump() << Log(id);
  EXPECT_EQ(SlurmJob(id), slurm);
  EXPECT_EQ(Field(slurm, "Restarts"), "1");
  ExpectResumedOnce(id, "spot", "spot");
}

TEST_F(QueueSlurmE2e, TheCheckpointNoticeBeforeTheTimeLimitReachesTheCommand) {
  // It checkpoints only when asked: the one checkpoint it makes is the notice's.
  const int id = Submit("limited", kCheckpointing, {}, Counter(kSteps, 0.25, 1000));
  ASSERT_GT(id, 0);
  Pass();
  const std::string slurm = SlurmJob(id);
  ASSERT_FALSE(slurm.empty()) << Show(id).dump();
  // The command has spoken the protocol (its supervisor then asks it for a checkpoint rather
  // than stopping it outright).
  const auto reported = [&] {
    const std::string text = ReadTestFile(RunDir(id) / "reports" / "segment-1.jsonl");
    return std::count(text.begin(), text.end(), '\n');
  };
  for (int i = 0; i < 240 && reported() < 3; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(reported(), 3) << Log(id);
  // What `sbatch --signal=B:USR1@120` has Slurm do 120 s before the job's time limit: USR1 to
  // the batch shell alone. Slurm sends it from a check it runs every 30 s; the test sends the
  // same signal the same way at once.
  const auto signalled = cluster_->Client("scancel", {"--batch", "--signal=USR1", slurm});
  ASSERT_EQ(signalled.exit_code, 0) << signalled.err;
  // The batch shell passed it to frugal run, which had the command checkpoint, stopped it and
  // asked Slurm for a requeue: the job starts again with a fresh time limit.
  StartNow(slurm);
  ASSERT_TRUE(WaitFor(id, "succeeded")) << Show(id).dump() << Log(id);
  EXPECT_EQ(Field(slurm, "Restarts"), "1");
  const json run = Run(id);
  // The notice, then the checkpoint it asked for: the first one the command made.
  std::vector<std::string> order;
  for (const json& e : run["events"]) {
    if (e["type"] == "preemption_notice" && e.dump().find("SIGUSR1") != std::string::npos) {
      order.push_back("notice");
    } else if (e["type"] == "checkpoint_committed") {
      order.push_back("checkpoint");
    }
  }
  ASSERT_GE(order.size(), 2u) << run["events"].dump();
  EXPECT_EQ(order[0], "notice") << run["events"].dump();
  EXPECT_EQ(order[1], "checkpoint") << run["events"].dump();
  ExpectResumedOnce(id, "spot", "spot");
}

TEST_F(QueueSlurmE2e, ADeferredStartWaitsInSlurmUntilItsBeginTime) {
  const int id =
      Submit("later", "cpu_slots: 1\nruntime: 10m\n", {"--not-before", "2h"}, Counter(4, 0.1, 2));
  ASSERT_GT(id, 0);
  Pass();
  json job = Show(id);
  EXPECT_EQ(job["decisions"].back()["verdict"], "defer") << job.dump();
  const std::string slurm = SlurmJob(id);
  ASSERT_FALSE(slurm.empty()) << job.dump();
  EXPECT_EQ(cluster_->JobState(slurm), "PENDING");
  EXPECT_EQ(Field(slurm, "Reason"), "BeginTime");
  // Slurm prints the begin time in the cluster's local time.
  std::tm begin{};
  ASSERT_NE(::strptime(Field(slurm, "StartTime").c_str(), "%Y-%m-%dT%H:%M:%S", &begin), nullptr);
  begin.tm_isdst = -1;
  const std::time_t now = std::time(nullptr);
  EXPECT_GE(std::mktime(&begin), now + 2 * 3600 - 120);
  EXPECT_LE(std::mktime(&begin), now + 2 * 3600 + 120);
  Pass();  // nothing changes while it waits
  EXPECT_EQ(Show(id)["state"], "running");
  EXPECT_EQ(SlurmJob(id), slurm);
  StartNow(slurm);
  ASSERT_TRUE(WaitFor(id, "succeeded")) << Show(id).dump() << Log(id);
}

TEST_F(QueueSlurmE2e, CancelStopsTheSlurmJob) {
  const int id = Submit("long", "cpu_slots: 1\nruntime: 10m\n", {}, {"/bin/sleep", "300"});
  ASSERT_GT(id, 0);
  Pass();
  const std::string slurm = SlurmJob(id);
  ASSERT_FALSE(slurm.empty());
  ASSERT_TRUE(cluster_->WaitForJob(slurm, {"RUNNING"}, std::chrono::seconds(30)));
  const auto r = Frugal({"queue", "cancel", std::to_string(id), "--capacity", cap_});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(Show(id)["state"], "cancelled");
  EXPECT_TRUE(cluster_->WaitForJob(slurm, {"CANCELLED"}, std::chrono::seconds(30)))
      << cluster_->JobState(slurm);
  Pass();
  EXPECT_EQ(Show(id)["state"], "cancelled");
}

TEST_F(QueueSlurmE2e, KillNineOfTheLoopLosesNoJobAndSubmitsNoneTwice) {
  const fs::path log = home_ / "started.txt";
  std::vector<int> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(
        Submit("job" + std::to_string(i), "cpu_slots: 1\nruntime: 1m\n", {},
               {"/bin/sh", "-c", "echo $FRUGAL_RUN_ID >> " + log.string() + "; sleep 1"}));
  }
  const std::vector<std::string> loop = {"--db",       db_,     "queue",      "run",
                                         "--interval", "200ms", "--capacity", cap_};
  pid_t pid = testing::StartFrugal(loop, home_.path(), Env());
  ASSERT_GT(pid, 0);
  for (int i = 0; i < 300 && ReadTestFile(log).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = testing::StartFrugal(loop, home_.path(), Env());
  bool all = false;
  for (int i = 0; i < 600 && !all; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    all = true;
    for (int id : ids) all = all && Show(id)["state"] == "succeeded";
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_TRUE(all);
  const std::string started = ReadTestFile(log);
  for (int id : ids) {
    const std::string run = "queue-" + std::to_string(id) + "\n";
    size_t count = 0;
    for (size_t at = started.find(run); at != std::string::npos; at = started.find(run, at + 1)) {
      ++count;
    }
    EXPECT_EQ(count, 1u) << started;
  }
  // Slurm ran one batch job per queued job.
  const auto all_jobs = cluster_->Client("squeue", {"-h", "-t", "all", "-o", "%j"});
  std::multiset<std::string> names;
  for (size_t at = 0, nl; (nl = all_jobs.out.find('\n', at)) != std::string::npos; at = nl + 1) {
    names.insert(all_jobs.out.substr(at, nl - at));
  }
  for (int id : ids)
    EXPECT_EQ(names.count("frugal-queue-" + std::to_string(id)), 1u) << all_jobs.out;
}

}  // namespace
}  // namespace frugal

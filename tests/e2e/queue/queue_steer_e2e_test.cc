// The live queue's views and its acting on checkpoints, through the real binary and real child
// processes: ETA against the deadline and spend in `queue list|show`, a job that warm-starts
// from another run's newest committed checkpoint, and a job preempted on a spot pool that the
// spot policy keeps waiting for spot or moves to on-demand, resuming from its checkpoint.

#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "queue_home.h"
#include "support/test_support.h"

namespace frugal {
namespace {

using nlohmann::json;
using testing::RunFrugal;
using testing::TempDir;
using testing::WriteTestFile;

constexpr const char* kCapacity =
    "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
    "  - {name: spot, tier: spot, cpu_slots: 1, price_per_gpu_hour: 36,\n"
    "     preemptions_per_hour: 0.01, changeover: 1s}\n"
    "  - {name: od, tier: on_demand, cpu_slots: 1, price_per_gpu_hour: 72, changeover: 1s}\n";

// A training process that speaks the protocol: it counts steps from the checkpoint it resumes
// from (logging where it started), checkpoints when asked (SIGUSR1) and then waits to be stopped.
constexpr const char* kTrainer = R"(import json, os, signal, sys, time
ck, rep, res = os.environ["FRUGAL_CHECKPOINT_DIR"], os.environ["FRUGAL_REPORT"], os.environ.get("FRUGAL_RESUME_FROM", "")
log, target = sys.argv[1], int(sys.argv[2])
step = int(open(os.path.join(res, "state.txt")).read()) if res else 0
with open(log, "a") as f:
    f.write("start %s\n" % (step if res else "fresh"))
def report(o):
    with open(rep, "a") as f:
        f.write(json.dumps(o) + "\n")
asked = []
signal.signal(signal.SIGUSR1, lambda *a: asked.append(1))
report({"type": "progress", "step": step})
while step < target:
    time.sleep(0.1)
    step += 1
    report({"type": "progress", "step": step})
    with open(log + ".steps", "a") as f:
        f.write("x")
    if asked:
        d = os.path.join(ck, "s%d" % step)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "state.txt"), "w") as f:
            f.write(str(step))
        report({"type": "checkpoint", "path": "s%d" % step, "step": step})
        time.sleep(30)
)";

// A training process that reports every step and commits a checkpoint every five:
// `counting.py STEPS`, 0.1 s a step.
constexpr const char* kCounting = R"(import json, os, sys, time
ck, rep = os.environ["FRUGAL_CHECKPOINT_DIR"], os.environ["FRUGAL_REPORT"]
def report(o):
    with open(rep, "a") as f:
        f.write(json.dumps(o) + "\n")
for step in range(1, int(sys.argv[1]) + 1):
    time.sleep(0.1)
    report({"type": "progress", "step": step})
    if step % 5 == 0:
        d = os.path.join(ck, "s%d" % step)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "state.txt"), "w") as f:
            f.write(str(step))
        report({"type": "checkpoint", "path": "s%d" % step, "step": step})
)";

struct Queue : QueueHome {
  std::string trainer;

  Queue() : QueueHome(kCapacity), trainer((home / "train.py").string()) {
    WriteTestFile(trainer, kTrainer);
  }
  int Submit(const std::string& name, const std::string& body, std::vector<std::string> command) {
    std::vector<std::string> args = {"--json",     "queue", "submit", Spec(name, body),
                                     "--capacity", cap,     "--"};
    args.insert(args.end(), command.begin(), command.end());
    auto r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out)["id"].get<int>() : -1;
  }
  json Show(int id) {
    auto r = Run({"--json", "queue", "show", std::to_string(id)});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r.exit_code == 0 ? json::parse(r.out) : json::object();
  }
  /// Passes until `id` reaches `state` (30 s at most).
  bool WaitFor(int id, const std::string& state) {
    for (int i = 0; i < 150; ++i) {
      Pass();
      if (Show(id)["state"] == state) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
  std::string Log() { return testing::ReadTestFile(home / "train.log"); }
  std::vector<std::string> Train(int steps) {
    return {"/usr/bin/python3", trainer, (home / "train.log").string(), std::to_string(steps)};
  }
};

/// The `frugal run` supervising job `id`: the child of the wrapper the queue started.
pid_t Supervisor(const json& job) {
  const int64_t wrapper = job["pid"].get<int64_t>();
  const std::string children = testing::ReadTestFile("/proc/" + std::to_string(wrapper) + "/task/" +
                                                     std::to_string(wrapper) + "/children");
  return children.empty() ? -1 : static_cast<pid_t>(std::stol(children));
}

/// Waits for the trainer to have made progress (five steps, so its supervisor has seen it speak
/// the protocol and will ask it for a checkpoint), then reclaims the spot capacity: SIGTERM to
/// the supervisor, as a spot VM's shutdown or Slurm delivers it.
void Reclaim(Queue& q, int id) {
  const auto steps = q.home / "train.log.steps";
  for (int i = 0; i < 200 && testing::ReadTestFile(steps).size() < 5; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(testing::ReadTestFile(steps).size(), 5u);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const pid_t supervisor = Supervisor(q.Show(id));
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
}

std::vector<std::string> Verdicts(const json& job) {
  std::vector<std::string> out;
  for (const json& d : job["decisions"]) out.push_back(d["verdict"]);
  return out;
}

bool Has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

TEST(QueueViewE2e, ListAndShowGiveEtaAgainstTheDeadlineAndSpendSoFar) {
  Queue q;
  const int id =
      q.Submit("quick", "cpu_slots: 1\nruntime: 10m\ndeadline: 2h\n", {"/bin/sh", "-c", "sleep 2"});
  const int late = q.Submit("late", "cpu_slots: 1\nruntime: 3h\ndeadline: 1h\n", {"true"});
  auto r = q.Run({"--json", "queue", "list"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::map<int, json> jobs;
  const json listed = json::parse(r.out);
  for (const json& j : listed["jobs"]) jobs[j["id"].get<int>()] = j;
  // Waiting: the ETA is its placement's expected finish, 10 minutes and a second from now.
  const json& waiting = jobs[id];
  EXPECT_EQ(waiting["eta_basis"], "placement");
  ASSERT_TRUE(waiting["deadline_slack_seconds"].is_number()) << waiting.dump();
  const int64_t slack = waiting["deadline_slack_seconds"].get<int64_t>();
  EXPECT_GT(slack, 6500);
  EXPECT_LE(slack, 7200 - 600);
  EXPECT_FALSE(waiting["will_miss"].get<bool>());
  EXPECT_EQ(waiting["spend_usd"].get<double>(), 0.0);
  // 3 h of work due in 1 h: flagged at once.
  EXPECT_TRUE(jobs[late]["will_miss"].get<bool>()) << jobs[late].dump();
  EXPECT_LT(jobs[late]["deadline_slack_seconds"].get<int64_t>(), -7000);
  ASSERT_EQ(q.Run({"queue", "cancel", std::to_string(late)}).exit_code, 0);

  q.Pass();
  json running = q.Show(id);
  EXPECT_EQ(running["state"], "running");
  EXPECT_EQ(running["eta_basis"], "expected_runtime");
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  const json done = q.Show(id);
  EXPECT_EQ(done["eta_basis"], "finished");
  EXPECT_GT(done["deadline_slack_seconds"].get<int64_t>(), 7000);
  // Spend so far is the ledger run's: $36/h for about two seconds on the spot pool.
  const double spend = done["spend_usd"].get<double>();
  EXPECT_GT(spend, 0.015);
  EXPECT_LT(spend, 0.2);
  auto runs = q.Run({"--json", "runs", "list"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  bool matched = false;
  const json all_runs = json::parse(runs.out);
  for (const json& run : all_runs["runs"]) {
    if (run["name"] == done["run_id"]) {
      EXPECT_NEAR(std::stod(run["cost_usd"].get<std::string>()), spend, 1e-6) << run.dump();
      matched = true;
    }
  }
  EXPECT_TRUE(matched) << runs.out;
  auto text = q.Run({"queue", "list"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("eta"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("to spare"), std::string::npos) << text.out;
  auto shown = q.Run({"queue", "show", std::to_string(id)});
  EXPECT_NE(shown.out.find("spent"), std::string::npos) << shown.out;
}

TEST(QueueViewE2e, ARunningJobsEtaComesFromItsMeasuredProgress) {
  Queue q;
  const std::string counting = (q.home / "counting.py").string();
  WriteTestFile(counting, kCounting);
  // Estimated at 2 hours, due in 3: the estimate alone leaves an hour to spare. The job runs
  // 60 steps at about 10 a second, and its progress says it ends within seconds.
  const int id = q.Submit("measured", "cpu_slots: 1\nruntime: 2h\ndeadline: 3h\nsteps: 60\n",
                          {"/usr/bin/python3", counting, "60"});
  ASSERT_GT(id, 0);
  q.Pass();
  json job = q.Show(id);
  ASSERT_EQ(job["state"], "running") << job.dump();
  EXPECT_EQ(job["steps"], 60);
  for (int i = 0; i < 100 && job["eta_basis"] != "measured" && job["state"] == "running"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    job = q.Show(id);
  }
  ASSERT_EQ(job["eta_basis"], "measured") << job.dump();
  const int64_t step = job["progress_step"].get<int64_t>();
  EXPECT_GE(step, 5);
  EXPECT_LE(step, 60);
  EXPECT_NEAR(job["progress_fraction"].get<double>(), static_cast<double>(step) / 60, 1e-4);
  // 0.1 s sleeps: about 10 steps a second, and at least one even on a loaded machine. The
  // journal times a record when the supervisor reads it, so on a loaded machine a late first
  // record shortens the interval: 10.5 a second was measured in CI. Twice the pace is a bug.
  const double rate = job["steps_per_second"].get<double>();
  EXPECT_GT(rate, 1.0) << job.dump();
  EXPECT_LE(rate, 20.0) << job.dump();
  // At most a minute to go, against the estimate's two hours.
  EXPECT_GT(job["deadline_slack_seconds"].get<int64_t>(), 3 * 3600 - 70) << job.dump();
  EXPECT_FALSE(job["will_miss"].get<bool>());
  EXPECT_TRUE(job["slurm_job_id"].is_null()) << job.dump();  // a local job
  const auto text = q.Run({"queue", "show", std::to_string(id)});
  EXPECT_NE(text.out.find("(measured)"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find(" of 60 ("), std::string::npos) << text.out;
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  EXPECT_EQ(q.Show(id)["eta_basis"], "finished");
  EXPECT_TRUE(q.Show(id)["progress_step"].is_null());
}

TEST(QueueWarmStartE2e, AJobStartsFromTheRunsNewestCommittedCheckpoint) {
  Queue q;
  // The run to start from: it commits checkpoints at steps 3 and 7.
  const std::string base = (q.home / "base.sh").string();
  WriteTestFile(base,
                "for s in 3 7; do mkdir -p \"$FRUGAL_CHECKPOINT_DIR/s$s\"; echo $s > "
                "\"$FRUGAL_CHECKPOINT_DIR/s$s/state.txt\"; printf "
                "'{\"type\":\"checkpoint\",\"path\":\"s%s\",\"step\":%s}\\n' $s $s >> "
                "\"$FRUGAL_REPORT\"; sleep 0.3; done\n");
  auto r = q.Run({"run", "--run-id", "base", "--price", "1/h", "--", "/bin/sh", base});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const int id = q.Submit("finetune", "cpu_slots: 1\nruntime: 10m\nwarm_start: base\n", q.Train(9));
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  EXPECT_EQ(q.Log(), "start 7\n");  // from the newest, step 7
  EXPECT_EQ(q.Show(id)["warm_start"], "base");

  // A run that is not in the ledger, and one with no committed checkpoint: bad input naming
  // the field, nothing queued.
  auto bad =
      q.Run({"queue", "submit", q.Spec("typo", "cpu_slots: 1\nruntime: 1m\nwarm_start: bsae\n"),
             "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("typo.yaml:6:13:"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("field 'warm_start': no run named 'bsae'"), std::string::npos) << bad.err;
  ASSERT_EQ(q.Run({"run", "--run-id", "plain", "--price", "1/h", "--", "true"}).exit_code, 0);
  bad = q.Run({"queue", "submit", q.Spec("plain", "cpu_slots: 1\nruntime: 1m\n"), "--capacity",
               q.cap, "--warm-start", "plain", "--", "true"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--warm-start: run 'plain' has no committed checkpoint"),
            std::string::npos)
      << bad.err;
  auto list = q.Run({"--json", "queue", "list"});
  EXPECT_EQ(json::parse(list.out)["jobs"].size(), 1u);
}

TEST(QueueSpotE2e, PreemptedWithoutADeadlineItWaitsForSpotAndResumesThere) {
  Queue q;
  const int id =
      q.Submit("patient", "cpu_slots: 1\nruntime: 10m\ncheckpoints: true\n", q.Train(30));
  q.Pass();
  ASSERT_EQ(q.Show(id)["pool"], "spot");
  Reclaim(q, id);
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  const json job = q.Show(id);
  EXPECT_TRUE(Has(Verdicts(job), "wait_for_spot")) << job.dump(1);
  EXPECT_EQ(job["pool"], "spot");
  EXPECT_EQ(job["preemptions"], 1);
  // The second start resumed from the checkpoint taken on the notice, as the same ledger run.
  const std::string log = q.Log();
  ASSERT_EQ(log.rfind("start fresh\nstart ", 0), 0u) << log;
  EXPECT_NE(log.substr(18, 5), "fresh") << log;
  auto runs = q.Run({"--json", "runs", "list"});
  EXPECT_EQ(json::parse(runs.out)["runs"].size(), 1u) << runs.out;
}

TEST(QueueSpotE2e, PreemptedNearItsDeadlineTheSpotPolicyMovesItToOnDemand) {
  Queue q;
  const int id = q.Submit(
      "urgent", "cpu_slots: 1\nruntime: 10m\ncheckpoints: true\nrestart: 15m\ndeadline: 30m\n",
      q.Train(30));
  q.Pass();
  ASSERT_EQ(q.Show(id)["pool"], "spot");
  Reclaim(q, id);
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  const json job = q.Show(id);
  const std::vector<std::string> verdicts = Verdicts(job);
  ASSERT_TRUE(Has(verdicts, "move_to_on_demand")) << job.dump(1);
  EXPECT_EQ(job["pool"], "od");
  EXPECT_EQ(verdicts.back(), "start");
  const std::string log = q.Log();
  ASSERT_EQ(log.rfind("start fresh\nstart ", 0), 0u) << log;
  EXPECT_NE(log.substr(18, 5), "fresh") << log;
}

TEST(QueueSteerE2e, CancelStopsARunningJobsProcesses) {
  Queue q;
  const int id = q.Submit("long", "cpu_slots: 1\nruntime: 10m\n", q.Train(100000));
  q.Pass();
  for (int i = 0; i < 100 && q.Log().empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const json job = q.Show(id);
  ASSERT_EQ(job["state"], "running");
  const pid_t supervisor = Supervisor(job);
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(q.Run({"queue", "cancel", std::to_string(id)}).exit_code, 0);
  // The supervisor stops the trainer and exits: nothing of the job is left running.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {  // 5 s: the trainer stops at once on SIGTERM
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = ::kill(supervisor, 0) != 0;
  }
  EXPECT_TRUE(gone);
  EXPECT_EQ(q.Show(id)["state"], "cancelled");
}

}  // namespace
}  // namespace frugal

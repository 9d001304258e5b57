// The live queue through the real binary: submit, the scheduling loop with the local executor
// (real `frugal run` processes), steering, budgets, dependencies, and a kill -9 of the loop.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "queue_home.h"
#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;
using testing::WriteTestFile;

constexpr const char* kCapacity =
    "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
    "  - {name: box, tier: owned, gpu: T4, gpus_per_node: 2, changeover: 1s}\n"
    "  - {name: cpu, tier: owned, cpu_slots: 1, changeover: 1s}\n"
    "  - {name: cloud, kind: slurm, partition: ondemand, tier: on_demand, gpu: T4,\n"
    "     gpus_per_node: 4, price_per_gpu_hour: 0.50, changeover: 1s}\n"
    "budgets:\n  - {tag: team=nlp, period: month, limit: 10}\n";

struct Queue : QueueHome {
  Queue() : QueueHome(kCapacity) {}
  int Submit(const std::string& name, const std::string& body, std::vector<std::string> extra,
             const std::string& shell) {
    std::vector<std::string> args = {"--json",         "queue",      "submit",
                                     Spec(name, body), "--capacity", cap};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", shell});
    auto r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    if (r.exit_code != 0) return -1;
    return nlohmann::json::parse(r.out)["id"].get<int>();
  }
  std::map<int, nlohmann::json> Jobs() {
    auto r = Run({"--json", "queue", "list"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    std::map<int, nlohmann::json> jobs;
    const nlohmann::json doc = nlohmann::json::parse(r.out);
    for (const auto& j : doc["jobs"]) jobs[j["id"].get<int>()] = j;
    return jobs;
  }
  /// Passes until `id` reaches `state` (20 s at most).
  bool WaitFor(int id, const std::string& state) {
    for (int i = 0; i < 100; ++i) {
      Pass();
      if (Jobs()[id]["state"] == state) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return false;
  }
};

TEST(QueueLiveE2e, SubmitRunsAsASupervisedRunAndSucceeds) {
  Queue q;
  const std::string out = (q.home / "out.txt").string();
  const int id = q.Submit("hello", "cpu_slots: 1\nruntime: 1m\n", {"--tag", "team=vision"},
                          "echo hello > " + out);
  ASSERT_GT(id, 0);
  EXPECT_EQ(q.Jobs()[id]["state"], "waiting");
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  EXPECT_EQ(testing::ReadTestFile(out), "hello\n");
  auto job = q.Jobs()[id];
  EXPECT_EQ(job["pool"], "cpu");
  EXPECT_EQ(job["run_id"], "queue-" + std::to_string(id));
  EXPECT_EQ(job["exit_code"], 0);
  // The job is a ledger run like any other.
  auto runs = q.Run({"--json", "runs", "list"});
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  EXPECT_NE(runs.out.find("queue-" + std::to_string(id)), std::string::npos) << runs.out;
  auto show = q.Run({"--json", "queue", "show", std::to_string(id)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const auto doc = nlohmann::json::parse(show.out);
  // Placed at submission and started on that same decision: shown once, not twice.
  ASSERT_EQ(doc["decisions"].size(), 1u) << doc["decisions"].dump();
  EXPECT_EQ(doc["decisions"].back()["verdict"], "start");
}

TEST(QueueLiveE2e, ALateJobWhoseDeadlineStillHoldsStartsInTheFirstPassAndIsNoMiss) {
  Queue q;
  // 30 s of work, a 10-minute deadline: inside the 15-minute margin, so late, yet it
  // finishes 9 minutes early. It starts at once rather than block the pool for ever.
  const int id = q.Submit("quick", "cpu_slots: 1\nruntime: 30s\n", {"--deadline", "10m"}, "true");
  ASSERT_GT(id, 0);
  const auto waiting = q.Jobs()[id];
  EXPECT_FALSE(waiting["will_miss"].get<bool>()) << waiting.dump();
  EXPECT_GT(waiting["deadline_slack_seconds"].get<int64_t>(), 8 * 60) << waiting.dump();
  auto pass = q.Run({"queue", "run", "--once", "--capacity", q.cap});
  ASSERT_EQ(pass.exit_code, 0) << pass.err;
  EXPECT_NE(pass.out.find("started on cpu"), std::string::npos) << pass.out;
  const std::string state = q.Jobs()[id]["state"];
  EXPECT_TRUE(state == "running" || state == "succeeded") << state;
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  auto show = q.Run({"queue", "show", std::to_string(id)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_NE(show.out.find("cannot keep the 15m margin before its deadline"), std::string::npos)
      << show.out;
  EXPECT_EQ(show.out.find("after it"), std::string::npos) << show.out;
  // Each line `queue run` prints begins with the time, seconds included.
  const std::regex stamped(R"(^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z  .*)");
  std::istringstream lines(pass.out);
  for (std::string line; std::getline(lines, line);) {
    EXPECT_TRUE(std::regex_match(line, stamped)) << line;
  }
}

TEST(QueueLiveE2e, AJobOnAnOwnedGpuPoolIsRecordedOnItsGpuAndTheOwnedTier) {
  Queue q;
  const int id = q.Submit("owned", "gpus: 1\nruntime: 10m\ncheckpoints: true\n",
                          {"--tag", "team=cv"}, "sleep 0.2");
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  auto shown = q.Run({"--json", "runs", "show", "queue-" + std::to_string(id)});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const auto run = nlohmann::json::parse(shown.out);
  ASSERT_EQ(run["segments"].size(), 1u) << shown.out;
  const auto& segment = run["segments"][0];
  EXPECT_EQ(segment["gpu"], "T4") << segment.dump();
  EXPECT_EQ(segment["gpu_count"], 1) << segment.dump();
  EXPECT_EQ(segment["tier"], "owned") << segment.dump();
  auto report = q.Run({"--json", "report", "--by", "tier"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  const auto rows = nlohmann::json::parse(report.out)["rows"];
  ASSERT_EQ(rows.size(), 1u) << report.out;
  EXPECT_EQ(rows[0]["tier"], "owned") << report.out;
  EXPECT_EQ(q.Jobs()[id]["tier"], "owned");
}

TEST(QueueLiveE2e, AFailedJobSaysWhatItsStatusMeans) {
  Queue q;
  // The job runs under `frugal run`, whose status is 1 whatever the command's own code (7):
  // "exited with status 1" alone read as if the command had returned 1.
  const int id = q.Submit("seven", "cpu_slots: 1\nruntime: 1m\n", {}, "exit 7");
  ASSERT_GT(id, 0);
  ASSERT_TRUE(q.WaitFor(id, "failed"));
  const std::string reason = q.Jobs()[id]["reason"];
  EXPECT_NE(reason.find("exited with status 1 (the command failed; its own exit code is in the "
                        "job's log)"),
            std::string::npos)
      << reason;
}

TEST(QueueLiveE2e, GpusAreGivenOutByCudaVisibleDevices) {
  Queue q;
  const std::string a = (q.home / "a.txt").string();
  const std::string b = (q.home / "b.txt").string();
  const int ja = q.Submit("a", "gpus: 1\nruntime: 10m\n", {},
                          "echo $CUDA_VISIBLE_DEVICES > " + a + "; sleep 1");
  const int jb = q.Submit("b", "gpus: 1\nruntime: 10m\n", {},
                          "echo $CUDA_VISIBLE_DEVICES > " + b + "; sleep 1");
  ASSERT_TRUE(q.WaitFor(ja, "succeeded"));
  ASSERT_TRUE(q.WaitFor(jb, "succeeded"));
  std::set<std::string> devices = {testing::ReadTestFile(a), testing::ReadTestFile(b)};
  EXPECT_EQ(devices, (std::set<std::string>{"0\n", "1\n"}));
}

TEST(QueueLiveE2e, TeamBudgetRefusesWithTheArithmeticUnlessOverridden) {
  Queue q;
  // 4 GPUs for 6 h on the cloud pool at $0.50: $12.00 (and a changeover second) against $10.
  const std::string spec = q.Spec("big", "gpus: 4\nruntime: 6h\ndeadline: 7h\ntags: {team: nlp}\n");
  auto r = q.Run({"queue", "submit", spec, "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("team=nlp month budget $10.00: $0.0000 committed + $12.00 expected"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(q.Jobs().empty());
  r = q.Run(
      {"queue", "submit", spec, "--capacity", q.cap, "--override", "launch week", "--", "true"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("override: launch week"), std::string::npos) << r.out;
}

TEST(QueueLiveE2e, HoldReleaseAndCancel) {
  Queue q;
  const int id = q.Submit("held", "cpu_slots: 1\nruntime: 1m\n", {}, "true");
  auto r = q.Run({"queue", "hold", std::to_string(id)});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  q.Pass();
  EXPECT_EQ(q.Jobs()[id]["state"], "held");
  r = q.Run({"queue", "hold", std::to_string(id)});
  EXPECT_EQ(r.exit_code, 2);
  ASSERT_EQ(q.Run({"queue", "release", std::to_string(id)}).exit_code, 0);
  EXPECT_TRUE(q.WaitFor(id, "succeeded"));
  const int later =
      q.Submit("later", "cpu_slots: 1\nruntime: 1m\n", {"--not-before", "2h"}, "true");
  q.Pass();
  EXPECT_EQ(q.Jobs()[later]["state"], "waiting");
  EXPECT_NE(q.Jobs()[later]["reason"].get<std::string>().find("defer"), std::string::npos);
  ASSERT_EQ(q.Run({"queue", "cancel", std::to_string(later)}).exit_code, 0);
  EXPECT_EQ(q.Jobs()[later]["state"], "cancelled");
  EXPECT_EQ(q.Run({"queue", "cancel", "999"}).exit_code, 2);
}

TEST(QueueLiveE2e, DependenciesWaitForTheirJob) {
  Queue q;
  const std::string log = (q.home / "order.txt").string();
  const int a = q.Submit("prep", "cpu_slots: 1\nruntime: 1m\n", {}, "sleep 1; echo prep >> " + log);
  const int b =
      q.Submit("train", "gpus: 1\nruntime: 1m\ndepends_on: [prep]\n", {}, "echo train >> " + log);
  q.Pass();
  EXPECT_EQ(q.Jobs()[b]["state"], "waiting");
  EXPECT_NE(q.Jobs()[b]["reason"].get<std::string>().find("for prep"), std::string::npos);
  ASSERT_TRUE(q.WaitFor(b, "succeeded"));
  EXPECT_EQ(q.Jobs()[a]["state"], "succeeded");
  EXPECT_EQ(testing::ReadTestFile(log), "prep\ntrain\n");
}

TEST(QueueLiveE2e, AStepWhoseCachedOutputExistsIsNotRunAgain) {
  Queue q;
  const std::string marker = (q.home / "ran.txt").string();
  const std::string body = "cpu_slots: 1\nruntime: 1m\ncache: {key: tok-v2, output: prep-out}\n";
  const std::string make =
      "echo ran >> " + marker + "; echo data > " + (q.home / "prep-out").string();
  const int first = q.Submit("prep", body, {}, make);
  ASSERT_TRUE(q.WaitFor(first, "succeeded"));
  EXPECT_EQ(testing::ReadTestFile(marker), "ran\n");
  const int again = q.Submit("prep", body, {}, make);
  q.Pass();
  auto job = q.Jobs()[again];
  EXPECT_EQ(job["state"], "succeeded");
  EXPECT_NE(job["reason"].get<std::string>().find("cached: the output of 'tok-v2'"),
            std::string::npos)
      << job.dump();
  EXPECT_EQ(testing::ReadTestFile(marker), "ran\n");  // not run a second time
}

TEST(QueueLiveE2e, CancellingARunningJobStopsItsProcesses) {
  Queue q;
  const std::string pidfile = (q.home / "child.pid").string();
  const int id = q.Submit("long", "cpu_slots: 1\nruntime: 10m\n", {},
                          "echo $$ > " + pidfile + "; exec sleep 300");
  ASSERT_TRUE(q.WaitFor(id, "running"));
  const std::string line = testing::WaitForLine(pidfile, std::chrono::seconds(10));
  ASSERT_FALSE(line.empty());
  const pid_t child = static_cast<pid_t>(std::stol(line));
  ASSERT_EQ(q.Run({"queue", "cancel", std::to_string(id), "--capacity", q.cap}).exit_code, 0);
  EXPECT_EQ(q.Jobs()[id]["state"], "cancelled");
  // The supervisor stops its command after its grace period (30 s to checkpoint, 10 s more).
  bool gone = false;
  for (int i = 0; i < 600 && !gone; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = ::kill(child, 0) != 0 ||
           testing::ReadTestFile("/proc/" + line + "/stat").find(") Z ") != std::string::npos;
  }
  EXPECT_TRUE(gone) << "the cancelled job's command is still running";
  if (!gone) ::kill(child, SIGKILL);
}

TEST(QueueLiveE2e, AnotherLedgersJobOnThisMachineIsNotTakenForOnesOwn) {
  // Two queues (two data directories, two ledgers) whose first jobs are both job 1.
  Queue other;
  const std::string pidfile = (other.home / "child.pid").string();
  const int theirs = other.Submit("theirs", "cpu_slots: 1\nruntime: 10m\n", {},
                                  "echo $$ > " + pidfile + "; exec sleep 300");
  ASSERT_TRUE(other.WaitFor(theirs, "running"));
  const std::string line = testing::WaitForLine(pidfile, std::chrono::seconds(10));
  ASSERT_FALSE(line.empty());
  Queue q;
  const int mine = q.Submit("mine", "cpu_slots: 1\nruntime: 10m\n", {}, "sleep 1");
  ASSERT_EQ(mine, theirs);
  EXPECT_TRUE(q.WaitFor(mine, "succeeded"));
  const int held = q.Submit("second", "cpu_slots: 1\nruntime: 10m\n", {}, "sleep 300");
  ASSERT_TRUE(q.WaitFor(held, "running"));
  ASSERT_EQ(q.Run({"queue", "cancel", std::to_string(held), "--capacity", q.cap}).exit_code, 0);
  // Cancelling our job 2 left their job 1 alone, and theirs is still theirs to cancel.
  EXPECT_EQ(::kill(static_cast<pid_t>(std::stol(line)), 0), 0);
  ASSERT_EQ(
      other.Run({"queue", "cancel", std::to_string(theirs), "--capacity", other.cap}).exit_code, 0);
}

TEST(QueueLiveE2e, AJobPreemptedUnderFrugalRunWaitsAgainAndResumesAsTheSameRun) {
  Queue q;
  // The counter child: 24 steps of 0.25 s, a checkpoint every 4.
  const std::string counter = "PYTHONPATH=" + (testing::SourceDir() / "python").string() +
                              " exec " FRUGAL_PYTHON " " FRUGAL_TEST_CHILDREN
                              "/counter.py 24 0.25 4";
  const int id = q.Submit("ckpt", "cpu_slots: 1\nruntime: 10m\ncheckpoints: true\n", {}, counter);
  ASSERT_TRUE(q.WaitFor(id, "running"));
  const std::filesystem::path run_dir = q.home / ("data/runs/queue-" + std::to_string(id));
  for (int i = 0;
       i < 200 && testing::ReadTestFile(run_dir / "journal.jsonl").find("checkpoint_committed") ==
                      std::string::npos;
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  // A preemption only the supervisor hears of (a cloud notice; here a signal): it checkpoints,
  // stops the command and exits 75.
  const pid_t supervisor =
      static_cast<pid_t>(std::stol(testing::ReadTestFile(run_dir / "supervisor.lock")));
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGTERM), 0);
  ASSERT_TRUE(q.WaitFor(id, "succeeded"));
  const std::string log =
      testing::ReadTestFile(q.home / ("data/queue/" + std::to_string(id) + ".log"));
  int64_t value = 1;
  for (int step = 1; step <= 24; ++step) value = (value * 31 + step) % 1000000007;
  EXPECT_NE(log.find("final value " + std::to_string(value)), std::string::npos) << log;
  auto shown = q.Run({"--json", "runs", "show", "queue-" + std::to_string(id)});
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const auto run = nlohmann::json::parse(shown.out);
  ASSERT_EQ(run["segments"].size(), 2u) << run["segments"].dump();
  EXPECT_EQ(run["segments"][0]["end_reason"], "preempted");
  EXPECT_EQ(run["segments"][1]["end_reason"], "finished");
  // Placed twice: at first, and again after the preemption, with a decision between.
  auto job = q.Run({"--json", "queue", "show", std::to_string(id)});
  ASSERT_EQ(job.exit_code, 0) << job.err;
  const auto decisions = nlohmann::json::parse(job.out)["decisions"];
  ASSERT_GE(decisions.size(), 3u) << job.out;
  EXPECT_EQ(decisions.back()["verdict"], "start") << job.out;
  EXPECT_NE(decisions[decisions.size() - 2]["verdict"], "start") << job.out;
}

TEST(QueueLiveE2e, KillNineOfTheLoopLosesNoJobAndStartsNoneTwice) {
  Queue q;
  const std::string log = (q.home / "started.txt").string();
  std::vector<int> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(q.Submit("job" + std::to_string(i), "cpu_slots: 1\nruntime: 1m\n", {},
                           "echo $FRUGAL_QUEUE_JOB >> " + log + "; sleep 1"));
  }
  const std::vector<std::string> loop = {"--db",       q.db,    "queue",      "run",
                                         "--interval", "200ms", "--capacity", q.cap};
  pid_t pid = testing::StartFrugal(loop, q.home.path());
  ASSERT_GT(pid, 0);
  // Kill it hard as soon as the first job has started.
  for (int i = 0; i < 100 && testing::ReadTestFile(log).empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  pid = testing::StartFrugal(loop, q.home.path());
  bool all = false;
  for (int i = 0; i < 150 && !all; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    auto jobs = q.Jobs();
    all = true;
    for (int id : ids) all = all && jobs[id]["state"] == "succeeded";
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  EXPECT_TRUE(all);
  std::string started = testing::ReadTestFile(log);
  std::multiset<std::string> lines;
  for (size_t at = 0, nl; (nl = started.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.insert(started.substr(at, nl - at));
  }
  EXPECT_EQ(lines.size(), ids.size()) << started;
  for (int id : ids) EXPECT_EQ(lines.count(std::to_string(id)), 1u) << started;
}

TEST(QueueLiveE2e, BadSpecExitsTwoWithFileAndLine) {
  Queue q;
  const std::string spec = q.Spec("bad", "gpus: 1\nruntime: 1m\nwindow: nigths\n");
  auto r = q.Run({"queue", "submit", spec, "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:6:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'nights'"), std::string::npos) << r.err;
}

TEST(QueueLiveE2e, ASpecsPastDeadlineNegativeBudgetOrEmptyNameIsBadInputAtItsLine) {
  Queue q;
  // Line 4 holds the field under test (after apiVersion, kind and name).
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"deadline: 2020-01-01T00:00Z\n", "deadline': already past"},
      {"deadline: 0s\n", "deadline': already past"},
      {"budget: -1\n", "budget': must be a positive amount"},
      {"budget: 0\n", "budget': must be a positive amount"},
  };
  for (const auto& [field, message] : cases) {
    const std::string spec = q.Spec("bad", field + "cpu_slots: 1\nruntime: 1m\n");
    auto r = q.Run({"queue", "submit", spec, "--capacity", q.cap, "--", "true"});
    EXPECT_EQ(r.exit_code, 2) << field << r.err;
    EXPECT_NE(r.err.find("bad.yaml:4:"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--deadline"), std::string::npos) << r.err;  // no flag was given
  }
  const std::string path = (q.home / "noname.yaml").string();
  WriteTestFile(path,
                "apiVersion: frugal/v1\nkind: QueueJob\nname: ''\ncpu_slots: 1\nruntime: 1m\n");
  auto unnamed = q.Run({"queue", "submit", path, "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(unnamed.exit_code, 2) << unnamed.out;
  EXPECT_NE(unnamed.err.find("noname.yaml:3:7: field 'name': must not be empty"), std::string::npos)
      << unnamed.err;
  // A 900 kB name was queued and widened every `queue list` table past use.
  WriteTestFile(path, "apiVersion: frugal/v1\nkind: QueueJob\nname: " + std::string(5000, 'n') +
                          "\ncpu_slots: 1\nruntime: 1m\n");
  auto huge = q.Run({"queue", "submit", path, "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(huge.exit_code, 2) << huge.out;
  EXPECT_NE(huge.err.find("noname.yaml:3:7: field 'name': 5000 bytes is too long (at most 200)"),
            std::string::npos)
      << huge.err.substr(0, 300);
  EXPECT_FALSE(std::filesystem::exists(q.db));  // refused before the ledger was touched
}

TEST(QueueLiveE2e, BytesThatAreNotUtf8AreBadInputNamingTheFlagAndQueueNothing) {
  Queue q;
  const std::string spec = q.Spec("text", "cpu_slots: 1\nruntime: 1m\n");
  const std::vector<std::vector<std::string>> cases = {
      {"--tag", "team=\xff", "--", "true"},
      {"--tag", "\xfe=nlp", "--", "true"},
      {"--override", "because \xff", "--", "true"},
      {"--", "/bin/echo", "caf\xe9"},
  };
  for (const auto& extra : cases) {
    std::vector<std::string> args = {"--json", "queue", "submit", spec, "--capacity", q.cap};
    args.insert(args.end(), extra.begin(), extra.end());
    auto r = q.Run(args);
    EXPECT_EQ(r.exit_code, 2) << extra[0] << ": " << r.err;
    EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(extra[0] == "--" ? "command argument 2" : extra[0]), std::string::npos)
        << r.err;
    const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(doc["error"]["exit_code"], 2) << r.out;
  }
  EXPECT_TRUE(q.Jobs().empty());
}

TEST(QueueLiveE2e, ListRefusesAStateThatIsNotOne) {
  Queue q;
  q.Submit("one", "cpu_slots: 1\nruntime: 1m\n", {}, "true");
  auto typo = q.Run({"queue", "list", "--state", "waitng"});
  EXPECT_EQ(typo.exit_code, 2) << typo.out;
  EXPECT_NE(typo.err.find("--state: unknown job state 'waitng' (did you mean 'waiting'?)"),
            std::string::npos)
      << typo.err;
  auto ok = q.Run({"queue", "list", "--state", "waiting,held"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_NE(ok.out.find("one"), std::string::npos) << ok.out;
}

// A depends_on naming no job left the job waiting for ever; now submission refuses it, naming
// the file, line and field, and records nothing.
TEST(QueueLiveE2e, ADependencyOnNoJobIsRefusedAtSubmissionNamingTheField) {
  Queue q;
  q.Submit("prep", "cpu_slots: 1\nruntime: 1m\n", {"--not-before", "2h"}, "true");
  const std::string spec = q.Spec("train", "gpus: 1\nruntime: 1m\ndepends_on: [prepp]\n");
  auto r = q.Run({"queue", "submit", spec, "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("train.yaml:6:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'depends_on': no queue job is named 'prepp' (did you mean 'prep'?)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(q.Jobs().size(), 1u);  // only prep
}

// A job whose dependency failed, or was cancelled, waited for ever; now the next pass fails it
// with the reason, a chain of dependents too, and a later submission on it is refused.
TEST(QueueLiveE2e, AJobWhoseDependencyFailedOrWasCancelledFailsWithTheReason) {
  Queue q;
  const std::string ran = (q.home / "ran.txt").string();
  const int prep = q.Submit("prep", "cpu_slots: 1\nruntime: 1m\n", {}, "exit 3");
  const int train =
      q.Submit("train", "cpu_slots: 1\nruntime: 1m\ndepends_on: [prep]\n", {}, "echo x > " + ran);
  const int eval =
      q.Submit("eval", "cpu_slots: 1\nruntime: 1m\ndepends_on: [train]\n", {}, "echo x > " + ran);
  ASSERT_TRUE(q.WaitFor(prep, "failed"));
  q.Pass();
  auto jobs = q.Jobs();
  EXPECT_EQ(jobs[train]["state"], "failed");
  EXPECT_NE(jobs[train]["reason"].get<std::string>().find("dependency_failed: 'prep' failed (job " +
                                                          std::to_string(prep)),
            std::string::npos)
      << jobs[train].dump();
  EXPECT_EQ(jobs[eval]["state"], "failed");
  EXPECT_NE(jobs[eval]["reason"].get<std::string>().find("'train' failed"), std::string::npos)
      << jobs[eval].dump();
  EXPECT_FALSE(std::filesystem::exists(ran));
  auto show = q.Run({"--json", "queue", "show", std::to_string(train)});
  ASSERT_EQ(show.exit_code, 0) << show.err;
  EXPECT_EQ(nlohmann::json::parse(show.out)["decisions"].back()["verdict"], "dependency_failed");
  const std::string late = q.Spec("late", "cpu_slots: 1\nruntime: 1m\ndepends_on: [prep]\n");
  auto r = q.Run({"queue", "submit", late, "--capacity", q.cap, "--", "true"});
  EXPECT_EQ(r.exit_code, 2) << r.out;
  EXPECT_NE(r.err.find("late.yaml:6:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("field 'depends_on': 'prep' failed"), std::string::npos) << r.err;

  // Cancelled: the same, once no job of that name is left to run.
  const int gate = q.Submit("gate", "cpu_slots: 1\nruntime: 1m\n", {"--not-before", "2h"}, "true");
  const int after =
      q.Submit("after", "cpu_slots: 1\nruntime: 1m\ndepends_on: [gate]\n", {}, "true");
  q.Pass();
  EXPECT_EQ(q.Jobs()[after]["state"], "waiting");
  ASSERT_EQ(q.Run({"queue", "cancel", std::to_string(gate)}).exit_code, 0);
  q.Pass();
  EXPECT_EQ(q.Jobs()[after]["state"], "failed");
  EXPECT_NE(q.Jobs()[after]["reason"].get<std::string>().find("'gate' cancelled"),
            std::string::npos);
}

// An id past 64 bits was clamped onto another number and shown or steered; now it is refused
// naming the argument.
TEST(QueueLiveE2e, AnIdTooLargeOrNotANumberIsBadInputNamingTheArgument) {
  Queue q;
  q.Submit("one", "cpu_slots: 1\nruntime: 1m\n", {"--not-before", "2h"}, "true");
  for (const char* command : {"show", "cancel", "hold", "release"}) {
    for (const char* id : {"99999999999999999999", "9223372036854775808", "-1", "0", "1x"}) {
      auto r = q.Run({"queue", command, id});
      EXPECT_EQ(r.exit_code, 2) << command << " " << id << ": " << r.out;
      EXPECT_NE(r.err.find("id"), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(id), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
  EXPECT_EQ(q.Jobs().begin()->second["state"], "waiting");
  auto big = q.Run({"queue", "submit", q.Spec("p", "cpu_slots: 1\nruntime: 1m\n"), "--capacity",
                    q.cap, "--priority", "99999999999", "--", "true"});
  EXPECT_EQ(big.exit_code, 2) << big.out;
  EXPECT_NE(big.err.find("--priority"), std::string::npos) << big.err;
}

// In the capacity file a GPU model no catalog knows, max_jobs or max_gpus 0 were accepted: a
// pool no job could name, or one read as unlimited. Each is refused at its line.
TEST(QueueLiveE2e, ACapacityPoolWithAnUnknownGpuOrAZeroLimitIsBadInputAtItsLine) {
  Queue q;
  const std::string spec = q.Spec("one", "gpus: 1\nruntime: 1m\n");
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"gpu: A100-80BG\n    gpus_per_node: 8\n",
       "cap.yaml:6:10: field 'gpu': unknown GPU model 'A100-80BG' (did you mean 'A100-80GB'?)"},
      {"gpu: H100\n    gpus_per_node: 8\n", "cap.yaml:6:10: field 'gpu': 'H100' is ambiguous"},
      {"gpu: T4\n    gpus_per_node: 8\n    max_jobs: 0\n", "cap.yaml:8:15: field 'max_jobs'"},
      {"gpu: T4\n    gpus_per_node: 8\n    max_gpus: 0\n", "cap.yaml:8:15: field 'max_gpus'"},
  };
  const std::string cap = (q.home / "cap.yaml").string();
  for (const auto& [pool, message] : cases) {
    WriteTestFile(cap,
                  "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
                  "  - name: a\n    tier: owned\n    " +
                      pool);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"queue", "submit", spec, "--capacity", cap, "--", "true"},
          std::vector<std::string>{"queue", "run", "--once", "--capacity", cap},
          std::vector<std::string>{"queue", "simulate", "--capacity", cap, "--workload",
                                   (testing::SourceDir() / "examples/queue/week.yaml").string()}}) {
      auto r = q.Run(args);
      EXPECT_EQ(r.exit_code, 2) << args[1] << ": " << r.out;
      EXPECT_NE(r.err.find(message), std::string::npos) << args[1] << ": " << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
  EXPECT_FALSE(std::filesystem::exists(q.db));  // refused before the ledger was touched
}

}  // namespace
}  // namespace frugal

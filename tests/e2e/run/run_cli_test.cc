// End-to-end: the real frugal binary supervising real children, killed at random points.

#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "frugal/run/checkpoint_manifest.h"
#include "frugal/run/child_process.h"
#include "frugal/run/run_journal.h"
#include "run_e2e_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using e2e::Counter;
using e2e::PythonPath;
using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using frugal::testing::WaitForLine;
using std::chrono::milliseconds;

using frugal::testing::CounterValue;
TEST(RunCli, FinishesAndPrintsOneJsonDocument) {
  TempDir home;
  std::vector<std::string> args = {"--json", "run",      "--price",  "3.06/h", "--budget", "5",
                                   "--tag",  "team=nlp", "--run-id", "j1",     "--"};
  for (const auto& a : Counter(6, 0.01, 3)) args.push_back(a);
  auto r = RunFrugal(args, home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);  // the child's stdout went to stderr
  EXPECT_EQ(doc["outcome"], "finished");
  EXPECT_EQ(doc["checkpoints_committed"], 2);
  EXPECT_EQ(doc["result"]["value"].get<long long>(), CounterValue(6));
  EXPECT_EQ(doc["schema_version"], 1);
  const auto journal = ReadJournal(home.path() / "data" / "runs" / "j1" / "journal.jsonl");
  ASSERT_FALSE(journal.empty());
  EXPECT_EQ(journal.front()["tags"]["team"], "nlp");
}

TEST(RunCli, BadInputIsExitCodeTwoWithTheOptionNamed) {
  TempDir home;
  auto no_price = RunFrugal({"run", "--", "true"}, home.path());
  EXPECT_EQ(no_price.exit_code, 2);
  EXPECT_NE(no_price.err.find("--price"), std::string::npos);
  auto bad_budget =
      RunFrugal({"run", "--price", "1/h", "--budget", "lots", "--", "true"}, home.path());
  EXPECT_EQ(bad_budget.exit_code, 2);
  EXPECT_NE(bad_budget.err.find("--budget"), std::string::npos);
  auto bad_tag = RunFrugal({"run", "--price", "1/h", "--tag", "team", "--", "true"}, home.path());
  EXPECT_EQ(bad_tag.exit_code, 2);
  auto missing = RunFrugal({"run", "--price", "1/h", "--", "frugal-no-such-trainer"}, home.path());
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("frugal-no-such-trainer"), std::string::npos);
  auto unknown_offer =
      RunFrugal({"run", "--offer", "aws:nope:us-east-1:spot", "--", "true"}, home.path());
  EXPECT_EQ(unknown_offer.exit_code, 2);
  // The metadata client is a module opened on demand: a missing one is named, exit 2.
  TempDir no_modules;
  auto no_module = RunFrugal({"run", "--price", "1/h", "--metadata", "gcp", "--metadata-endpoint",
                              "http://127.0.0.1:1", "--", "true"},
                             home.path(), {"FRUGAL_MODULE_DIR=" + no_modules.path().string()});
  EXPECT_EQ(no_module.exit_code, 2) << no_module.err;
  EXPECT_NE(no_module.err.find("module frugal_metadata cannot be loaded"), std::string::npos)
      << no_module.err;
  // Limits that would silently remove a cap, or could never be met, are refused by name.
  for (const std::vector<std::string>& limit : {std::vector<std::string>{"--max-gpu-hours", "-1"},
                                                {"--max-gpu-hours", "0"},
                                                {"--max-wall", "0s"},
                                                {"--gpus", "0"},
                                                {"--gpus", "-2"}}) {
    std::vector<std::string> args = {"run", "--price", "1/h", "--run-id", "refused"};
    args.insert(args.end(), limit.begin(), limit.end());
    args.insert(args.end(), {"--", "true"});
    auto refused = RunFrugal(args, home.path());
    EXPECT_EQ(refused.exit_code, 2) << limit[0] << " " << limit[1] << ": " << refused.err;
    EXPECT_NE(refused.err.find(limit[0]), std::string::npos) << refused.err;
  }
  // An unknown option of frugal's is named alone, not beside the training command's own.
  for (const char* command : {"run", "drill"}) {
    auto bogus = RunFrugal({command, "--price", "1/h", "--bogus", "--", "python3", "train.py",
                            "--epochs", "3", "--step-delay", "0.05"},
                           home.path());
    EXPECT_EQ(bogus.exit_code, 2) << command << ": " << bogus.err;
    EXPECT_NE(bogus.err.find("--bogus"), std::string::npos) << command << ": " << bogus.err;
    EXPECT_EQ(bogus.err.find("--epochs"), std::string::npos) << command << ": " << bogus.err;
    EXPECT_EQ(bogus.err.find("0.05"), std::string::npos) << command << ": " << bogus.err;
  }
  // Nothing refused leaves a run folder behind.
  EXPECT_FALSE(std::filesystem::exists(home / "data" / "runs" / "refused"));
}

TEST(RunCli, BudgetStopExitsThreeAndReportsTheOvershoot) {
  TempDir home;
  auto r = RunFrugal({"run", "--price", "36/h", "--budget", "0.005", "--accrual-interval", "100ms",
                      "--stop-grace", "200ms", "--", "/bin/sh", "-c", "sleep 30"},
                     home.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.out.find("dollars reached; overshoot"), std::string::npos) << r.out;
}

TEST(RunCli, FailingCommandExitsOne) {
  TempDir home;
  auto r = RunFrugal({"run", "--price", "1/h", "--", "/bin/sh", "-c", "exit 7"}, home.path());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exit code 7"), std::string::npos) << r.err;
}

/// Every committed checkpoint of the run verifies.
void ExpectCommittedCheckpointsVerify(const fs::path& run_dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(run_dir / "checkpoints" / "committed", ec)) {
    if (e.path().filename().string().rfind("ckpt-", 0) != 0) continue;
    auto m = VerifyCheckpoint(e.path());
    EXPECT_TRUE(m.has_value()) << m.error().message;
  }
}

TEST(RunCli, SigkillOfChildOrSupervisorNeverCorruptsACommittedCheckpoint) {
  TempDir home;
  const fs::path run_dir = home / "run";
  const fs::path pidfile = home / "child.pid";
  std::mt19937 rng(424242);
  std::uniform_int_distribution<int> delay_ms(100, 1000);
  std::vector<std::string> args = {
      FRUGAL_BINARY, "-q", "run",       "--price",        "1/h",
      "--run-id",    "k",  "--run-dir", run_dir.string(), "--heartbeat-interval",
      "200ms",       "--"};
  for (const auto& a : Counter(300, 0.02, 7)) args.push_back(a);
  const std::vector<std::pair<std::string, std::string>> env = {
      {"PYTHONPATH", (frugal::testing::SourceDir() / "python").string()},
      {"FRUGAL_HOME", home.path().string()},
      {"COUNTER_PIDFILE", pidfile.string()}};
  for (int i = 0; i < 6; ++i) {
    fs::remove(pidfile);
    auto frugal = ChildProcess::Spawn({args, env, ChildStdout::kInherit});
    ASSERT_TRUE(frugal.has_value());
    // The kill lands a random while into the training, counted from the training process's
    // start: on a loaded machine the supervisor and Python can take longer than the delay to
    // start, and a kill before the run started would test nothing.
    const std::string pid = WaitForLine(pidfile, std::chrono::seconds(30));
    ASSERT_FALSE(pid.empty());
    std::this_thread::sleep_for(milliseconds(delay_ms(rng)));
    if (i % 2 == 0) {
      (*frugal)->SignalGroup(SIGKILL);  // the supervisor dies outright
    } else {
      ::kill(static_cast<pid_t>(std::stol(pid)), SIGKILL);  // the training process dies
    }
    (*frugal)->WaitFor(std::chrono::seconds(20));
    ExpectCommittedCheckpointsVerify(run_dir);
    // Let an orphaned child of a killed supervisor notice and go (it gets SIGTERM).
    std::this_thread::sleep_for(milliseconds(200));
  }
  std::vector<std::string> final_args(args.begin() + 1, args.end());
  auto r = RunFrugal(final_args, home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ExpectCommittedCheckpointsVerify(run_dir);
  const auto records = ReadJournal(run_dir / "journal.jsonl");
  int opened = 0, closed = 0, started = 0, finished = 0, lost = 0;
  long long value = -1;
  int64_t resume_step = 0;
  for (const auto& rec : records) {
    const std::string kind = rec["record"];
    opened += kind == "segment_opened";
    closed += kind == "segment_closed";
    started += kind == "run_started";
    finished += kind == "run_finished";
    if (kind == "run_finished" && rec["outcome"] == "lost") ++lost;
    if (kind == "segment_opened") resume_step = rec["resume_step"].get<int64_t>();
  }
  EXPECT_EQ(started, 7);
  EXPECT_EQ(finished, 7);  // every attempt ends in the journal, killed ones marked lost
  EXPECT_EQ(lost, 3);
  EXPECT_EQ(opened, closed);
  EXPECT_GT(resume_step, 0);  // the last attempt resumed from a checkpoint
  const std::string all = r.out + r.err;
  const size_t at = all.find("final value ");
  ASSERT_NE(at, std::string::npos) << all;
  value = std::stoll(all.substr(at + 12));
  EXPECT_EQ(value, CounterValue(300));
}

/// Whether `pid` runs (exists and is not a zombie).
bool Running(pid_t pid) {
  auto stat = ReadFile("/proc/" + std::to_string(pid) + "/stat");
  if (!stat) return false;
  const size_t paren = stat->rfind(')');
  return paren != std::string::npos && paren + 2 < stat->size() && (*stat)[paren + 2] != 'Z';
}

// The kernel's parent-death signal reaches only the supervisor's direct child: here a shell,
// whose background `worker` (a stand-in for a trainer's data loader) survives a SIGKILLed
// supervisor. The next supervisor of the run stops it before starting anything.
void ExpectANewSupervisorStopsWhatAKilledOneLeft(const std::string& worker) {
  TempDir home;
  const fs::path marker = home / "started-once";
  const fs::path pidfile = home / "worker.pid";
  const std::string script = "if [ -e '" + marker.string() + "' ]; then exit 0; fi; touch '" +
                             marker.string() + "'; " + worker + " & echo $! > '" +
                             pidfile.string() + "'; wait";
  const std::vector<std::string> args = {"run",     "--price",      "1/h", "--run-id",
                                         "orphan",  "--stop-grace", "2s",  "--",
                                         "/bin/sh", "-c",           script};
  std::vector<std::string> first = {FRUGAL_BINARY, "-q"};
  first.insert(first.end(), args.begin(), args.end());
  auto frugal =
      ChildProcess::Spawn({first, {{"FRUGAL_HOME", home.path().string()}}, ChildStdout::kInherit});
  ASSERT_TRUE(frugal.has_value());
  const std::string text = WaitForLine(pidfile, std::chrono::seconds(10));
  if (text.empty()) (*frugal)->SignalGroup(SIGKILL);
  ASSERT_FALSE(text.empty());
  const auto pid = static_cast<pid_t>(std::stol(text));
  (*frugal)->SignalGroup(SIGKILL);  // only the supervisor: the command has its own group
  (*frugal)->WaitFor(std::chrono::seconds(10));
  std::this_thread::sleep_for(milliseconds(300));
  ASSERT_TRUE(Running(pid)) << "the worker should have outlived the killed supervisor";

  auto again = RunFrugal(args, home.path());
  EXPECT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE((again.out + again.err).find("left running"), std::string::npos)
      << again.out << again.err;
  for (int wait = 0; wait < 100 && Running(pid); ++wait)
    std::this_thread::sleep_for(milliseconds(20));
  EXPECT_FALSE(Running(pid));
  if (Running(pid)) ::kill(pid, SIGKILL);
}

TEST(RunCli, ANewSupervisorStopsWhatAKilledOneLeftRunning) {
  ExpectANewSupervisorStopsWhatAKilledOneLeft("sleep 300");
}

// A worker started with a clean environment carries nothing of the run: the process group the
// killed supervisor noted (command.pgid) still names it.
TEST(RunCli, ANewSupervisorStopsALeftWorkerWhoseEnvironmentWasCleared) {
  ExpectANewSupervisorStopsWhatAKilledOneLeft("env -i /bin/sleep 300");
}

}  // namespace
}  // namespace frugal::run

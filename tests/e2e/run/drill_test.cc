// End-to-end: `frugal drill` on real children: a protocol-following counter, a command that
// ignores the protocol, one whose resume is wrong, and the PyTorch example.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frugal/core/atomic_file.h"
#include "run_e2e_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using e2e::PythonPath;
using frugal::testing::RunFrugal;
using frugal::testing::RunProgram;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;
using nlohmann::json;

json Parse(const std::string& out) {
  json doc = json::parse(out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << out;
  return doc;
}

TEST(Drill, ProtocolFollowingCounterIsSpotReadyAndTheFindingsAreStored) {
  TempDir home;
  auto r = RunFrugal(
      {"--json", "drill", "--preemptions", "3", "--seed", "5", "--run-id", "D1", "--",
       FRUGAL_PYTHON, std::string(FRUGAL_TEST_CHILDREN) + "/counter.py", "60", "0.03", "10"},
      home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = Parse(r.out);
  EXPECT_EQ(doc["spot_ready"], true) << doc.dump();
  EXPECT_EQ(doc["preemptions"], 3);
  EXPECT_EQ(doc["result_matches"], true);
  EXPECT_EQ(doc["checkpoint_on_notice"], true);
  EXPECT_EQ(doc["checkpoint_within_30s"], true);
  EXPECT_EQ(doc["checkpoint_within_120s"], true);
  EXPECT_GT(doc["checkpoint_write_seconds"]["max"].get<double>(), 0);
  EXPECT_LT(doc["checkpoint_write_seconds"]["max"].get<double>(), 5);
  EXPECT_GT(doc["restart_seconds"]["max"].get<double>(), 0);
  // Checkpointing on the notice, the counter loses at most the step in flight.
  EXPECT_LE(doc["lost_work_seconds"]["max"].get<double>(), 0.5);
  EXPECT_EQ(doc["name"], "counter");

  const fs::path stored = home / "data" / "drills" / "counter.json";
  EXPECT_EQ(fs::path(doc["stored"].get<std::string>()), stored);
  const json record = json::parse(ReadFile(stored).value());
  EXPECT_EQ(record["v"], 1);
  EXPECT_EQ(record["restart_seconds"], doc["restart_seconds"]);

  // Both runs are in the ledger; the drilled one has a segment per stretch and the findings.
  const json show =
      Parse(RunFrugal({"--json", "runs", "show",
                       std::to_string(doc["ledger_runs"]["preempted"].get<int64_t>())},
                      home.path())
                .out);
  EXPECT_EQ(show["name"], "D1-drill");
  EXPECT_EQ(show["tags"]["drill"], "preempted");
  ASSERT_EQ(show["segments"].size(), 4u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(show["segments"][i]["end_reason"], "preempted");
  EXPECT_EQ(show["segments"][3]["end_reason"], "finished");
  bool findings = false;
  for (const json& e : show["events"])
    findings |= e["type"] == "note" && e["payload"].value("kind", "") == "drill";
  EXPECT_TRUE(findings);
}

TEST(Drill, CommandIgnoringTheProtocolIsNotSpotReady) {
  TempDir home;
  auto r = RunFrugal({"--json", "drill", "--preemptions", "2", "--name", "sleepy", "--", "/bin/sh",
                      "-c", "sleep 1.5"},
                     home.path());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = Parse(r.out);
  EXPECT_EQ(doc["spot_ready"], false);
  EXPECT_EQ(doc["checkpoint_within_30s"], false);
  EXPECT_EQ(doc["checkpoint_on_notice"], false);
  EXPECT_NE(doc["reasons"].dump().find("from scratch"), std::string::npos) << doc.dump();
  EXPECT_TRUE(fs::exists(home / "data" / "drills" / "sleepy.json"));
}

// It reports progress but never checkpoints: every restart starts from scratch, and that is
// the reason given (not that a restarted command never reported progress, which it did).
TEST(Drill, RestartsFromScratchAreTheOnlyReason) {
  TempDir home;
  const fs::path child = home / "nockpt.py";
  WriteTestFile(child, R"(import time
import frugal
step = 0
while step < 100:
    # The last steps are slow: a loaded machine still delivers the notice before the end.
    time.sleep(0.03 if step < 80 else 0.1)
    step += 1
    frugal.report(step)
    if frugal.should_stop():
        raise SystemExit(0)
frugal.result(value=step)
)");
  // A short grace: should_stop() comes with the SIGTERM that follows it.
  auto r = RunFrugal({"--json", "drill", "--preemptions", "2", "--seed", "1", "--grace", "300ms",
                      "--name", "nockpt", "--", FRUGAL_PYTHON, child.string()},
                     home.path(), {PythonPath()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = Parse(r.out);
  EXPECT_EQ(doc["spot_ready"], false);
  EXPECT_EQ(doc["preemptions"], 2) << doc.dump();
  ASSERT_EQ(doc["reasons"].size(), 1u) << doc.dump();
  EXPECT_NE(doc["reasons"][0].get<std::string>().find("2 restart(s) started from scratch"),
            std::string::npos)
      << doc.dump();
}

TEST(Drill, ResumeThatLosesStateIsCaughtByTheResult) {
  TempDir home;
  // Checkpoints its step but not its running value: a resumed run reports a different result.
  const fs::path child = home / "forgetful.py";
  WriteTestFile(child, R"(import json, os, time
import frugal
step, value = 0, 1
if frugal.resume_from():
    with open(os.path.join(frugal.resume_from(), "s.json")) as f:
        step = json.load(f)["step"]
while step < 50:
    time.sleep(0.03)
    step += 1
    value = (value * 31 + step) % 1000003
    frugal.report(step)
    if frugal.checkpoint_requested() or frugal.should_stop() or step % 10 == 0:
        with frugal.checkpoint(step) as d:
            with open(os.path.join(d, "s.json"), "w") as f:
                json.dump({"step": step}, f)
    if frugal.should_stop():
        raise SystemExit(0)
frugal.result(value=value)
)");
  auto r = RunFrugal({"--json", "drill", "--preemptions", "2", "--", FRUGAL_PYTHON, child.string()},
                     home.path(), {PythonPath()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const json doc = Parse(r.out);
  EXPECT_EQ(doc["result_matches"], false);
  EXPECT_EQ(doc["spot_ready"], false);
  EXPECT_EQ(doc["checkpoint_within_30s"],
            true);  // it does checkpoint on notice, just the wrong state
  EXPECT_NE(doc["reasons"].dump().find("final result differs"), std::string::npos) << doc.dump();
}

TEST(Drill, PytorchExampleIsSpotReadyWithTheUninterruptedResult) {
  if (RunProgram({FRUGAL_PYTHON, "-c", "import torch"}).exit_code != 0) {
    GTEST_SKIP() << "torch is not importable by " << FRUGAL_PYTHON;
  }
  TempDir home;
  const std::string train =
      (frugal::testing::SourceDir() / "examples" / "pytorch" / "train.py").string();
  auto r = RunFrugal({"--json", "drill", "--preemptions", "2", "--seed", "3", "--", FRUGAL_PYTHON,
                      train, "--epochs", "2", "--step-delay", "0.01", "--checkpoint-every", "40"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = Parse(r.out);
  EXPECT_EQ(doc["spot_ready"], true) << doc.dump();
  EXPECT_EQ(doc["preemptions"], 2);
  EXPECT_EQ(doc["result_matches"], true);
  EXPECT_EQ(doc["checkpoint_within_30s"], true);
  EXPECT_EQ(doc["name"], "train");
}

TEST(Drill, BadInputIsExitTwo) {
  TempDir home;
  EXPECT_EQ(RunFrugal({"drill", "--preemptions", "0", "--", "true"}, home.path()).exit_code, 2);
  EXPECT_EQ(RunFrugal({"drill", "--", "frugal-no-such-trainer"}, home.path()).exit_code, 2);
}

TEST(Drill, ANameThatIsAPathIsExitTwoBeforeAnythingRuns) {
  // `--name ../../x` stored the record at .../data/drills/../../x.json, outside the data folder.
  TempDir home;
  const std::filesystem::path marker = home / "ran";
  for (const std::string& name : std::vector<std::string>{"../../x", "/tmp/x", "..", "a/b"}) {
    const auto r = RunFrugal({"drill", "--preemptions", "1", "--name", name, "--", "/bin/sh", "-c",
                              "touch " + marker.string()},
                             home.path());
    EXPECT_EQ(r.exit_code, 2) << name << ": " << r.err;
    EXPECT_NE(r.err.find("option --name"), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(marker)) << name << ": the drill ran";
  }
  EXPECT_FALSE(std::filesystem::exists(home / "x.json"));
  EXPECT_FALSE(std::filesystem::exists(home / "data" / "x.json"));
}

}  // namespace
}  // namespace frugal::run

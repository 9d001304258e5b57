// End-to-end: a job run under `frugal run --spec` measures itself, and the next `frugal plan` of
// the same spec uses that measurement without a `measured:` entry, saying which run it came
// from and when; a newer run's measurement supersedes the older one.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "run_e2e_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using e2e::PythonPath;
using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;
using nlohmann::json;

/// A CNN trained on CPU instances (the test machine has no GPU): 1M samples, three CPU offers.
fs::path WriteJob(const TempDir& dir) {
  WriteTestFile(dir / "offers.yaml", R"(apiVersion: frugal/v1
offers:
  - {name: cpu-4, cloud: lab, region: here, vcpus: 4, ram_gib: 16, price_per_hour: 0.20}
  - {name: cpu-16, cloud: lab, region: here, vcpus: 16, ram_gib: 64, price_per_hour: 0.80}
)");
  WriteTestFile(dir / "resnet.yaml", R"(apiVersion: frugal/v1
kind: Job
name: resnet-small
catalog: offers.yaml
model: {family: cnn, params: 11m}
work: {samples: 1m}
constraints: {clouds: [lab]}
)");
  return dir / "resnet.yaml";
}

/// `frugal run --spec` of the job on a stated price: `steps` steps of `step_seconds`, 4 samples
/// a step (profile_child.py speaks the protocol through the Python helper).
frugal::testing::CommandResult RunJob(const TempDir& dir, const fs::path& spec,
                                      const std::string& run_id, int steps, double step_seconds) {
  return RunFrugal({"run", "--spec", spec.string(), "--price", "0.20/h", "--run-id", run_id, "--",
                    FRUGAL_PYTHON, std::string(FRUGAL_TEST_DIR) + "/profile_child.py",
                    std::to_string(steps), std::to_string(step_seconds), "512", "4", "16"},
                   dir.path(), {PythonPath()});
}

json Plan(const TempDir& dir, const fs::path& spec) {
  auto r = RunFrugal({"--json", "plan", spec.string()}, dir.path());
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  return r.exit_code == 0 ? json::parse(r.out) : json::object();
}

const json* Option(const json& plan, const std::string& instance) {
  for (const json& o : plan["options"]) {
    if (o["instance_type"] == instance) return &o;
  }
  return nullptr;
}

TEST(RunMeasuresPlan, TheNextPlanOfTheSpecUsesTheNewestRunsMeasurement) {
  TempDir dir;
  const fs::path spec = WriteJob(dir);
  // Nothing measured yet: the plan refuses and says how to measure.
  auto before = RunFrugal({"plan", spec.string()}, dir.path());
  EXPECT_EQ(before.exit_code, 2) << before.out;
  EXPECT_NE(before.err.find("frugal run --spec"), std::string::npos) << before.err;

  // The first run: 20 steps of 50 ms, 4 samples a step (at most 80 samples/s).
  auto first = RunJob(dir, spec, "r-first", 20, 0.05);
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_NE(first.err.find("profile 1 of job 'resnet-small'"), std::string::npos) << first.err;
  const json p1 = Plan(dir, spec);
  ASSERT_TRUE(p1["measured_from"].is_object()) << p1.dump(2);
  EXPECT_EQ(p1["measured_from"]["run_id"], "r-first");
  EXPECT_EQ(p1["measured_from"]["units"], "samples");
  EXPECT_FALSE(p1["measured_from"]["recorded_at"].get<std::string>().empty());
  EXPECT_FALSE(p1["measured_from"]["device"].get<std::string>().empty());
  const double rate1 = p1["measured_from"]["per_second"].get<double>();
  EXPECT_GT(rate1, 10.0);
  EXPECT_LE(rate1, 81.0);
  // Every CPU offer is planned from it, scaled by its vCPUs from the machine's, and says so.
  const json* four = Option(p1, "cpu-4");
  ASSERT_NE(four, nullptr) << p1.dump(2);
  EXPECT_NE((*four)["predicted_from"].get<std::string>().find("run r-first"), std::string::npos);
  EXPECT_NE((*four)["predicted_from"].get<std::string>().find("vCPUs measured"), std::string::npos);
  EXPECT_GT((*four)["work_hours"].get<double>(), 0.0);

  // A second run, twice as fast a step: its measurement supersedes the first.
  auto second = RunJob(dir, spec, "r-second", 20, 0.025);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  const json p2 = Plan(dir, spec);
  EXPECT_EQ(p2["measured_from"]["run_id"], "r-second");
  EXPECT_GT(p2["measured_from"]["per_second"].get<double>(), rate1);
  ASSERT_EQ(p2["recorded_measurements"].size(), 2u);
  EXPECT_TRUE(p2["recorded_measurements"][0]["used"].get<bool>());
  EXPECT_FALSE(p2["recorded_measurements"][1]["used"].get<bool>());
  EXPECT_EQ(p2["recorded_measurements"][1]["run_id"], "r-first");
  EXPECT_NE(
      p2["recorded_measurements"][1]["note"].get<std::string>().find("superseded by run r-second"),
      std::string::npos);
  const json* four2 = Option(p2, "cpu-4");
  ASSERT_NE(four2, nullptr);
  EXPECT_LT((*four2)["work_hours"].get<double>(), (*four)["work_hours"].get<double>());

  // The text plan says which run and when.
  auto text = RunFrugal({"plan", spec.string()}, dir.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Measured: run r-second measured "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Not used: run r-first"), std::string::npos) << text.out;
}

TEST(RunMeasuresPlan, ARunPreemptedAndRestartedIsMeasuredOverItsSegmentsOnly) {
  TempDir dir;
  const fs::path spec = WriteJob(dir);
  // Preempted twice and restarted here after a second each; every segment starts the child
  // afresh (it does not resume), which spends its Python start-up before its first report.
  auto r = RunFrugal({"run",         "--spec",
                      spec.string(), "--price",
                      "0.20/h",      "--run-id",
                      "r-chaos",     "--restart",
                      "local",       "--restart-backoff",
                      "1s",          "--chaos-preempt-every",
                      "1500ms",      "--chaos-max",
                      "2",           "--seed",
                      "3",           "--grace",
                      "5s",          "--",
                      FRUGAL_PYTHON, std::string(FRUGAL_TEST_DIR) + "/profile_child.py",
                      "60",          "0.05",
                      "512",         "4",
                      "16"},
                     dir.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // 60 steps of 50 ms outlast the first notice (0.75-2.25 s into a segment): preempted.
  EXPECT_NE(r.out.find("preempt"), std::string::npos) << r.out;
  const json plan = Plan(dir, spec);
  ASSERT_TRUE(plan["measured_from"].is_object()) << plan.dump(2);
  EXPECT_EQ(plan["measured_from"]["run_id"], "r-chaos");
  // 4 samples a 50 ms step: at most 80/s, and no crawl even on a loaded machine.
  const double rate = plan["measured_from"]["per_second"].get<double>();
  EXPECT_LE(rate, 81.0);
  EXPECT_GT(rate, 30.0);
  auto list = RunFrugal({"--json", "profile", "list", "resnet-small"}, dir.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  const json profile = json::parse(list.out)["profiles"][0];
  EXPECT_EQ(profile["ended"], "finished");
  // The rate is over the segments' progress: the restarts' downtime (two backoffs of 1 s, two
  // start-ups) is in the wall time, not in the stretch the rate divides by.
  EXPECT_GT(profile["wall_seconds"].get<double>(), profile["measured_seconds"].get<double>() + 2);
  EXPECT_NEAR(profile["samples_per_second"].get<double>(), rate, 1e-9);
}

TEST(RunMeasuresPlan, AFirstRunWithNothingMeasuredNeedsToBeToldWhere) {
  TempDir dir;
  const fs::path spec = WriteJob(dir);
  auto r = RunFrugal({"run", "--spec", spec.string(), "--", "/bin/sh", "-c", "exit 0"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("give its first run --offer, --gpu or --price"), std::string::npos) << r.err;
  auto on_offer = RunFrugal({"run", "--spec", spec.string(), "--offer", "lab:cpu-4:here:on_demand",
                             "--", "/bin/sh", "-c", "exit 0"},
                            dir.path());
  EXPECT_EQ(on_offer.exit_code, 0) << on_offer.err;
}

TEST(RunMeasuresPlan, ARunWithoutProgressRecordsNothingAndSaysSo) {
  TempDir dir;
  const fs::path spec = WriteJob(dir);
  auto r = RunFrugal(
      {"run", "--spec", spec.string(), "--price", "0.20/h", "--", "/bin/sh", "-c", "exit 0"},
      dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no measurement of job 'resnet-small' recorded"), std::string::npos)
      << r.err;
  auto list = RunFrugal({"--json", "profile", "list"}, dir.path());
  ASSERT_EQ(list.exit_code, 0) << list.err;
  EXPECT_TRUE(json::parse(list.out)["profiles"].empty());
}

}  // namespace
}  // namespace frugal::run

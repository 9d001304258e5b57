// End-to-end: `frugal run --spec JOB.yaml` takes tags, caps and the offer from the job spec and
// refuses (exit 3) to start a run the planner estimates over its budget, unless --allow-overrun.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;
using nlohmann::json;

/// The seed job (A: $4.00/h for 1 h; B: $1.40/h for 2.2 h = $3.08) with `constraints` added.
fs::path WriteSeedSpec(const TempDir& dir, const std::string& constraints) {
  const fs::path seed = frugal::testing::SourceDir() / "examples" / "seed";
  fs::copy_file(seed / "offers.yaml", dir / "offers.yaml", fs::copy_options::overwrite_existing);
  WriteTestFile(dir / "job.yaml", R"(apiVersion: frugal/v1
kind: Job
name: seed
tags: {team: research, project: seed, owner: ada}
catalog: offers.yaml
model:
  params: 500m
  seq: 1024
training:
  precision: bf16
  optimizer: adamw
  micro_batch: 4
  global_batch: 32
work:
  tokens: 200m
measured:
  - offer: option-a
    runtime: 1h
  - offer: option-b
    runtime: 2.2h
constraints:
  deadline: 3h
  clouds: [seed]
)" + constraints);
  return dir / "job.yaml";
}

json OnlyRun(const fs::path& home) {
  auto list = RunFrugal({"--json", "runs", "list"}, home);
  EXPECT_EQ(list.exit_code, 0) << list.err;
  const json runs = json::parse(list.out)["runs"];
  EXPECT_EQ(runs.size(), 1u) << runs.dump();
  if (runs.empty()) return json::object();
  auto show =
      RunFrugal({"--json", "runs", "show", std::to_string(runs[0]["id"].get<int64_t>())}, home);
  return json::parse(show.out);
}

TEST(RunSpec, RefusesARunEstimatedOverItsBudgetWithExitThree) {
  TempDir dir;
  const fs::path spec = WriteSeedSpec(dir, "  budget: 3\n");
  const fs::path marker = dir / "ran";
  auto r =
      RunFrugal({"run", "--spec", spec.string(), "--", "/bin/sh", "-c", "touch " + marker.string()},
                dir.path());
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("refused to start"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("$3.08"), std::string::npos)
      << r.err;  // B, the cheapest that meets the deadline
  EXPECT_NE(r.err.find("--allow-overrun"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker));
  EXPECT_FALSE(fs::exists(dir / "data" / "ledger.sqlite"));  // nothing recorded
}

TEST(RunSpec, AllowOverrunStartsItAndTheLedgerHoldsTheSpecTagsAndOffer) {
  TempDir dir;
  const fs::path spec = WriteSeedSpec(dir, "  budget: 3\n");
  auto r = RunFrugal({"run", "--spec", spec.string(), "--allow-overrun", "--tag", "owner=bob", "--",
                      "/bin/sh", "-c", "sleep 0.2"},
                     dir.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("starting anyway"), std::string::npos) << r.err;
  const json show = OnlyRun(dir.path());
  EXPECT_EQ(show["tags"]["team"], "research");
  EXPECT_EQ(show["tags"]["project"], "seed");
  EXPECT_EQ(show["tags"]["owner"], "bob");  // the flag over the spec
  EXPECT_EQ(show["budget_usd"], "3");
  ASSERT_EQ(show["segments"].size(), 1u);
  EXPECT_EQ(show["segments"][0]["cloud"], "seed");
  EXPECT_EQ(show["segments"][0]["gpu"], "L4");
  EXPECT_EQ(show["segments"][0]["price_per_hour_usd"], "1.4");
}

TEST(RunSpec, WithinBudgetRunsOnThePlannersChoiceAndTheGivenOfferIsGatedToo) {
  TempDir dir;
  const fs::path spec = WriteSeedSpec(dir, "  budget: 3.50\n");
  auto ok = RunFrugal({"run", "--spec", spec.string(), "--", "/bin/sh", "-c", "true"}, dir.path());
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(OnlyRun(dir.path())["segments"][0]["gpu"], "L4");
  // Option A costs $4.00 for the job: over the $3.50 budget.
  auto a = RunFrugal(
      {"run", "--spec", spec.string(), "--offer", "seed:option-a:lab:on_demand", "--", "true"},
      dir.path());
  EXPECT_EQ(a.exit_code, 3) << a.err;
  EXPECT_NE(a.err.find("$4.00"), std::string::npos) << a.err;
  // A budget flag over the spec's lifts the gate.
  auto more = RunFrugal({"run", "--spec", spec.string(), "--offer", "seed:option-a:lab:on_demand",
                         "--budget", "4.5", "--", "true"},
                        dir.path());
  EXPECT_EQ(more.exit_code, 0) << more.err;
}

TEST(RunSpec, BadSpecIsExitTwoNamingFileLineAndField) {
  TempDir dir;
  const fs::path spec = WriteSeedSpec(dir, "  budgit: 3\n");
  auto r = RunFrugal({"run", "--spec", spec.string(), "--", "true"}, dir.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("job.yaml:24"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("budget"), std::string::npos) << r.err;
  auto overrun = RunFrugal({"run", "--price", "1/h", "--allow-overrun", "--", "true"}, dir.path());
  EXPECT_EQ(overrun.exit_code, 2) << overrun.err;
}

}  // namespace
}  // namespace frugal::run

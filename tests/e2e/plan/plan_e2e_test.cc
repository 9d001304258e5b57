// frugal plan, end to end: the real binary on the shipped examples.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::SourceDir;
using testing::TempDir;

std::string Example(const std::string& name) { return (SourceDir() / "examples" / name).string(); }

nlohmann::json PlanJson(const std::vector<std::string>& args, const TempDir& home) {
  std::vector<std::string> full = {"--json", "plan"};
  full.insert(full.end(), args.begin(), args.end());
  const auto r = RunFrugal(full, home.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(PlanCli, SeedExampleWithThreeHourDeadlineChoosesB) {
  TempDir home;
  const auto doc = PlanJson({Example("seed/job.yaml")}, home);
  ASSERT_EQ(doc["options"].size(), 2u);
  const auto& b = doc["options"][0];
  EXPECT_EQ(b["instance_type"], "option-b");
  EXPECT_EQ(b["cloud"], "seed");
  EXPECT_EQ(b["tier"], "on_demand");
  EXPECT_EQ(b["gpu"], "L4");
  EXPECT_EQ(b["gpu_count"], 1);
  EXPECT_DOUBLE_EQ(b["expected_cost_usd"].get<double>(), 3.08);
  EXPECT_DOUBLE_EQ(b["wall_hours"].get<double>(), 2.2);
  EXPECT_TRUE(b["meets_deadline"].get<bool>());
  EXPECT_TRUE(b["fits"].get<bool>());
  EXPECT_TRUE(b.contains("knobs"));
  EXPECT_TRUE(b.contains("gpu_hours"));
  EXPECT_DOUBLE_EQ(doc["options"][1]["expected_cost_usd"].get<double>(), 4.00);
  EXPECT_TRUE(doc["excluded"].is_array());
  EXPECT_TRUE(doc["advice"].is_array());
  EXPECT_EQ(doc["schema_version"], 1);
}

TEST(PlanCli, SeedExampleWithNinetyMinuteDeadlineChoosesA) {
  TempDir home;
  const auto doc = PlanJson({Example("seed/job.yaml"), "--deadline", "1.5h"}, home);
  EXPECT_EQ(doc["options"][0]["instance_type"], "option-a");
  EXPECT_DOUBLE_EQ(doc["options"][0]["expected_cost_usd"].get<double>(), 4.00);
  EXPECT_FALSE(doc["options"][1]["meets_deadline"].get<bool>());
  const auto human =
      RunFrugal({"plan", Example("seed/job.yaml"), "--deadline", "1.5h"}, home.path());
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("$4.00"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("$3.08"), std::string::npos) << human.out;
}

TEST(PlanCli, SeedExampleWhenBLacksMemoryChoosesA) {
  TempDir home;
  const auto doc = PlanJson({Example("seed/job-too-big-for-b.yaml")}, home);
  ASSERT_EQ(doc["options"].size(), 1u);
  EXPECT_EQ(doc["options"][0]["instance_type"], "option-a");
  bool said = false;
  for (const auto& e : doc["excluded"])
    said = said || e["reason"].get<std::string>().find("L4 x1: does not fit") == 0;
  EXPECT_TRUE(said) << doc["excluded"].dump();
}

TEST(PlanCli, WholeCatalogExampleRanksAndExplains) {
  TempDir home;
  const auto doc = PlanJson({Example("plan/llama-7b-finetune.yaml"), "--top", "5"}, home);
  ASSERT_EQ(doc["options"].size(), 5u);
  double previous = 0;
  for (const auto& o : doc["options"]) {
    EXPECT_TRUE(o["meets_deadline"].get<bool>());
    EXPECT_GE(o["expected_cost_usd"].get<double>(), previous);
    previous = o["expected_cost_usd"].get<double>();
    EXPECT_LE(o["peak_memory_gib_per_gpu"].get<double>(),
              o["peak_memory_gib_per_gpu"].get<double>() + o["headroom_gib"].get<double>());
  }
  EXPECT_GT(doc["evaluated_configurations"].get<double>(), 1000);
  // Spot waits for capacity and is taken back often on large instances: its options rank
  // below the cheapest on-demand ones, so look further down for their details.
  const auto wide = PlanJson({Example("plan/llama-7b-finetune.yaml"), "--top", "40"}, home);
  bool spot_detailed = false;
  for (const auto& o : wide["options"]) {
    if (o["tier"] != "spot") continue;
    const auto& spot = o["spot"];
    spot_detailed = spot["expected_preemptions"].get<double>() > 0 &&
                    spot["time_inflation"].get<double>() > 1 &&
                    spot["checkpoint_interval_hours"].get<double>() > 0 &&
                    spot["cost_inflation"].get<double>() > 1;
  }
  EXPECT_TRUE(spot_detailed) << wide["options"].dump();
  EXPECT_GT(doc["excluded"].size(), 5u);
}

TEST(PlanCli, EveryExampleRuns) {
  TempDir home;
  for (const char* name :
       {"plan/small-gpu-advice.yaml", "plan/llama-7b-finetune.yaml", "seed/job.yaml"}) {
    const auto r = RunFrugal({"plan", Example(name), "--top", "3"}, home.path());
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_NE(r.out.find("OFFER"), std::string::npos) << name;
  }
}

TEST(PlanCli, NonUtf8JobNameIsBadInputWithTheJsonErrorDocument) {
  TempDir home;
  // A Latin-1 'é' in the job's name, and a stray byte in a comment of another spec.
  testing::WriteTestFile(home / "latin1.yaml",
                         "apiVersion: frugal/v1\nname: caf\xE9-ft\nmodel: {params: 1b}\n"
                         "work: {tokens: 1b}\n");
  auto r = RunFrugal({"--json", "plan", (home / "latin1.yaml").string()}, home.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("latin1.yaml:2:10: byte 0xE9 is not UTF-8"), std::string::npos) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["error"]["kind"], "bad_input") << r.out;
  EXPECT_EQ(doc["error"]["exit_code"], 2) << r.out;
  testing::WriteTestFile(home / "comment.yaml",
                         "# r\xFF\xFEsum\xE9\napiVersion: frugal/v1\nmodel: {params: 1b}\n"
                         "work: {tokens: 1b}\n");
  r = RunFrugal({"--json", "plan", (home / "comment.yaml").string()}, home.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("comment.yaml:1:4:"), std::string::npos) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
}

TEST(PlanCli, HugeMeasuredOfferIsRefusedWithAShortMessage) {
  TempDir home;
  testing::WriteTestFile(home / "big.yaml",
                         "apiVersion: frugal/v1\nmodel: {params: 1b}\n"
                         "work: {tokens: 1b}\nmeasured:\n  - offer: " +
                             std::string(20000, 'q') + "\n    runtime: 1h\n");
  auto r = RunFrugal({"plan", (home / "big.yaml").string()}, home.path());
  EXPECT_EQ(r.exit_code, 2) << r.err.substr(0, 500);
  EXPECT_NE(r.err.find("big.yaml:5:"), std::string::npos) << r.err.substr(0, 500);
  EXPECT_NE(r.err.find("(20000 bytes)"), std::string::npos) << r.err.substr(0, 500);
  EXPECT_LT(r.err.size(), 1000u);
}

TEST(PlanCli, BadSpecExitsTwoWithFileLineAndField) {
  TempDir home;
  testing::WriteTestFile(home / "bad.yaml",
                         "apiVersion: frugal/v1\nmodel: {params: 1b}\nwork: {tokens: "
                         "1b}\nconstraints:\n  deadlne: 3h\n");
  auto r = RunFrugal({"plan", (home / "bad.yaml").string()}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.yaml:5:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("did you mean 'deadline'"), std::string::npos) << r.err;
  testing::WriteTestFile(home / "neg.yaml",
                         "apiVersion: frugal/v1\nmodel: {params: 1b}\ntraining:\n  micro_batch: "
                         "-4\nwork: {tokens: 1b}\n");
  r = RunFrugal({"--json", "plan", (home / "neg.yaml").string()}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(r.out)["error"]["kind"], "bad_input") << r.out;
  EXPECT_NE(r.err.find("neg.yaml:4:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("micro_batch"), std::string::npos) << r.err;
  r = RunFrugal({"plan", Example("seed/job.yaml"), "--deadline", "-3h"}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  r = RunFrugal({"plan", (home / "missing.yaml").string()}, home.path());
  EXPECT_EQ(r.exit_code, 2);
}

/// The seed example copied into `home` with `from` replaced by `to` in job.yaml.
std::string SeedVariant(const TempDir& home, const std::string& from, const std::string& to) {
  std::filesystem::copy_file(SourceDir() / "examples" / "seed" / "offers.yaml",
                             home / "offers.yaml");
  std::ifstream in(SourceDir() / "examples" / "seed" / "job.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  testing::WriteTestFile(home / "job.yaml", text);
  return (home / "job.yaml").string();
}

TEST(PlanCli, MeasuredProfileForAnOfferNoCatalogHasIsAnError) {
  TempDir home;
  // A typo here used to leave the profile unused: the plan quietly fell back to the model.
  const std::string job = SeedVariant(home, "offer: option-a", "offer: optoin-a");
  auto r = RunFrugal({"--json", "plan", job}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(nlohmann::json::parse(r.out)["error"]["exit_code"], 2) << r.out;
  EXPECT_NE(r.err.find("job.yaml:20:5: field 'offer': no offer 'optoin-a' in the catalog"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("did you mean 'option-a'"), std::string::npos) << r.err;
}

TEST(PlanCli, MissingOffersFileNamesTheSpecLine) {
  TempDir home;
  const std::string job = SeedVariant(home, "catalog: offers.yaml", "catalog: ofers.yaml");
  auto r = RunFrugal({"plan", job}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("job.yaml:8:10: field 'catalog': no offers file"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("ofers.yaml"), std::string::npos) << r.err;
}

TEST(PlanCli, AbsurdWorkIsExcludedNeverPricedNegative) {
  TempDir home;
  std::ifstream in(SourceDir() / "examples" / "plan" / "llama-7b-finetune.yaml");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string from = "tokens: 2b";
  ASSERT_NE(text.find(from), std::string::npos);
  text.replace(text.find(from), from.size(), "tokens: 1e30");
  testing::WriteTestFile(home / "job.yaml", text);
  // It printed a T4 at "-$9,202,132,660,692.13" ranked first, under the $2,000 budget.
  const nlohmann::json doc = PlanJson({(home / "job.yaml").string()}, home);
  EXPECT_TRUE(doc["options"].empty()) << doc["options"].dump().substr(0, 400);
  bool excluded = false;
  for (const auto& e : doc["excluded"]) {
    excluded = excluded || e["reason"] == "runs over a million hours (more than a century)";
  }
  EXPECT_TRUE(excluded) << doc["excluded"].dump().substr(0, 400);
}

TEST(PlanCli, ImpossibleConstraintsSayWhatWouldWork) {
  TempDir home;
  const auto doc = PlanJson({Example("seed/job.yaml"), "--budget", "1"}, home);
  EXPECT_TRUE(doc["options"].empty());
  bool said = false;
  for (const auto& a : doc["advice"])
    said = said || a.get<std::string>().find("budget") != std::string::npos;
  EXPECT_TRUE(said) << doc["advice"].dump();
}

// Seed example 1 as itself: XGBoost on two CPU instances, measured runtimes, host RAM.
TEST(PlanCli, SeedExampleOneXgboostOnCpuInstances) {
  TempDir home;
  // Deadline 3 h: B's 2.2 h meets it, $1.40 x 2.2 = $3.08 beats $4.00 x 1 = $4.00.
  auto doc = PlanJson({Example("seed-xgboost/job.yaml")}, home);
  ASSERT_EQ(doc["options"].size(), 2u) << doc.dump();
  EXPECT_EQ(doc["options"][0]["instance_type"], "option-b-general-purpose");
  EXPECT_DOUBLE_EQ(doc["options"][0]["expected_cost_usd"].get<double>(), 3.08);
  EXPECT_TRUE(doc["options"][0]["gpu"].is_null());
  EXPECT_EQ(doc["options"][1]["instance_type"], "option-a-memory-optimized");
  EXPECT_DOUBLE_EQ(doc["options"][1]["expected_cost_usd"].get<double>(), 4.00);
  // Deadline 2 h: B would finish at 2.2 h, so A wins.
  doc = PlanJson({Example("seed-xgboost/job.yaml"), "--deadline", "2h"}, home);
  EXPECT_EQ(doc["options"][0]["instance_type"], "option-a-memory-optimized");
  EXPECT_DOUBLE_EQ(doc["options"][0]["expected_cost_usd"].get<double>(), 4.00);
  EXPECT_FALSE(doc["options"][1]["meets_deadline"].get<bool>());
  const auto human = RunFrugal({"plan", Example("seed-xgboost/job.yaml")}, home.path());
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("$3.08"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("$4.00"), std::string::npos) << human.out;
}

// "Memory is sufficient" can fail: 100 GiB of data on B's 64 GiB is refused with the figures.
TEST(PlanCli, SeedExampleOneRefusesAnInstanceWithoutTheRam) {
  TempDir home;
  const auto doc = PlanJson({Example("seed-xgboost/job-too-big-for-b.yaml")}, home);
  ASSERT_EQ(doc["options"].size(), 1u) << doc.dump();
  EXPECT_EQ(doc["options"][0]["instance_type"], "option-a-memory-optimized");
  bool said = false;
  for (const auto& e : doc["excluded"]) {
    said = said || e["reason"].get<std::string>() ==
                       "option-b-general-purpose: does not fit, needs 100 GiB of host RAM, the "
                       "instance has 64 GiB";
  }
  EXPECT_TRUE(said) << doc["excluded"].dump();
}

}  // namespace
}  // namespace frugal

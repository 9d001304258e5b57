// frugal plan on inference specs and frugal tco, end to end: the real binary on the shipped
// examples (examples/serving/), with the seed's prices.

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <nlohmann/json.hpp>
#include <set>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::SourceDir;
using testing::TempDir;

std::string Example(const std::string& name) {
  return (SourceDir() / "examples" / "serving" / name).string();
}

nlohmann::json Json(const std::vector<std::string>& args, const TempDir& home) {
  std::vector<std::string> full = {"--json"};
  full.insert(full.end(), args.begin(), args.end());
  const auto r = RunFrugal(full, home.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

const nlohmann::json* FindTier(const nlohmann::json& options, const std::string& tier) {
  for (const auto& o : options) {
    if (o["tier"] == tier) return &o;
  }
  return nullptr;
}

TEST(ServingCli, SeedFourT4CostFourteenSixtyAMonth) {
  TempDir home;
  const auto doc = Json({"plan", Example("t4-classifier.yaml")}, home);
  ASSERT_FALSE(doc["options"].empty());
  const auto& best = doc["options"][0];
  EXPECT_EQ(best["gpu"], "T4");
  EXPECT_EQ(best["gpus_per_replica"], 1);
  EXPECT_EQ(best["replicas"], 4);
  EXPECT_EQ(best["tier"], "on_demand");
  EXPECT_DOUBLE_EQ(best["monthly_usd"].get<double>(), 1460.0);
  EXPECT_DOUBLE_EQ(best["lifetime_usd"].get<double>(), 17520.0);
  EXPECT_DOUBLE_EQ(best["throughput_per_replica"].get<double>(), 120.0);
  EXPECT_TRUE(best["meets_latency"].get<bool>());
  EXPECT_DOUBLE_EQ(best["paid_hours_per_month"].get<double>(), 730.0);
  EXPECT_TRUE(best.contains("usd_per_million_requests"));
  EXPECT_TRUE(best.contains("usd_per_million_items"));
  EXPECT_DOUBLE_EQ(doc["hours_per_month"].get<double>(), 730.0);
  // The others lost, each with its reason: the A100 on cost, the CPUs on latency.
  for (size_t i = 1; i < doc["options"].size(); ++i) {
    EXPECT_TRUE(doc["options"][i]["lost_because"].is_string()) << doc["options"][i];
    if (doc["options"][i]["gpu"] == "cpu") {
      EXPECT_FALSE(doc["options"][i]["meets_latency"].get<bool>());
    }
  }
  EXPECT_EQ(doc["schema_version"], 1);
  const auto human = RunFrugal({"plan", Example("t4-classifier.yaml")}, home.path());
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("$1,460.00"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("$17,520.00"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("Why the others lost"), std::string::npos) << human.out;
}

TEST(ServingCli, SeedA100TiersOnDemandCommittedAndSpot) {
  TempDir home;
  const auto doc = Json({"plan", Example("a100-tiers.yaml")}, home);
  const auto* od = FindTier(doc["options"], "on_demand");
  const auto* committed = FindTier(doc["options"], "reserved_1y");
  const auto* spot = FindTier(doc["options"], "spot");
  ASSERT_TRUE(od && committed && spot) << doc["options"];
  EXPECT_DOUBLE_EQ((*od)["price_per_hour"].get<double>(), 32.0);
  EXPECT_DOUBLE_EQ((*od)["monthly_usd"].get<double>(), 23360.0);
  EXPECT_DOUBLE_EQ((*committed)["price_per_hour"].get<double>(), 19.0);
  EXPECT_DOUBLE_EQ((*committed)["monthly_usd"].get<double>(), 13870.0);
  EXPECT_DOUBLE_EQ((*committed)["break_even_utilization"].get<double>(), 19.0 / 32);
  EXPECT_DOUBLE_EQ((*spot)["price_per_hour"].get<double>(), 10.0);
  EXPECT_DOUBLE_EQ((*spot)["monthly_usd"].get<double>(), 7300.0);
  EXPECT_EQ(doc["options"][0]["tier"], "spot");  // the spec tolerates interruption
}

TEST(ServingCli, SeedTwentyFourHourA100RunAcrossTheThreeTiers) {
  TempDir home;
  const auto doc = Json({"plan", Example("a100-24h-run.yaml")}, home);
  ASSERT_EQ(doc["options"].size(), 4u) << doc["options"];
  const double expected[] = {240, 384, 456, 768};  // $10, $16 spot; $19 committed; $32
  const char* tiers[] = {"spot", "spot", "reserved_1y", "on_demand"};
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_DOUBLE_EQ(doc["options"][i]["expected_cost_usd"].get<double>(), expected[i]);
    EXPECT_EQ(doc["options"][i]["tier"], tiers[i]);
    EXPECT_DOUBLE_EQ(doc["options"][i]["wall_hours"].get<double>(), 24.0);
  }
}

TEST(ServingCli, SmallClassifierGoesToCpu) {
  TempDir home;
  const auto doc = Json({"plan", Example("cpu-classifier.yaml")}, home);
  const auto& best = doc["options"][0];
  EXPECT_EQ(best["gpu"], "cpu");
  EXPECT_EQ(best["gpus_per_replica"], 0);
  EXPECT_EQ(best["instance_type"], "seed-cpu-2");
  EXPECT_TRUE(best["meets_latency"].get<bool>());
  EXPECT_DOUBLE_EQ(best["monthly_usd"].get<double>(), 73.0);
  bool t4_lost = false;
  for (const auto& o : doc["options"]) t4_lost |= o["gpu"] == "T4" && o["lost_because"].is_string();
  EXPECT_TRUE(t4_lost);
}

TEST(ServingCli, QuantizedSevenBillionServesFromAT4OnTheShippedCatalog) {
  TempDir home;
  const auto doc = Json({"plan", Example("llama-7b-int4.yaml")}, home);
  const auto& best = doc["options"][0];
  EXPECT_EQ(best["gpu"], "T4");
  EXPECT_TRUE(best["meets_latency"].get<bool>());
  const auto& mem = best["memory_gib_per_device"];
  EXPECT_LE(mem["total"].get<double>(), mem["capacity"].get<double>());
  EXPECT_NEAR(mem["weights"].get<double>(), 3.69, 0.01);
  EXPECT_GT(best["usd_per_million_output_tokens"].get<double>(), 0);
  // The daily shape prices autoscaling and a committed base with an on-demand peak.
  bool autoscaled = false;
  for (const auto& o : doc["options"]) autoscaled |= o["autoscaled"].get<bool>();
  EXPECT_TRUE(autoscaled);
}

TEST(ServingCli, LifetimeBillWithTrainingRetrainingAndAChart) {
  TempDir home;
  const auto doc = Json({"tco", Example("lifetime.yaml")}, home);
  EXPECT_DOUBLE_EQ(doc["training_usd"].get<double>(), 3.08);  // examples/seed/job.yaml, planned
  EXPECT_EQ(doc["retrains"], 3);
  EXPECT_DOUBLE_EQ(doc["training_total_usd"].get<double>(), 12.32);
  EXPECT_DOUBLE_EQ(doc["serving_monthly_usd"].get<double>(), 1460.0);
  EXPECT_DOUBLE_EQ(doc["inference_total_usd"].get<double>(), 17520.0);
  EXPECT_DOUBLE_EQ(doc["lifetime_usd"].get<double>(), 17532.32);
  EXPECT_NEAR(doc["inference_to_training"].get<double>(), 17520 / 12.32, 1e-6);
  EXPECT_EQ(doc["months"].size(), 13u);
  EXPECT_EQ(doc["serving"]["gpu"], "T4");
  EXPECT_FALSE(doc["levers"].empty());
  const auto report = home / "report.html";
  const auto human =
      RunFrugal({"tco", Example("lifetime.yaml"), "-o", report.string()}, home.path());
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("$17,520.00"), std::string::npos) << human.out;
  const std::string html = testing::ReadTestFile(report);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("$17,532.32"), std::string::npos);
}

TEST(ServingCli, SmallClassifierGoesToACpuInstanceOnTheShippedCatalog) {
  TempDir home;
  const auto spec = home / "classifier.yaml";
  testing::WriteTestFile(spec,
                         "apiVersion: frugal/v1\nkind: Inference\n"
                         "model: {type: encoder, layers: 6, hidden: 384, heads: 12, ffn: 1536, "
                         "mlp: gelu, vocab: 30522}\n"
                         "workload: {rps: 10, peak_rps: 20, tokens_per_item: 64}\n"
                         "latency: {request_p95: 50ms}\n"
                         "constraints: {clouds: [aws], regions: [us-east-1]}\n");
  const auto doc = Json({"plan", spec.string()}, home);
  ASSERT_FALSE(doc["options"].empty());
  EXPECT_EQ(doc["options"][0]["gpu"], "cpu");
  EXPECT_TRUE(doc["options"][0]["meets_latency"].get<bool>());
  EXPECT_EQ(doc["options"][0]["cloud"], "aws");
}

std::string RunId(const std::vector<std::string>& tags, const TempDir& home) {
  std::vector<std::string> args = {"--json", "run", "--gpu",  "T4",
                                   "--gpus", "1",   "--tier", "on_demand"};
  for (const std::string& t : tags) {
    args.push_back("--tag");
    args.push_back(t);
  }
  args.insert(args.end(), {"--", "/bin/sleep", "1"});
  const auto r = RunFrugal(args, home.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out)["run_id"].get<std::string>();
}

TEST(ServingCli, LedgerReportsServingApartAndPricesTrainingFromARealRun) {
  TempDir home;
  const std::string training = RunId({"team=ml"}, home);
  RunId({"team=ml", "workload=serving"}, home);
  const auto report = Json({"report", "--by", "workload"}, home);
  ASSERT_EQ(report["rows"].size(), 2u) << report;
  std::set<std::string> workloads;
  for (const auto& row : report["rows"]) workloads.insert(row["workload"].get<std::string>());
  EXPECT_EQ(workloads, (std::set<std::string>{"serving", "training"}));
  const auto bill = Json({"tco", Example("t4-classifier.yaml"), "--run", training}, home);
  EXPECT_GT(bill["training_usd"].get<double>(), 0);
  EXPECT_LT(bill["training_usd"].get<double>(), 0.01);  // a second of a $0.526/h T4
  EXPECT_NE(bill["training_source"].get<std::string>().find(training), std::string::npos);
  EXPECT_DOUBLE_EQ(bill["inference_total_usd"].get<double>(), 17520.0);
  const auto missing =
      RunFrugal({"tco", Example("t4-classifier.yaml"), "--run", "r-nope"}, home.path());
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
  EXPECT_NE(missing.err.find("no run 'r-nope'"), std::string::npos) << missing.err;
}

TEST(ServingCli, BadInferenceSpecIsExitTwoWithFileLineAndField) {
  TempDir home;
  const auto spec = home / "bad.yaml";
  testing::WriteTestFile(
      spec,
      "apiVersion: frugal/v1\nkind: Inference\nmodel:\n  params: 7b\n"
      "  weights: int3\nworkload: {rps: 1, input_tokens: 1, output_tokens: 1}\n");
  for (const char* command : {"plan", "tco"}) {
    const auto r = RunFrugal({command, spec.string()}, home.path());
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("bad.yaml:5:12: field 'weights'"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(ServingCli, AnEmptyRunOrStudyFlagIsExitTwoNotTheSpecsTraining) {
  // `tco --run ""` exited 0, pricing the spec's own training as if no flag were given.
  TempDir home;
  for (const char* flag : {"--run", "--study"}) {
    const auto r = RunFrugal({"tco", Example("lifetime.yaml"), flag, ""}, home.path());
    EXPECT_EQ(r.exit_code, 2) << flag << ": " << r.err;
    EXPECT_NE(r.err.find(std::string("option ") + flag + ": is empty"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(ServingCli, ANamedPipeAsTheSpecIsExitTwoNotAWaitForever) {
  // `mkfifo f; frugal plan f` waited for a writer for ever.
  TempDir home;
  const auto fifo = home / "serve.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const char* command : {"plan", "tco"}) {
    const auto r = RunFrugal({command, fifo.string()}, home.path());
    EXPECT_EQ(r.exit_code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find(fifo.string() + ": not a regular file"), std::string::npos) << r.err;
  }
}

TEST(ServingCli, AJobsPlanFlagsOnAnInferenceSpecAreRefusedNotIgnored) {
  TempDir home;
  const std::vector<std::vector<std::string>> flags = {
      {"--budget", "2000"}, {"--budget", "-5"}, {"--deadline", "1h"}, {"--objective", "time"}};
  for (const auto& f : flags) {
    std::vector<std::string> args = {"plan", Example("t4-classifier.yaml")};
    args.insert(args.end(), f.begin(), f.end());
    const auto r = RunFrugal(args, home.path());
    EXPECT_EQ(r.exit_code, 2) << f[0] << " " << f[1] << ": " << r.out;
    EXPECT_NE(r.err.find(f[0] + ": an inference spec"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  EXPECT_EQ(RunFrugal({"plan", Example("t4-classifier.yaml"), "--top", "2"}, home.path()).exit_code,
            0);
}

}  // namespace
}  // namespace frugal

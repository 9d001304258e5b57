// frugal estimate, end to end: the real binary, the shipped catalog.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;

nlohmann::json RunJson(const std::vector<std::string>& args, const TempDir& home) {
  std::vector<std::string> full = {"--json", "estimate"};
  full.insert(full.end(), args.begin(), args.end());
  const auto r = RunFrugal(full, home.path());
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(EstimateCli, JsonHasMemoryBreakdownComputeTimeAndCostPerTier) {
  TempDir home;
  const auto doc =
      RunJson({"--layers", "32",    "--hidden",       "4096", "--heads",       "32",
               "--ffn",    "11008", "--seq",          "4096", "--gpu",         "A100-80GB",
               "--gpus",   "8",     "--zero",         "3",    "--recompute",   "selective",
               "--tokens", "2b",    "--global-batch", "256",  "--micro-batch", "2"},
              home);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_TRUE(doc["fits"].get<bool>());
  EXPECT_DOUBLE_EQ(doc["model"]["params"].get<double>(), 6'738'415'616.0);
  double sum = 0;
  for (const auto& [key, value] : doc["memory"].items()) sum += value.get<double>();
  EXPECT_NEAR(sum, doc["peak_memory_gib_per_gpu"].get<double>(), 1e-9);
  EXPECT_EQ(doc["training"]["accumulation_steps"], 16);
  EXPECT_GT(doc["total_flops"].get<double>(), 6 * 6.6e9 * 2e9);
  const double wall = doc["wall_hours"].get<double>();
  EXPECT_DOUBLE_EQ(doc["gpu_hours"].get<double>(), 8 * wall);
  EXPECT_EQ(doc["mfu_source"], "prior");
  ASSERT_FALSE(doc["costs"].empty());
  for (const auto& c : doc["costs"]) {
    const double expected = c["price_per_hour"].get<double>() * c["instances"].get<double>() * wall;
    EXPECT_NEAR(c["cost_usd"].get<double>(), expected, 1e-6) << c.dump();
  }
}

TEST(EstimateCli, TierAndOfferSelectThePrice) {
  TempDir home;
  auto spot =
      RunJson({"--params", "1b", "--gpu", "L4", "--tokens", "100m", "--tier", "spot"}, home);
  ASSERT_EQ(spot["costs"].size(), 1u);
  EXPECT_EQ(spot["costs"][0]["tier"], "spot");
  testing::WriteTestFile(
      home / "offers.yaml",
      "apiVersion: frugal/v1\noffers:\n  - {name: lab-l4, gpu: L4, price_per_hour: 2.00}\n");
  const auto r =
      RunFrugal({"--json", "--catalog", (home / "offers.yaml").string(), "estimate", "--params",
                 "1b", "--gpu", "L4", "--tokens", "100m", "--offer", "lab-l4"},
                home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["costs"].size(), 1u);
  EXPECT_NEAR(doc["costs"][0]["cost_usd"].get<double>(), 2.0 * doc["wall_hours"].get<double>(),
              1e-6);
  const auto missing =
      RunFrugal({"estimate", "--params", "1b", "--gpu", "L4", "--tokens", "1m", "--offer", "nope"},
                home.path());
  EXPECT_EQ(missing.exit_code, 2);
}

// Eight 1-GPU VMs are not one NVLink node, and `frugal plan` does not cluster them either.
TEST(EstimateCli, SmallInstanceForMoreGpusThanItHasIsRefused) {
  TempDir home;
  const auto r = RunFrugal({"--json", "estimate", "--params", "1b", "--gpu", "A100-80GB", "--gpus",
                            "8", "--tokens", "1b", "--offer", "a2-ultragpu-1g"},
                           home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(nlohmann::json::parse(r.out)["error"]["message"].get<std::string>().find("--offer"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("--offer: a2-ultragpu-1g has 1 GPU(s) per instance; 8 GPUs would be 8 "
                       "instances"),
            std::string::npos)
      << r.err;
  // The 8-GPU instance holds them; the 1-GPU one holds one.
  EXPECT_EQ(RunJson({"--params", "1b", "--gpu", "A100-80GB", "--gpus", "8", "--tokens", "1b",
                     "--offer", "a2-ultragpu-8g"},
                    home)["costs"][0]["instances"],
            1);
  EXPECT_EQ(RunJson({"--params", "1b", "--gpu", "A100-80GB", "--gpus", "1", "--tokens", "1b",
                     "--offer", "a2-ultragpu-1g"},
                    home)["costs"][0]["instances"],
            1);
}

TEST(EstimateCli, FullSevenBOnOneL4DoesNotFitButQloraDoes) {
  TempDir home;
  auto full = RunJson({"--params", "7b", "--gpu", "L4", "--tokens", "10m"}, home);
  EXPECT_FALSE(full["fits"].get<bool>());
  EXPECT_LT(full["headroom_gib"].get<double>(), 0);
  auto qlora = RunJson({"--params", "7b", "--gpu", "L4", "--tokens", "10m", "--method", "qlora",
                        "--recompute", "full"},
                       home);
  EXPECT_TRUE(qlora["fits"].get<bool>());
}

TEST(EstimateCli, MeasuredThroughputOverridesThePrior) {
  TempDir home;
  auto doc = RunJson({"--params", "1b", "--gpu", "H100-80GB-SXM", "--tokens", "360m",
                      "--tokens-per-second", "50000"},
                     home);
  EXPECT_DOUBLE_EQ(doc["wall_hours"].get<double>(), 2.0);
  EXPECT_EQ(doc["mfu_source"], "measured_throughput");
}

TEST(EstimateCli, HugeJobOnOneT4IsValidAndSaysHowLong) {
  TempDir home;
  auto doc =
      RunJson({"--params", "125m", "--gpu", "T4", "--dtype", "fp16", "--tokens", "10t"}, home);
  EXPECT_GT(doc["wall_hours"].get<double>(), 1e5);
  const auto human = RunFrugal(
      {"estimate", "--params", "125m", "--gpu", "T4", "--dtype", "fp16", "--tokens", "10t"},
      home.path());
  EXPECT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("GPU-hours"), std::string::npos);
}

TEST(EstimateCli, AbsurdWorkGivesAHugeCostNeverANegativeOne) {
  TempDir home;
  // 1e30 tokens: the cost would overflow 64-bit micro-dollars (it printed "-$-9223372036854").
  auto doc = RunJson(
      {"--params", "7b", "--gpu", "A100-80GB", "--gpus", "8", "--zero", "3", "--tokens", "1e30"},
      home);
  ASSERT_FALSE(doc["costs"].empty());
  for (const auto& c : doc["costs"]) EXPECT_GT(c["cost_usd"].get<double>(), 1e12) << c.dump();
}

// GPT-3 175B as Narayanan et al. ran it: TP 8 x PP 16 x DP 8 on 1024 A100s, batch 1536,
// full recompute (the default at this size), Selene's 8 x 200 Gbit/s InfiniBand.
TEST(EstimateCli, MegatronStyleRunHasItsShapeMemoryAndStepInTheJson) {
  TempDir home;
  const auto doc =
      RunJson({"--layers",       "96",    "--hidden", "12288",     "--heads",        "96",
               "--vocab",        "51200", "--mlp",    "gelu",      "--seq",          "2048",
               "--dtype",        "fp16",  "--gpu",    "A100-80GB", "--gpus",         "1024",
               "--tp",           "8",     "--pp",     "16",        "--global-batch", "1536",
               "--network-gbps", "1600",  "--tokens", "300b"},
              home);
  for (const char* key : {"gpu_hours", "peak_memory_gib_per_gpu", "wall_hours", "fits", "mfu"})
    EXPECT_TRUE(doc.contains(key)) << key;
  EXPECT_EQ(doc["training"]["recompute"], "full");
  EXPECT_EQ(doc["training"]["tensor_parallel"], 8);
  EXPECT_EQ(doc["training"]["pipeline_parallel"], 16);
  EXPECT_EQ(doc["training"]["data_parallel"], 8);
  EXPECT_EQ(doc["training"]["accumulation_steps"], 192);
  EXPECT_TRUE(doc["fits"].get<bool>());
  EXPECT_LT(doc["peak_memory_gib_per_gpu"].get<double>(), 80);
  EXPECT_DOUBLE_EQ(doc["network_gbps"].get<double>(), 1600);
  EXPECT_EQ(doc["network_source"], "flag");
  const auto& step = doc["step_seconds"];
  EXPECT_GT(step["pipeline_bubble"].get<double>(), 0);
  EXPECT_GT(step["tensor_parallel"].get<double>(), 0);
  EXPECT_NEAR(step["total"].get<double>(),
              step["compute"].get<double>() + step["pipeline_bubble"].get<double>() +
                  step["tensor_parallel"].get<double>() +
                  step["data_parallel_exposed"].get<double>(),
              1e-9);
  // Without model parallelism 175B does not fit an 80 GB GPU at all.
  const auto dp_only = RunJson({"--layers", "96", "--hidden", "12288", "--heads", "96", "--mlp",
                                "gelu", "--gpu", "A100-80GB", "--gpus", "1024", "--tokens", "300b"},
                               home);
  EXPECT_FALSE(dp_only["fits"].get<bool>());
}

// The network between nodes comes from the flag, else the offer's row of the network table,
// else the best figure the table lists for the GPU.
TEST(EstimateCli, NetworkBetweenNodesComesFromTheOfferOrTheTable) {
  TempDir home;
  const std::vector<std::string> job = {"--params", "7b",     "--gpu", "H100-80GB-SXM", "--gpus",
                                        "16",       "--zero", "3",     "--tokens",      "1b"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = job;
    args.insert(args.end(), extra.begin(), extra.end());
    return RunJson(args, home);
  };
  const auto offer = with({"--offer", "a3-highgpu-8g"});
  EXPECT_EQ(offer["network_source"], "offer");
  EXPECT_DOUBLE_EQ(offer["network_gbps"].get<double>(), 1000);
  const auto best = with({});
  EXPECT_EQ(best["network_source"], "best_for_gpu");
  EXPECT_DOUBLE_EQ(best["network_gbps"].get<double>(), 3200);
  const auto slow = with({"--network-gbps", "100"});
  EXPECT_EQ(slow["network_source"], "flag");
  // ZeRO-3 over a slower network leaves more traffic exposed: more GPU-hours.
  EXPECT_GT(slow["step_seconds"]["data_parallel"].get<double>(),
            best["step_seconds"]["data_parallel"].get<double>());
  EXPECT_GE(slow["gpu_hours"].get<double>(), best["gpu_hours"].get<double>());
}

TEST(EstimateCli, MixtureOfExpertsWithExpertParallelism) {
  TempDir home;
  const auto doc = RunJson(
      {"--layers", "32",    "--hidden",  "4096", "--heads", "32", "--kv-heads", "8",
       "--ffn",    "14336", "--experts", "8",    "--top-k", "2",  "--gpu",      "H100-80GB-SXM",
       "--gpus",   "8",     "--ep",      "8",    "--zero",  "3",  "--tokens",   "1b"},
      home);
  EXPECT_DOUBLE_EQ(doc["model"]["params"].get<double>(), 46'702'792'704.0);
  EXPECT_EQ(doc["model"]["experts"], 8);
  EXPECT_EQ(doc["model"]["experts_per_token"], 2);
  EXPECT_EQ(doc["training"]["expert_parallel"], 8);
  EXPECT_GT(doc["step_seconds"]["expert_parallel"].get<double>(), 0);
  const auto bad =
      RunFrugal({"estimate", "--layers", "32", "--hidden", "4096", "--experts", "8", "--gpu",
                 "H100-80GB-SXM", "--gpus", "8", "--ep", "3", "--tokens", "1b"},
                home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--expert-parallel 3 does not divide"), std::string::npos) << bad.err;
}

TEST(EstimateCli, MemoryKnobsChangeThePeak) {
  TempDir home;
  const std::vector<std::string> base = {"--params", "8b",    "--vocab",       "128256",   "--seq",
                                         "2048",     "--gpu", "H100-80GB-SXM", "--tokens", "1b"};
  const auto peak = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return RunJson(args, home)["peak_memory_gib_per_gpu"].get<double>();
  };
  const double plain = peak({});
  EXPECT_LT(peak({"--loss", "chunked"}), plain);
  EXPECT_GT(peak({"--attention", "eager"}), plain);
  EXPECT_LT(peak({"--optimizer", "paged_adam8bit", "--optimizer-in-backward"}), plain);
  EXPECT_LT(peak({"--offload", "optimizer"}), plain);
  EXPECT_LT(peak({"--method", "inference"}), 20);  // 16 GB of bf16 weights and a little more
}

// The reported peak in the basis asked for; whether it fits is judged on the device total.
TEST(EstimateCli, MemoryBasisSetsWhatThePeakCountsAndContextParallelSplitsTheSequence) {
  TempDir home;
  const std::vector<std::string> base = {"--params", "7b", "--gpu", "A100-80GB", "--tokens", "1b"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = base;
    args.insert(args.end(), extra.begin(), extra.end());
    return RunJson(args, home);
  };
  const auto smi = with({});
  const auto allocated = with({"--memory-basis", "allocated"});
  const auto reserved = with({"--memory-basis", "reserved"});
  EXPECT_EQ(smi["memory_basis"], "nvidia-smi");
  EXPECT_EQ(allocated["memory_basis"], "allocated");
  const double device = smi["device_memory_gib_per_gpu"].get<double>();
  EXPECT_DOUBLE_EQ(smi["peak_memory_gib_per_gpu"].get<double>(), device);
  EXPECT_DOUBLE_EQ(allocated["device_memory_gib_per_gpu"].get<double>(), device);
  const auto& mem = smi["memory"];
  EXPECT_NEAR(allocated["peak_memory_gib_per_gpu"].get<double>(),
              device - mem["overhead_gib"].get<double>(), 1e-9);
  EXPECT_NEAR(reserved["peak_memory_gib_per_gpu"].get<double>(),
              device - smi["overhead_parts"]["context_gib"].get<double>(), 1e-9);
  EXPECT_EQ(allocated["fits"], smi["fits"]);
  // Context parallel 4 over 8 GPUs at a 32k context: two replicas, a quarter of the activations.
  const auto one = with({"--gpus", "8", "--seq", "32768", "--recompute", "full"});
  const auto cp = with({"--gpus", "8", "--seq", "32768", "--recompute", "full", "--cp", "4"});
  EXPECT_EQ(cp["training"]["context_parallel"], 4);
  EXPECT_EQ(cp["training"]["data_parallel"], 2);
  EXPECT_LT(cp["memory"]["activations_gib"].get<double>(),
            0.26 * one["memory"]["activations_gib"].get<double>());
  EXPECT_GT(cp["step_seconds"]["context_parallel"].get<double>(), 0);
}

TEST(EstimateCli, BadInputExitsTwoNamingTheFlag) {
  TempDir home;
  struct Case {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Case> cases = {
      {{"--params", "7b", "--gpu", "A100-80GB", "--tokens", "1b", "--micro-batch", "-2"},
       "--micro-batch must be at least 1"},
      {{"--params", "7b", "--gpu", "L5", "--tokens", "1b"}, "did you mean 'L4'"},
      {{"--params", "7x", "--gpu", "L4", "--tokens", "1b"}, "--params"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--dtype", "bf17"}, "--dtype"},
      // Without any work the answer is memory only (CatalogCli tests it); two forms are wrong.
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--steps", "10"}, "only one of"},
      {{"--params", "7b", "--gpu", "T4", "--tokens", "1b"}, "no bf16"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--zero", "5"}, "--zero must be 0-3"},
      {{"--params", "1e30", "--gpu", "L4", "--tokens", "1b"}, "100 trillion"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--epochs", "-1"}, "epochs"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--attention", "fast"}, "--attention"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--loss", "tiny"}, "--loss"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--offload", "disk"}, "--offload"},
      {{"--params", "7b", "--gpu", "A100-80GB", "--gpus", "8", "--tp", "3", "--tokens", "1b"},
       "--gpus 8 is not a multiple of --tensor-parallel 3"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--network-gbps", "0"},
       "--network-gbps"},
      {{"--params", "7b", "--gpu", "L4", "--tokens", "1b", "--memory-basis", "peak"},
       "--memory-basis"},
      {{"--params", "7b", "--gpu", "A100-80GB", "--gpus", "8", "--cp", "3", "--tokens", "1b"},
       "× --context-parallel 3"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"estimate"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    const auto r = RunFrugal(args, home.path());
    EXPECT_EQ(r.exit_code, 2) << c.message << ": " << r.out;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
  }
}

// Measure once, predict everywhere: the interface outside programs call.
TEST(EstimateCli, MeasuredThroughputIsCarriedToAnotherGpu) {
  TempDir home;
  const auto t4 = RunJson({"--measured", "A100-80GB=1450", "--gpu", "T4", "--dtype", "fp16",
                           "--family", "cnn", "--params", "25m"},
                          home);
  const double one = t4["throughput_per_second"].get<double>();
  EXPECT_GT(one, 0);
  EXPECT_LT(one, 1450);  // a T4 is slower than an A100 at anything
  EXPECT_NE(t4["basis"].get<std::string>().find("A100-80GB"), std::string::npos) << t4.dump();
  EXPECT_EQ(t4["fitted"], false);
  // The share of the T4's time no GPU speeds up: between nothing and all of it.
  EXPECT_GT(t4["fixed_share"].get<double>(), 0);
  EXPECT_LT(t4["fixed_share"].get<double>(), 1);
  EXPECT_NE(t4["basis"].get<std::string>().find("fixed share"), std::string::npos) << t4.dump();
  // Two measured GPU models: the compute and memory terms are fitted.
  const auto fitted = RunJson({"--measured", "A100-80GB=1450", "--measured", "V100-16GB=510",
                               "--gpu", "T4", "--dtype", "fp16", "--family", "cnn"},
                              home);
  EXPECT_EQ(fitted["fitted"], true);
  EXPECT_GT(fitted["throughput_per_second"].get<double>(), 0);
  // Eight T4s: less than eight times one, and the work's time and cost follow.
  const auto eight =
      RunJson({"--measured", "A100-80GB=1450", "--gpu", "T4", "--gpus", "8", "--dtype", "fp16",
               "--family", "cnn", "--params", "25m", "--samples", "1.28m", "--epochs", "2"},
              home);
  const double all = eight["throughput_per_second"].get<double>();
  EXPECT_LT(all, 8 * one);
  EXPECT_GT(all, 4 * one);
  EXPECT_NEAR(eight["wall_hours"].get<double>(), 2.56e6 / all / 3600, 1e-9);
  EXPECT_FALSE(eight["costs"].empty());
  // No bf16 on a T4: the error names the flag to change.
  const auto bf16 = RunFrugal(
      {"estimate", "--measured", "A100-80GB=1450", "--gpu", "T4", "--dtype", "bf16"}, home.path());
  EXPECT_EQ(bf16.exit_code, 2);
  EXPECT_NE(bf16.err.find("--dtype fp16"), std::string::npos) << bf16.err;
  const auto bad = RunFrugal({"estimate", "--measured", "A100-80GB", "--gpu", "T4"}, home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--measured"), std::string::npos) << bad.err;
}

// The 1M-parameter job of the issue: "-3.057e+16 FLOPs, -0.36 h, -$4.67" before the fix.
TEST(EstimateCli, TinyModelIsPositiveAndNeverBelowSixND) {
  TempDir home;
  const auto doc = RunJson({"--params", "1m", "--gpu", "L4", "--tokens", "1b"}, home);
  EXPECT_GE(doc["total_flops"].get<double>(), 6 * 1e6 * 1e9);
  EXPECT_GT(doc["wall_hours"].get<double>(), 0);
  for (const auto& c : doc["costs"]) EXPECT_GT(c["cost_usd"].get<double>(), 0) << c.dump();
  const auto ten = RunJson({"--params", "10m", "--gpu", "L4", "--tokens", "1b"}, home);
  EXPECT_GE(ten["model_flops"].get<double>(), 6e16);
}

// Reserved prices are never a per-job price; a commitment is answered at a utilization.
TEST(EstimateCli, ReservedOnlyAtAStatedUtilizationAndCommitmentsHaveABreakEven) {
  TempDir home;
  const std::vector<std::string> job = {"--params", "7b",     "--gpu", "A100-80GB", "--gpus",
                                        "8",        "--zero", "3",     "--tokens",  "2b"};
  const auto plain = RunJson(job, home);
  for (const auto& c : plain["costs"]) {
    EXPECT_TRUE(c["tier"] == "on_demand" || c["tier"] == "spot") << c.dump();
  }
  auto with_u = job;
  with_u.insert(with_u.end(), {"--utilization", "0.5"});
  const auto half = RunJson(with_u, home);
  bool reserved = false;
  for (const auto& c : half["costs"]) {
    if (c["tier"] != "reserved_1y") continue;
    reserved = true;
    // price × hours ÷ 0.5
    EXPECT_NEAR(c["cost_usd"].get<double>(),
                c["price_per_hour"].get<double>() * c["instances"].get<double>() *
                    half["wall_hours"].get<double>() / 0.5,
                0.01);
  }
  EXPECT_TRUE(reserved) << half["costs"].dump();
  const auto commit = RunJson(
      {"--gpu", "A100-80GB", "--gpus", "8", "--commitment", "1y", "--utilization", "0.9"}, home);
  const auto& a = commit["commitment"];
  EXPECT_GT(a["monthly_commitment_usd"].get<double>(), 0);
  const double b = a["break_even_utilization_vs_on_demand"].get<double>();
  EXPECT_GT(b, 0.3);
  EXPECT_LT(b, 0.9);
  EXPECT_EQ(a["pays_vs_on_demand"], true);
  const auto no_u =
      RunFrugal({"estimate", "--gpu", "A100-80GB", "--commitment", "1y"}, home.path());
  EXPECT_EQ(no_u.exit_code, 2);
  EXPECT_NE(no_u.err.find("--utilization"), std::string::npos) << no_u.err;
}

TEST(EstimateCommitmentE2e, NoGpusOrANegativeCountIsBadInputNotANegativeBill) {
  TempDir home;
  for (const char* gpus : {"0", "-3"}) {
    const auto r = RunFrugal({"estimate", "--gpu", "A100-80GB", "--gpus", gpus, "--commitment",
                              "1y", "--utilization", "0.5"},
                             home.path());
    EXPECT_EQ(r.exit_code, 2) << gpus << ": " << r.out;
    EXPECT_NE(r.err.find("--gpus: must be at least 1"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

// `estimate --utilization 60%` was refused while `commit --utilization 60%` was read as 0.6: one
// parser now reads both flags, and each form gives the same answer in both commands.
TEST(EstimateCommitmentE2e, UtilizationAsAPercentOrAFractionIsTheSameShareInEstimateAndCommit) {
  TempDir home;
  const std::vector<std::string> job = {"--params", "7b", "--gpu",        "A100-80GB",
                                        "--gpus",   "8",  "--zero",       "3",
                                        "--tokens", "2b", "--utilization"};
  auto percent = job;
  percent.push_back("60%");
  auto fraction = job;
  fraction.push_back("0.6");
  const auto p = RunJson(percent, home);
  const auto f = RunJson(fraction, home);
  ASSERT_TRUE(p.contains("costs")) << p.dump();
  EXPECT_EQ(p["costs"], f["costs"]);
  for (const char* u : {"60%", "0.6"}) {
    const auto e = RunJson(
        {"--gpu", "A100-80GB", "--gpus", "8", "--commitment", "1y", "--utilization", u}, home);
    ASSERT_TRUE(e.contains("commitment")) << u << ": " << e.dump();
    EXPECT_DOUBLE_EQ(e["commitment"]["utilization"].get<double>(), 0.6) << u;
    const auto c = RunFrugal(
        {"--json", "commit", "--gpu", "A100-80GB", "--gpus", "8", "--utilization", u}, home.path());
    ASSERT_EQ(c.exit_code, 0) << u << ": " << c.err;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(c.out)["utilization"].get<double>(), 0.6) << u;
  }
  // Out of range or not a share, in either form and in either command: exit 2 naming the flag.
  for (const char* bad : {"160%", "1.6", "0%", "sixty"}) {
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"estimate", "--gpu", "A100-80GB", "--commitment", "1y",
                                   "--utilization", bad},
          std::vector<std::string>{"commit", "--gpu", "A100-80GB", "--utilization", bad}}) {
      const auto r = RunFrugal(args, home.path());
      EXPECT_EQ(r.exit_code, 2) << args[0] << " " << bad << ": " << r.out;
      EXPECT_NE(r.err.find("--utilization"), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

// Two --measured figures for one GPU model were averaged without a word; now they are refused.
TEST(EstimateCli, TheSameGpuMeasuredTwiceIsRefusedNotAveraged) {
  TempDir home;
  for (const std::vector<std::string>& twice :
       {std::vector<std::string>{"A100-80GB=1450", "A100-80GB=1000"},
        std::vector<std::string>{"A100-80GB=1450", "a100-80gb:8=9000"}}) {
    const auto r = RunFrugal({"estimate", "--measured", twice[0], "--measured", twice[1], "--gpu",
                              "T4", "--dtype", "fp16"},
                             home.path());
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_NE(r.err.find("--measured"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("A100-80GB is given twice"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(twice[1]), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  // Different models are still fitted together.
  const auto two = RunJson({"--measured", "A100-80GB=1450", "--measured", "V100-16GB=510", "--gpu",
                            "T4", "--dtype", "fp16"},
                           home);
  ASSERT_TRUE(two.contains("measured")) << two.dump();
  EXPECT_EQ(two["measured"].size(), 2u);
}

}  // namespace
}  // namespace frugal

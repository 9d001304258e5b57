// frugal estimate --knobs and the fit advice, end to end: the real binary on the shipped
// catalog.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;

constexpr double kT4Gib = 16;

TEST(EstimateKnobs, JsonListsEachSettingWithMemoryTimeCostAndTheSmallestGpu) {
  TempDir home;
  const auto r =
      RunFrugal({"--json", "estimate", "--params", "350m", "--gpu", "T4", "--tokens", "1b",
                 "--dtype", "fp16", "--micro-batch", "8", "--global-batch", "64", "--knobs"},
                home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["gpu"], "T4");
  EXPECT_EQ(doc["tier"], "on_demand");
  ASSERT_TRUE(doc["offer"].is_string());
  const auto& rows = doc["rows"];
  ASSERT_GT(rows.size(), 8u);
  EXPECT_EQ(rows[0]["label"], "as given");
  bool precision = false, micro_batch = false, recompute = false, lora = false, qlora = false;
  for (const auto& row : rows) {
    const auto& k = row["knobs"];
    precision = precision || k["precision"] != "fp16";
    micro_batch = micro_batch || k["micro_batch"] != 8;
    recompute = recompute || k["recompute"] != "none";
    lora = lora || k["method"] == "lora";
    qlora = qlora || k["method"] == "qlora";
    // Accumulation keeps the global batch of 64.
    EXPECT_EQ(k["micro_batch"].get<int>() * k["accumulation_steps"].get<int>(), 64) << row.dump();
    const double peak = row["peak_memory_gib_per_gpu"].get<double>();
    EXPECT_EQ(row["fits"].get<bool>(), peak <= kT4Gib && k["precision"] != "bf16") << row.dump();
    EXPECT_EQ(row["wall_hours"].is_number(), row["fits"].get<bool>()) << row.dump();
    EXPECT_EQ(row["cost_usd"].is_number(), row["fits"].get<bool>()) << row.dump();
    EXPECT_LE(peak, row["smallest_gpu_memory_gib"].get<double>()) << row.dump();
  }
  EXPECT_TRUE(precision && micro_batch && recompute && lora && qlora) << rows.dump();
  // --offer prices every row at exactly that offer.
  const auto at =
      RunFrugal({"--json", "estimate", "--params", "350m", "--gpu", "T4", "--tokens", "1b",
                 "--dtype", "fp16", "--knobs", "--offer", "aws:g4dn.2xlarge:us-east-1:on_demand"},
                home.path());
  ASSERT_EQ(at.exit_code, 0) << at.err;
  const auto priced = nlohmann::json::parse(at.out);
  EXPECT_EQ(priced["offer"], "aws:g4dn.2xlarge:us-east-1:on_demand");
}

TEST(EstimateKnobs, TheTableShowsTheColumns) {
  TempDir home;
  const auto r =
      RunFrugal({"estimate", "--params", "350m", "--gpu", "T4", "--tokens", "1b", "--dtype", "fp16",
                 "--micro-batch", "8", "--global-batch", "64", "--knobs"},
                home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* text : {"Knobs side by side on T4 x1", "MEM/GPU GiB", "FITS", "TIME", "COST",
                           "SMALLEST GPU IT FITS", "micro-batch 2 (x32 accumulation)",
                           "full recompute", "qlora rank 16", "To fit on T4 16 GiB:"}) {
    EXPECT_NE(r.out.find(text), std::string::npos) << text << "\n" << r.out;
  }
}

TEST(EstimateKnobs, AnEstimateThatDoesNotFitSaysWhichKnobsWould) {
  TempDir home;
  const std::vector<std::string> args = {
      "estimate", "--params",      "350m", "--gpu",          "T4", "--tokens", "1b", "--dtype",
      "fp16",     "--micro-batch", "8",    "--global-batch", "64"};
  const auto human = RunFrugal(args, home.path());
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_NE(human.out.find("does NOT fit"), std::string::npos) << human.out;
  EXPECT_NE(human.out.find("To fit on T4 16 GiB:\n  micro-batch 4 (x16 accumulation):"),
            std::string::npos)
      << human.out;
  std::vector<std::string> json = {"--json"};
  json.insert(json.end(), args.begin(), args.end());
  const auto r = RunFrugal(json, home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  EXPECT_FALSE(doc["fits"].get<bool>());
  ASSERT_FALSE(doc["fits_with"].empty());
  for (const auto& way : doc["fits_with"]) {
    EXPECT_TRUE(way["fits"].get<bool>());
    EXPECT_LE(way["peak_memory_gib_per_gpu"].get<double>(), kT4Gib);
  }
  // One that fits carries no advice.
  const auto fits =
      RunFrugal({"--json", "estimate", "--params", "350m", "--gpu", "A100-80GB", "--tokens", "1b"},
                home.path());
  ASSERT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_FALSE(nlohmann::json::parse(fits.out).contains("fits_with"));
  // Memory only (no work) advises too.
  const auto memory =
      RunFrugal({"estimate", "--params", "1b", "--gpu", "T4", "--dtype", "fp16"}, home.path());
  ASSERT_EQ(memory.exit_code, 0) << memory.err;
  EXPECT_NE(memory.out.find("To fit on T4 16 GiB:"), std::string::npos) << memory.out;
}

TEST(EstimateKnobs, AGpuThatCannotRunTheDtypeNamesTheFlagToUse) {
  TempDir home;
  const auto r =
      RunFrugal({"estimate", "--params", "350m", "--gpu", "T4", "--tokens", "1b"}, home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--dtype bf16: T4 (Turing) has no bf16 support; use --dtype fp16"),
            std::string::npos)
      << r.err;
  const auto fp8 = RunFrugal(
      {"estimate", "--params", "350m", "--gpu", "A100-80GB", "--tokens", "1b", "--dtype", "fp8"},
      home.path());
  EXPECT_EQ(fp8.exit_code, 2);
  EXPECT_NE(fp8.err.find("--dtype fp8: A100-80GB (Ampere) has no fp8 tensor cores; use --dtype "
                         "bf16"),
            std::string::npos)
      << fp8.err;
  // Invalid knobs name their flags, not the spec's fields.
  const auto batch = RunFrugal(
      {"estimate", "--params", "350m", "--gpu", "L4", "--micro-batch", "8", "--global-batch", "12"},
      home.path());
  EXPECT_EQ(batch.exit_code, 2);
  EXPECT_NE(batch.err.find("--global-batch 12 is not a multiple of --micro-batch 8"),
            std::string::npos)
      << batch.err;
  const auto tp = RunFrugal(
      {"estimate", "--params", "350m", "--gpu", "L4", "--gpus", "2", "--tp", "4"}, home.path());
  EXPECT_EQ(tp.exit_code, 2);
  EXPECT_NE(tp.err.find("--gpus 2 is not a multiple of --tensor-parallel 4"), std::string::npos)
      << tp.err;
  const auto both = RunFrugal({"estimate", "--params", "350m", "--gpu", "T4", "--knobs",
                               "--commitment", "1y", "--utilization", "0.5"},
                              home.path());
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_NE(both.err.find("--knobs"), std::string::npos) << both.err;
}

}  // namespace
}  // namespace frugal

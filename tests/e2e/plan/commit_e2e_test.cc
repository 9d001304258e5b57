// Runs the real frugal binary: `frugal commit` against a custom offers file.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::TempDir;
using testing::WriteTestFile;

std::string SeedOffers(const TempDir& home) {
  const auto path = home.path() / "offers.yaml";
  WriteTestFile(path,
                "apiVersion: frugal/v1\noffers:\n"
                "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 32}\n"
                "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 12.8, "
                "tier: spot}\n"
                "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 19, "
                "tier: reserved_1y}\n");
  return path.string();
}

TEST(CommitCli, SeedBreakEvenInJsonAndText) {
  TempDir home;
  const std::string offers = SeedOffers(home);
  auto r = RunFrugal({"--catalog", offers, "commit", "--gpu", "A100-80GB", "--gpus", "8", "--cloud",
                      "test", "--json"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["gpu"], "A100-80GB");
  EXPECT_EQ(doc["hours_per_month"], 730);
  EXPECT_TRUE(doc["utilization"].is_null());
  EXPECT_TRUE(doc["winner"].is_null());
  ASSERT_EQ(doc["commitments"].size(), 1u);
  const auto& one = doc["commitments"][0];
  EXPECT_EQ(one["tier"], "reserved_1y");
  EXPECT_DOUBLE_EQ(one["break_even_vs_on_demand"].get<double>(), 19.0 / 32.0);
  EXPECT_DOUBLE_EQ(one["monthly_usd"].get<double>(), 13870.0);
  EXPECT_DOUBLE_EQ(doc["on_demand"]["price_per_hour_usd"].get<double>(), 32.0);

  auto text = RunFrugal({"--catalog", offers, "commit", "--gpu", "A100-80GB", "--gpus", "8",
                         "--cloud", "test", "--utilization", "70%"},
                        home.path());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("59.4%"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("never"), std::string::npos) << text.out;  // vs spot: 19 > 12.8
  EXPECT_NE(text.out.find("$13,870.00"), std::string::npos) << text.out;
}

TEST(CommitCli, WinnerAtAStatedUtilization) {
  TempDir home;
  const auto path = home.path() / "offers.yaml";
  WriteTestFile(path,
                "apiVersion: frugal/v1\noffers:\n"
                "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 32}\n"
                "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 19, "
                "tier: reserved_1y}\n");
  auto at = [&](const std::string& u) {
    auto r = RunFrugal({"--catalog", path.string(), "commit", "--gpu", "A100-80GB", "--gpus", "8",
                        "--cloud", "test", "--utilization", u, "--json"},
                       home.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  auto low = at("59%");
  EXPECT_EQ(low["winner"], "on_demand");
  EXPECT_DOUBLE_EQ(low["on_demand"]["monthly_usd"].get<double>(), 32.0 * 730 * 0.59);
  EXPECT_EQ(at("0.6")["winner"], "reserved_1y");
}

// `frugal commit` and `frugal estimate --commitment` are one calculator: for 8 x A100-80GB at
// 60% on the shipped catalog they once said break-even 2.0 (eight scattered one-GPU on-demand
// instances against 2-GPU reservations) and 0.67 (one 8-GPU instance on both tiers).
TEST(CommitCli, AgreesWithEstimateCommitmentOnTheSameLayout) {
  TempDir home;
  auto commit =
      RunFrugal({"commit", "--gpu", "A100-80GB", "--gpus", "8", "--utilization", "60%", "--json"},
                home.path());
  ASSERT_EQ(commit.exit_code, 0) << commit.err;
  auto estimate = RunFrugal({"estimate", "--gpu", "A100-80GB", "--gpus", "8", "--commitment", "1y",
                             "--utilization", "0.6", "--json"},
                            home.path());
  ASSERT_EQ(estimate.exit_code, 0) << estimate.err;
  const auto c = nlohmann::json::parse(commit.out);
  const auto e = nlohmann::json::parse(estimate.out)["commitment"];
  const auto& one = c["commitments"][0];
  ASSERT_EQ(one["tier"], "reserved_1y");
  // The same layout on every tier: one 8-GPU instance.
  EXPECT_EQ(one["gpus_per_instance"], 8);
  EXPECT_EQ(c["on_demand"]["gpus_per_instance"], 8);
  EXPECT_EQ(c["on_demand"]["instances"], 1);
  EXPECT_EQ(one["offer"], e["offer"]);
  EXPECT_EQ(one["instances"], e["instances"]);
  EXPECT_DOUBLE_EQ(one["monthly_usd"].get<double>(), e["monthly_commitment_usd"].get<double>());
  EXPECT_DOUBLE_EQ(c["on_demand"]["monthly_usd"].get<double>(),
                   e["monthly_on_demand_usd"].get<double>());
  EXPECT_DOUBLE_EQ(c["spot"]["monthly_usd"].get<double>(), e["monthly_spot_usd"].get<double>());
  const double b = one["break_even_vs_on_demand"].get<double>();
  EXPECT_DOUBLE_EQ(b, e["break_even_utilization_vs_on_demand"].get<double>());
  EXPECT_DOUBLE_EQ(one["break_even_vs_spot"].get<double>(),
                   e["break_even_utilization_vs_spot"].get<double>());
  // Break-even = the commitment's month / a full month of the same layout on demand.
  EXPECT_NEAR(
      b,
      one["monthly_usd"].get<double>() / (c["on_demand"]["price_per_hour_usd"].get<double>() * 730),
      1e-9);
  EXPECT_LT(b, 1.0);
}

TEST(CommitCli, BadInputExitsTwoNamingTheFlag) {
  TempDir home;
  const std::string offers = SeedOffers(home);
  struct Case {
    std::vector<std::string> args;
    std::string flag;
  };
  for (const Case& c : std::vector<Case>{
           {{"commit", "--gpu", "A100-80GB", "--utilization", "150%"}, "--utilization"},
           {{"commit", "--gpu", "A100-80GB", "--utilization", "sixty"}, "--utilization"},
           {{"commit", "--gpu", "A100-80GB", "--gpus", "0"}, "--gpus"},
           {{"commit", "--utilization", "60%"}, "--gpu"},
           {{"commit", "--gpu", "A100-90GB"}, "A100-90GB"},
       }) {
    std::vector<std::string> args = {"--catalog", offers};
    args.insert(args.end(), c.args.begin(), c.args.end());
    auto r = RunFrugal(args, home.path());
    EXPECT_EQ(r.exit_code, 2) << c.flag << ": " << r.err;
    EXPECT_NE(r.err.find(c.flag), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
  }
}

}  // namespace
}  // namespace frugal

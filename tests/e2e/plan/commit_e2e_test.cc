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
  auto r = RunFrugal({"--catalog", offers, "commit", "--gpu", "A100-80GB", "--gpus", "8",
                      "--cloud", "test", "--json"},
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

// `frugal simulate` through the real binary.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal {
namespace {

using testing::RunFrugal;
using testing::SourceDir;
using testing::TempDir;
using testing::WriteTestFile;

std::string ShippedTrace(const std::string& name) {
  return (SourceDir() / "data" / "spot_traces" / name).string();
}

TEST(SimulateE2e, JsonHasRatiosForEveryPolicy) {
  TempDir home;
  auto r = RunFrugal({"--json", "simulate", "--trace", ShippedTrace("us-west-2b_v100_1.json"),
                      "--policy", "all", "--compute", "6h", "--deadline", "9h", "--changeover",
                      "12m", "--starts", "8", "--seed", "3", "--optimum"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  for (const char* name : {"od", "greedy", "up", "frugal"}) {
    const auto& p = doc["policies"][name];
    ASSERT_TRUE(p.is_object()) << name;
    EXPECT_EQ(p["runs"], 8);
    EXPECT_EQ(p["deadline_misses"], 0) << name;
    EXPECT_GE(p["mean_cost_ratio"].get<double>(), 1.0 - 1e-9) << name;
    EXPECT_GE(p["p90_cost_ratio"].get<double>(), p["median_cost_ratio"].get<double>() - 1e-9);
    EXPECT_GT(p["mean_cost_usd"].get<double>(), 0);
  }
  // On-demand at $3.06/h: changeover + work = 6.2 h → $18.97 every run.
  EXPECT_NEAR(doc["policies"]["od"]["mean_cost_usd"].get<double>(), 6.2 * 3.06, 1e-6);
}

TEST(SimulateE2e, HumanOutputShowsPerRunAndPlotIsWritten) {
  TempDir home;
  TempDir out;
  const std::string svg = (out / "run.svg").string();
  auto r = RunFrugal({"simulate", "--trace", "poisson:3h:1h:10", "--policy", "greedy,frugal",
                      "--compute", "12h", "--deadline", "18h", "--changeover", "6m",
                      "--checkpoint-cost", "2m", "--checkpoint-every", "30m", "--notice", "120s",
                      "--starts", "1", "--optimum", "--plot", svg},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("changeovers"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("optimum"), std::string::npos);
  EXPECT_NE(r.out.find("mean ÷ opt"), std::string::npos);
  ASSERT_TRUE(std::filesystem::exists(svg));
  auto text = ReadFile(svg);
  ASSERT_TRUE(text);
  EXPECT_EQ(text->rfind("<svg", 0), 0u);
  EXPECT_NE(text->find("frugal on poisson:3h:1h:10"), std::string::npos);
}

TEST(SimulateE2e, CsvTraceWithPricesAndGang) {
  TempDir home;
  TempDir dir;
  std::string csv = "timestamp,available,spot_price,on_demand_price\n";
  for (int i = 0; i < 200; ++i) {
    csv += std::to_string(1666742400 + 600 * i) + "," + (i % 20 < 15 ? "4" : "1") + ",1.0,4.0\n";
  }
  WriteTestFile(dir / "t.csv", csv);
  auto r = RunFrugal({"--json", "simulate", "--trace", (dir / "t.csv").string(), "--policy",
                      "od", "--compute", "2h", "--deadline", "4h", "--changeover", "10m",
                      "--gang", "4", "--starts", "3"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  // Four instances at $4/h for 2h10m.
  EXPECT_NEAR(doc["policies"]["od"]["mean_cost_usd"].get<double>(), 4 * 4.0 * (2 + 1.0 / 6), 1e-6);
  EXPECT_FALSE(doc["policies"]["od"].contains("mean_cost_ratio"));  // no --optimum
}

TEST(SimulateE2e, BadTraceNamesFileLineAndField) {
  TempDir home;
  TempDir dir;
  WriteTestFile(dir / "bad.csv", "tick,available\n0,1\n1,maybe\n");
  auto r = RunFrugal({"simulate", "--trace", (dir / "bad.csv").string(), "--compute", "1h",
                      "--deadline", "2h", "--changeover", "10m"},
                     home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.csv:3:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("'available'"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty());

  WriteTestFile(dir / "bad.json", "{\"metadata\": {\"gap_seconds\": 600},\n\"data\": [1, \"x\"]}");
  r = RunFrugal({"simulate", "--trace", (dir / "bad.json").string(), "--compute", "1h",
                 "--deadline", "2h", "--changeover", "10m"},
                home.path());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("bad.json:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("data[1]"), std::string::npos) << r.err;
}

TEST(SimulateE2e, BadFlagsExitTwo) {
  TempDir home;
  const std::string trace = ShippedTrace("us-west-2a_k80_1.json");
  auto typo = RunFrugal({"simulate", "--trace", trace, "--policy", "gredy", "--compute", "1h",
                         "--deadline", "2h", "--changeover", "10m"},
                        home.path());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("did you mean 'greedy'"), std::string::npos) << typo.err;
  auto duration = RunFrugal({"simulate", "--trace", trace, "--compute", "1x", "--deadline", "2h",
                             "--changeover", "10m"},
                            home.path());
  EXPECT_EQ(duration.exit_code, 2);
  EXPECT_NE(duration.err.find("--compute"), std::string::npos) << duration.err;
  auto missing = RunFrugal({"simulate", "--trace", "/nonexistent/t.json", "--compute", "1h",
                            "--deadline", "2h", "--changeover", "10m"},
                           home.path());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.err.find("/nonexistent/t.json"), std::string::npos) << missing.err;
  auto gang = RunFrugal({"simulate", "--trace", trace, "--compute", "1h", "--deadline", "2h",
                         "--changeover", "10m", "--gang", "8"},
                        home.path());
  EXPECT_EQ(gang.exit_code, 2);
  EXPECT_NE(gang.err.find("gang of 8"), std::string::npos) << gang.err;
}

}  // namespace
}  // namespace frugal

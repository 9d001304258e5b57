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

TEST(SimulateE2e, PerRunJsonHasEveryRunsFigures) {
  TempDir home;
  auto r = RunFrugal({"--json", "simulate", "--trace", "bathtub:4h:2h:8", "--policy", "frugal",
                      "--compute", "6h", "--deadline", "8h", "--changeover", "6m",
                      "--checkpoint-cost", "3m", "--starts", "3", "--optimum", "--per-run"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["per_run"].size(), 3u);
  for (const auto& run : doc["per_run"]) {
    const auto& f = run["policies"]["frugal"];
    for (const char* key : {"cost_usd", "spot_hours", "on_demand_hours", "changeovers",
                            "lost_work_hours", "finish_hours", "deadline_met"}) {
      EXPECT_TRUE(f.contains(key)) << key;
    }
    EXPECT_TRUE(f["deadline_met"].get<bool>());
    EXPECT_LE(f["finish_hours"].get<double>(), 8.0 + 1e-9);
    EXPECT_GE(f["cost_usd"].get<double>(), run["optimum_cost_usd"].get<double>() - 1e-6);
  }
  EXPECT_GT(doc["job"]["checkpoint_every_hours"].get<double>(), 0);  // auto interval
}

TEST(SimulateE2e, HumanOutputShowsPerRunAndPlotIsWritten) {
  TempDir home;
  TempDir out;
  const std::string svg = (out / "run.svg").string();
  auto r = RunFrugal({"simulate",
                      "--trace",
                      "poisson:3h:1h:10",
                      "--policy",
                      "greedy,frugal",
                      "--compute",
                      "12h",
                      "--deadline",
                      "18h",
                      "--changeover",
                      "6m",
                      "--checkpoint-cost",
                      "2m",
                      "--checkpoint-every",
                      "30m",
                      "--notice",
                      "120s",
                      "--starts",
                      "1",
                      "--optimum",
                      "--plot",
                      svg},
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
  auto r = RunFrugal(
      {"--json", "simulate", "--trace", (dir / "t.csv").string(), "--policy", "od", "--compute",
       "2h", "--deadline", "4h", "--changeover", "10m", "--gang", "4", "--starts", "3"},
      home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  // Four instances at $4/h for 2h10m.
  EXPECT_NEAR(doc["policies"]["od"]["mean_cost_usd"].get<double>(), 4 * 4.0 * (2 + 1.0 / 6), 1e-6);
  EXPECT_FALSE(doc["policies"]["od"].contains("mean_cost_ratio"));  // no --optimum
}

TEST(SimulateE2e, PriceSeriesFileSetsTheCost) {
  TempDir home;
  TempDir dir;
  std::string prices = "tick,spot_price,on_demand_price\n";
  for (int i = 0; i < 3895; ++i) prices += std::to_string(i) + ",0.5,2.0\n";
  WriteTestFile(dir / "prices.csv", prices);
  auto r = RunFrugal({"--json", "simulate", "--trace", ShippedTrace("us-west-2a_k80_1.json"),
                      "--prices", (dir / "prices.csv").string(), "--policy", "od", "--compute",
                      "3h", "--deadline", "5h", "--changeover", "10m", "--starts", "2"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_NEAR(doc["policies"]["od"]["mean_cost_usd"].get<double>(), 2.0 * (3 + 1.0 / 6), 1e-6);
  auto both = RunFrugal({"simulate", "--trace", ShippedTrace("us-west-2a_k80_1.json"), "--prices",
                         (dir / "prices.csv").string(), "--price-ratio", "3", "--compute", "3h",
                         "--deadline", "5h", "--changeover", "10m"},
                        home.path());
  EXPECT_EQ(both.exit_code, 2);
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

TEST(SimulateE2e, HugeGapSecondsIsBadInputNotAnAllocationFailure) {
  TempDir home;
  for (const char* gap : {"1e7", "1e10"}) {
    WriteTestFile(home / "gap.json", std::string("{\"metadata\": {\"gap_seconds\": ") + gap +
                                         "}, \"data\": [1, 1, 0, 1]}");
    auto r = RunFrugal({"--json", "simulate", "--trace", (home / "gap.json").string(), "--compute",
                        "1h", "--deadline", "3h", "--changeover", "10m"},
                       home.path());
    EXPECT_EQ(r.exit_code, 2) << gap << ": " << r.err;
    EXPECT_NE(r.err.find("field 'metadata.gap_seconds'"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("--compute"), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("bad_alloc"), std::string::npos) << r.err;
    EXPECT_EQ(nlohmann::json::parse(r.out)["error"]["exit_code"], 2) << r.out;
  }
}

TEST(SimulateE2e, TraceFormatTellsWhatOneMeansAndRefusesAFileItCannotTell) {
  TempDir home;
  // The same availability in both conventions: 1 = unavailable (with the extra metadata and
  // prices a SkyNomad-style file carries) and spot-traces counts.
  std::string flags;
  std::string counts;
  for (int i = 0; i < 48; ++i) {
    const bool up = (i / 5) % 3 != 2;
    flags += std::string(i ? ", " : "") + (up ? "0" : "1");
    counts += std::string(i ? ", " : "") + (up ? "1" : "0");
  }
  WriteTestFile(home / "flags.json",
                "{\"metadata\": {\"gap_seconds\": 600, \"start_time\": \"2025-05-01T00:00:00\"},\n"
                " \"data\": [" +
                    flags + "]}");
  WriteTestFile(home / "counts.json",
                "{\"metadata\": {\"gap_seconds\": 600}, \"data\": [" + counts + "]}");
  const std::vector<std::string> job = {"--policy",   "greedy", "--compute",    "3h",
                                        "--deadline", "6h",     "--changeover", "10m",
                                        "--starts",   "4",      "--seed",       "2"};
  auto simulate = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"--json", "simulate"});
    args.insert(args.end(), job.begin(), job.end());
    return RunFrugal(args, home.path());
  };
  auto refused = simulate({"--trace", (home / "flags.json").string()});
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("flags.json:1:1: field 'data': cannot tell what 1 means"),
            std::string::npos)
      << refused.err;
  auto flagged =
      simulate({"--trace", (home / "flags.json").string(), "--trace-format", "unavailable"});
  ASSERT_EQ(flagged.exit_code, 0) << flagged.err;
  auto counted = simulate({"--trace", (home / "counts.json").string()});
  ASSERT_EQ(counted.exit_code, 0) << counted.err;
  const auto a = nlohmann::json::parse(flagged.out)["policies"]["greedy"];
  const auto b = nlohmann::json::parse(counted.out)["policies"]["greedy"];
  EXPECT_EQ(a["mean_cost_usd"], b["mean_cost_usd"]);
  EXPECT_EQ(a["deadline_misses"], b["deadline_misses"]);
  // Read the wrong way round, the same file gives another answer.
  auto inverted =
      simulate({"--trace", (home / "flags.json").string(), "--trace-format", "launchable"});
  ASSERT_EQ(inverted.exit_code, 0) << inverted.err;
  EXPECT_NE(nlohmann::json::parse(inverted.out)["policies"]["greedy"]["mean_cost_usd"],
            a["mean_cost_usd"]);
  auto bad = simulate({"--trace", (home / "counts.json").string(), "--trace-format", "upside"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--trace-format: 'upside'"), std::string::npos) << bad.err;
}

TEST(SimulateE2e, ATraceShorterThanTheDeadlineIsNamedByItsFile) {
  // Found by the fuzzer: the error named the trace by its stem only ("trace 'short'").
  TempDir home;
  WriteTestFile(home / "short.json", R"({"metadata": {"gap_seconds": 600}, "data": [1, 1, 0]})");
  auto r = RunFrugal({"simulate", "--trace", (home / "short.json").string(), "--compute", "1h",
                      "--deadline", "3h", "--changeover", "10m"},
                     home.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find((home / "short.json").string() +
                       ": 3 ticks of 600 s are shorter than the deadline"),
            std::string::npos)
      << r.err;
}

TEST(SimulateE2e, BadFlagsExitTwo) {
  TempDir home;
  const std::string trace = ShippedTrace("us-west-2a_k80_1.json");
  auto typo = RunFrugal({"simulate", "--trace", trace, "--policy", "gredy", "--compute", "1h",
                         "--deadline", "2h", "--changeover", "10m"},
                        home.path());
  EXPECT_EQ(typo.exit_code, 2);
  EXPECT_NE(typo.err.find("did you mean 'greedy'"), std::string::npos) << typo.err;
  auto duration = RunFrugal(
      {"simulate", "--trace", trace, "--compute", "1x", "--deadline", "2h", "--changeover", "10m"},
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
  // The global --policy is the team GPU policy file: a spot policy there is a misplaced flag,
  // not a silent run of every policy.
  auto misplaced = RunFrugal({"--policy", "up", "simulate", "--trace", trace, "--compute", "1h",
                              "--deadline", "2h", "--changeover", "10m"},
                             home.path());
  EXPECT_EQ(misplaced.exit_code, 2);
  EXPECT_NE(misplaced.err.find("frugal simulate --policy up"), std::string::npos) << misplaced.err;
  // 10 h of work and a 12 m changeover cannot fit 10h05m, not even on demand from the start.
  auto impossible = RunFrugal({"simulate", "--trace", trace, "--compute", "10h", "--deadline",
                               "10h5m", "--changeover", "12m", "--starts", "3", "--optimum"},
                              home.path());
  EXPECT_EQ(impossible.exit_code, 2);
  EXPECT_NE(impossible.err.find("--deadline: 10h05m is shorter than --compute plus --changeover"),
            std::string::npos)
      << impossible.err;
}

// A job that fits in time but not in whole 2-minute steps (10h0m1s of work is 301 steps, the
// 10h13m deadline 306, the changeover 6): no run has an optimum to compare with.
TEST(SimulateE2e, NoRatioIsShownAsNoneNotZero) {
  TempDir home;
  const std::vector<std::string> args = {"simulate",
                                         "--trace",
                                         ShippedTrace("us-west-2a_v100_1.json"),
                                         "--policy",
                                         "all",
                                         "--compute",
                                         "36001s",
                                         "--deadline",
                                         "10h13m",
                                         "--changeover",
                                         "12m",
                                         "--starts",
                                         "3",
                                         "--seed",
                                         "1",
                                         "--optimum"};
  std::vector<std::string> json = {"--json"};
  json.insert(json.end(), args.begin(), args.end());
  auto r = RunFrugal(json, home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto doc = nlohmann::json::parse(r.out);
  ASSERT_EQ(doc["infeasible_runs"], 3) << r.out;
  for (const char* name : {"od", "greedy", "up", "frugal"}) {
    const auto& p = doc["policies"][name];
    EXPECT_EQ(p["ratio_runs"], 0) << name;
    EXPECT_TRUE(p["mean_cost_ratio"].is_null()) << name;
    EXPECT_TRUE(p["median_cost_ratio"].is_null()) << name;
    EXPECT_TRUE(p["p90_cost_ratio"].is_null()) << name;
  }
  auto human = RunFrugal(args, home.path());
  ASSERT_EQ(human.exit_code, 0) << human.err;
  EXPECT_EQ(human.out.find("0.000"), std::string::npos) << human.out;
  const size_t od = human.out.find("\nod ");
  ASSERT_NE(od, std::string::npos) << human.out;
  const std::string row = human.out.substr(od + 1, human.out.find('\n', od + 1) - od - 1);
  EXPECT_NE(row.find(" -  "), std::string::npos) << row;
}

}  // namespace
}  // namespace frugal

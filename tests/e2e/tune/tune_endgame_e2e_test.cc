// frugal tune end to end, the budget's endgame as a user sees it: the flags form reads each
// configuration's own schedule from the table, the result and status carry the best-so-far
// curve and the best partial result, --curve-svg draws the curve, and a budget below one full
// run is called out before anything is spent.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "replay_flags.h"
#include "support/test_support.h"

namespace frugal::testing {
namespace {

/// A table evaluated every 100 steps whose configurations train 1,000 to 3,000 steps each
/// (`steps`), with a learning-rate schedule of their own: at step 100 every configuration
/// still shows its initial score.
void WriteStepTable(const std::filesystem::path& dir, int configs) {
  std::string config_csv = "config_id,lr,steps\n";
  std::string curve_csv = "config_id,step,elapsed_s,score\n";
  for (int c = 0; c < configs; ++c) {
    const double lr = std::pow(10.0, -4.0 + 3.0 * std::fmod(c * 0.618034, 1.0));
    const int steps = 1000 * (1 + c % 3);
    config_csv += fmt::format("{},{},{}\n", c, lr, steps);
    const double quality = 0.9 - 0.1 * std::pow(std::log10(lr) + 2.5, 2) + 0.02 * (c % 3);
    for (int s = 100; s <= steps; s += 100) {
      const double share = static_cast<double>(s) / steps;
      const double score = s == 100 ? 0.1 : quality * (1 - std::exp(-4 * share));
      curve_csv += fmt::format("{},{},{},{:.6f}\n", c, s, s * 0.6, score);
    }
  }
  WriteTestFile(dir / "configs.csv", config_csv);
  WriteTestFile(dir / "curves.csv", curve_csv);
}

std::string ReadAll(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

class TuneEndgameE2e : public ::testing::Test {
 protected:
  void SetUp() override { WriteStepTable(table_.path(), 90); }
  std::vector<std::string> Flags(const std::string& name, const std::string& budget) {
    return {"tune",       "--replay", table_.path().string(),
            "--metric",   "score",    "--maximize",
            "--fidelity", "step",     "--price-per-hour",
            "3.6",        "--budget", budget,
            "--workers",  "4",        "--seed",
            "3",          "--name",   name,
            "--json"};
  }
  TempDir table_;
  TempDir home_;
};

TEST_F(TuneEndgameE2e, TheFlagsFormScalesRungsByEachConfigurationsOwnStepsFromTheFirstReport) {
  // The whole table costs about $108; $60 pays for more than ten full runs, so it prunes.
  const CommandResult r = RunFrugal(Flags("steps", "60"), home_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = Json(r);
  EXPECT_EQ(doc["scheduler"], "asha");
  ASSERT_TRUE(doc["best_value"].is_number());
  ASSERT_TRUE(doc["best_so_far"].is_array());
  ASSERT_FALSE(doc["best_so_far"].empty());
  EXPECT_EQ(doc["best_so_far"].back()["best_value"], doc["best_value"]);
  EXPECT_TRUE(doc.contains("best_partial"));
  EXPECT_TRUE(doc["endgame"].is_boolean());
  // The drain promotes only contenders (the top 1/eta of their rung): never past the budget,
  // and money it keeps from trials left paused is reported as pruning saved.
  EXPECT_LE(doc["spend_usd"].get<double>(), 60 + 1e-6);
  if (doc["spend_usd"].get<double>() < 60 - 2.0) {
    EXPECT_GT(doc.value("pruning_saved_usd", 0.0), 0.0) << doc.dump();
  }

  const CommandResult status = RunFrugal({"tune", "status", "steps", "--json"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const nlohmann::json s = Json(status);
  EXPECT_EQ(s["rungs_scaled_by"], "steps");
  // No rung below the first report (step 100), where every configuration shows 0.1.
  for (const auto& rung : s["rungs"]) EXPECT_GE(rung["fidelity"].get<double>(), 100) << rung;
  EXPECT_EQ(s["best_so_far"], doc["best_so_far"]);
  EXPECT_EQ(s["best_value"], doc["best_value"]);
}

TEST_F(TuneEndgameE2e, CurveSvgDrawsTheBestSoFarAgainstSpend) {
  const std::filesystem::path run_svg = home_.path() / "run.svg";
  std::vector<std::string> args = Flags("drawn", "60");
  args.insert(args.end(), {"--curve-svg", run_svg.string()});
  const CommandResult r = RunFrugal(args, home_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string svg = ReadAll(run_svg);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u) << svg;
  EXPECT_NE(svg.find("<path d=\"M"), std::string::npos);
  EXPECT_NE(svg.find("budget 60.00 USD"), std::string::npos);

  const std::filesystem::path status_svg = home_.path() / "status.svg";
  const CommandResult status =
      RunFrugal({"tune", "status", "drawn", "--curve-svg", status_svg.string()}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_EQ(ReadAll(status_svg), svg);
  // The human status names the best full-fidelity result and the best partial one apart.
  EXPECT_NE(status.out.find("best      "), std::string::npos) << status.out;
}

TEST_F(TuneEndgameE2e, ABudgetBelowOneFullRunIsCalledOutAndEndsWithThePartialBest) {
  // The cheapest full run: 1,000 steps at 0.6 s each, $0.60 at $3.60/h.
  const CommandResult r = RunFrugal(Flags("tiny", "0.40"), home_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("below the cheapest full run ($0.6000)"), std::string::npos) << r.err;
  const nlohmann::json doc = Json(r);
  EXPECT_TRUE(doc["best_value"].is_null());
  EXPECT_EQ(doc["scheduler"], "none");  // $0.40 pays for no full run, let alone ten
  ASSERT_TRUE(doc["best_partial"].is_object()) << doc.dump();
  EXPECT_EQ(doc["best_partial"]["partial"], true);
  EXPECT_LT(doc["best_partial"]["fidelity"].get<double>(),
            doc["best_partial"]["full_fidelity"].get<double>());

  // `tune check` says so before anything is spent.
  const std::filesystem::path spec = home_.path() / "tiny.yaml";
  WriteTestFile(spec, "name: tiny\nreplay: {dir: '" + table_.path().string() +
                          "'}\nobjective: {metric: score, direction: maximize}\n"
                          "fidelity: {name: step, min: 100, max: 3000, scale_by: steps}\n"
                          "resources: {price_per_hour: 3.6}\ngates: {budget_usd: 0.40}\n");
  const CommandResult check = RunFrugal({"tune", "check", spec.string(), "--json"}, home_.path());
  EXPECT_NE(check.out.find("full_run"), std::string::npos) << check.out << check.err;
  EXPECT_EQ(check.exit_code, 1) << check.err;
  bool found = false;
  const nlohmann::json items = Json(check)["items"];
  for (const auto& item : items) {
    if (item["item"] != "full_run") continue;
    found = true;
    EXPECT_EQ(item["ok"], false);
    EXPECT_NE(item["fix"].get<std::string>().find("$0.6000"), std::string::npos) << item;
  }
  EXPECT_TRUE(found);
}

}  // namespace
}  // namespace frugal::testing

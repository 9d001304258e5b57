// `frugal tune resume NAME --budget/--max-gpu-hours/--max-trials/--trial-max-wall`, end to end
// over replayed curves: new caps replace the stored ones for good, a study stopped at its
// budget continues with more, and a cap lowered below the spend stops it without a resume.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "replay_flags.h"
#include "support/test_support.h"
#include "synthetic_table.h"

namespace frugal::testing {
namespace {

class TuneResumeCaps : public ::testing::Test {
 protected:
  void SetUp() override { tune::testing::WriteSyntheticTable(table_.path(), 150, 27); }
  std::vector<std::string> Flags(const std::string& name, const std::string& budget) {
    return ReplayStudyFlags(table_.path(), name, budget, "asha");
  }
  nlohmann::json Status(const std::string& name) {
    const CommandResult r = RunFrugal({"tune", "status", name, "--json"}, home_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return Json(r);
  }
  TempDir table_;
  TempDir home_;
};

TEST_F(TuneResumeCaps, AStudyStoppedAtItsBudgetContinuesWithAHigherOneThatStays) {
  const CommandResult first = RunFrugal(Flags("more", "8"), home_.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json a = Json(first);
  ASSERT_EQ(a["stop_reason"], "budget");
  const nlohmann::json before = Status("more");
  ASSERT_EQ(before["status"], "finished");

  // Resumed as it is, a study at its budget does nothing more.
  const CommandResult same = RunFrugal({"tune", "resume", "more", "--json"}, home_.path());
  ASSERT_EQ(same.exit_code, 0) << same.err;
  EXPECT_EQ(Json(same)["spend_usd"], a["spend_usd"]);

  const CommandResult more =
      RunFrugal({"tune", "resume", "more", "--budget", "20", "--json"}, home_.path());
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(more.err.find("budget_usd $8.00 \u2192 $20.00"), std::string::npos) << more.err;
  const nlohmann::json b = Json(more);
  EXPECT_GT(b["spend_usd"].get<double>(), a["spend_usd"].get<double>() + 5.0);
  EXPECT_LE(b["spend_usd"].get<double>(), 20.0 + 0.18);
  EXPECT_GT(b["trials_started"].get<int64_t>(), a["trials_started"].get<int64_t>());

  // No completed work is repeated: every earlier trial keeps its configuration and what it
  // spent, and a completed one is exactly as it was.
  const nlohmann::json after = Status("more");
  const auto& was = before["per_trial"];
  const auto& now = after["per_trial"];
  ASSERT_GE(now.size(), was.size());
  int resumed = 0;
  for (size_t i = 0; i < was.size(); ++i) {
    EXPECT_EQ(now[i]["config"], was[i]["config"]) << i;
    EXPECT_GE(now[i]["spend_usd"].get<double>(), was[i]["spend_usd"].get<double>() - 1e-9) << i;
    if (was[i]["state"] == "completed") {
      EXPECT_EQ(now[i], was[i]) << i;
    }
    // A trial stopped at the budget resumed from its checkpoint: it trained further.
    if (was[i]["state"] == "stopped_at_budget" &&
        now[i]["fidelity"].get<double>() > was[i]["fidelity"].get<double>()) {
      ++resumed;
    }
  }
  const int64_t stopped = before["trials"]["stopped_at_budget"].get<int64_t>();
  if (stopped > 0) {
    EXPECT_GT(resumed, 0);
  }
  EXPECT_EQ(after["gates"]["budget_usd"]["cap"], 20.0);
  ASSERT_EQ(after["cap_changes"].size(), 1u);
  EXPECT_EQ(after["cap_changes"][0]["field"], "budget_usd");
  EXPECT_EQ(after["cap_changes"][0]["from"], "$8.00");
  EXPECT_EQ(after["cap_changes"][0]["to"], "$20.00");
  const CommandResult text = RunFrugal({"tune", "status", "more"}, home_.path());
  EXPECT_NE(text.out.find("budget_usd $8.00 \u2192 $20.00"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("of $20.00"), std::string::npos) << text.out;

  // A later resume without flags keeps the new cap.
  const CommandResult again = RunFrugal({"tune", "resume", "more", "--json"}, home_.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(Json(again)["spend_usd"], b["spend_usd"]);
  EXPECT_EQ(Status("more")["gates"]["budget_usd"]["cap"], 20.0);
}

TEST_F(TuneResumeCaps, UnderShaTrialsStoppedAtTheBudgetRejoinTheirBracketsWhenItIsRaised) {
  for (const std::string scheduler : {"sha", "hyperband"}) {
    const std::string name = "brackets-" + scheduler;
    const CommandResult first =
        RunFrugal(ReplayStudyFlags(table_.path(), name, "8", scheduler), home_.path());
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_EQ(Json(first)["stop_reason"], "budget") << scheduler;
    const nlohmann::json before = Status(name);
    ASSERT_GT(before["trials"]["stopped_at_budget"].get<int64_t>(), 0) << scheduler;

    const CommandResult more =
        RunFrugal({"tune", "resume", name, "--budget", "20", "--json"}, home_.path());
    ASSERT_EQ(more.exit_code, 0) << more.err;
    const nlohmann::json after = Status(name);
    // Every trial stopped at the old budget trained on from its checkpoint: back in its rung,
    // or as a late member of one that closed without it.
    for (size_t i = 0; i < before["per_trial"].size(); ++i) {
      const auto& was = before["per_trial"][i];
      const auto& now = after["per_trial"][i];
      if (was["state"] != "stopped_at_budget") continue;
      // (A diverging configuration fails on its next epoch: it trained, with no new value.)
      EXPECT_GT(now["spend_usd"].get<double>(), was["spend_usd"].get<double>())
          << scheduler << " trial " << i << ": " << now.dump();
      EXPECT_NE(now["state"], "stopped_at_budget") << scheduler << " trial " << i;
    }
  }
}

TEST_F(TuneResumeCaps, ACapLoweredBelowTheSpendEndsTheStudyWithoutResumingAnything) {
  std::vector<std::string> args = Flags("tight", "30");
  args.insert(args.end(), {"--halt-after", "120"});
  ASSERT_EQ(RunFrugal(args, home_.path()).exit_code, 130);
  const nlohmann::json before = Status("tight");
  const double spent = before["spend_usd"].get<double>();
  ASSERT_GT(spent, 2.0);
  ASSERT_GT(before["trials"]["running"].get<int64_t>() + before["trials"]["paused"].get<int64_t>(),
            0);
  const std::string lower = fmt::format("{:.2f}", spent / 2);

  const CommandResult r =
      RunFrugal({"tune", "resume", "tight", "--budget", lower, "--json"}, home_.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;  // a stop at the budget is no error
  EXPECT_NE(r.err.find("no trial starts or resumes"), std::string::npos) << r.err;
  const nlohmann::json doc = Json(r);
  EXPECT_EQ(doc["stop_reason"], "budget");
  EXPECT_NEAR(doc["spend_usd"].get<double>(), spent, 0.01);  // nothing more was spent
  EXPECT_NEAR(doc["overshoot_usd"].get<double>(), spent - std::stod(lower), 0.01);
  EXPECT_EQ(doc["trials"]["running"], 0);
  EXPECT_EQ(doc["trials_started"], before["trials_started"]);

  const nlohmann::json after = Status("tight");
  EXPECT_EQ(after["status"], "finished");
  EXPECT_EQ(after["gates"]["budget_usd"]["cap"].get<double>(), std::stod(lower));
  const CommandResult text = RunFrugal({"tune", "status", "tight"}, home_.path());
  EXPECT_NE(text.out.find("overshoot"), std::string::npos) << text.out;

  // A GPU-hour cap lowered below the GPU-hours spent: its overshoot is in GPU-hours.
  const double gpu_hours = after["gpu_hours"].get<double>();
  const CommandResult hours = RunFrugal({"tune", "resume", "tight", "--max-gpu-hours",
                                         fmt::format("{:.3f}", gpu_hours / 2), "--json"},
                                        home_.path());
  ASSERT_EQ(hours.exit_code, 0) << hours.err;
  EXPECT_NEAR(Json(hours)["overshoot_gpu_hours"].get<double>(), gpu_hours / 2, 0.001);
  const CommandResult hours_text = RunFrugal({"tune", "status", "tight"}, home_.path());
  EXPECT_NE(hours_text.out.find("GPU-hours past the GPU-hour cap"), std::string::npos)
      << hours_text.out;
}

TEST_F(TuneResumeCaps, ATrialCapRaisedOnAFinishedStudyStartsMoreTrials) {
  std::vector<std::string> args = Flags("few", "100");
  args.insert(args.end(), {"--max-trials", "6"});
  const CommandResult first = RunFrugal(args, home_.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  ASSERT_EQ(Json(first)["trials_started"], 6);
  const CommandResult more =
      RunFrugal({"tune", "resume", "few", "--max-trials", "10", "--json"}, home_.path());
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_EQ(Json(more)["trials_started"], 10);
  EXPECT_NE(more.err.find("max_trials 6 \u2192 10"), std::string::npos) << more.err;
  EXPECT_EQ(Status("few")["gates"]["max_trials"]["cap"], 10.0);
}

TEST_F(TuneResumeCaps, TheNewCapIsKeptWithTheStudyInTheLedger) {
  const std::string db = (home_.path() / "ledger.db").string();
  std::vector<std::string> args = Flags("kept", "8");
  args.insert(args.begin(), {"--db", db});
  ASSERT_EQ(RunFrugal(args, home_.path()).exit_code, 0);
  const CommandResult more =
      RunFrugal({"--db", db, "tune", "resume", "kept", "--max-gpu-hours", "4"}, home_.path());
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(more.err.find("max_gpu_hours none \u2192 4 GPU-h"), std::string::npos) << more.err;
  const CommandResult status =
      RunFrugal({"--db", db, "tune", "status", "kept", "--json"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const nlohmann::json doc = Json(status);
  EXPECT_EQ(doc["gates"]["max_gpu_hours"]["cap"], 4.0);
  EXPECT_EQ(doc["cap_changes"][0]["field"], "max_gpu_hours");
}

TEST_F(TuneResumeCaps, ALoosenedPlateauLetsAStudyThatPlateauedSearchOn) {
  TempDir dir;
  // ε as wide as the scores: once a trial completes, nothing counts as an improvement.
  WriteTestFile(dir / "study.yaml", "name: flat\nreplay: {dir: '" + table_.path().string() +
                                        "'}\nobjective: {metric: score, direction: maximize}\n"
                                        "fidelity: {max: 27}\nsampler: random\nseed: 3\n"
                                        "resources: {price_per_hour: 3.6, workers: 2}\n"
                                        "gates: {budget_usd: 200, plateau: {epsilon: 10, "
                                        "trials: 6}}\n");
  const CommandResult first =
      RunFrugal({"tune", (dir / "study.yaml").string(), "--json"}, home_.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const nlohmann::json a = Json(first);
  ASSERT_EQ(a["stop_reason"], "plateau") << first.out;
  const CommandResult more =
      RunFrugal({"tune", "resume", "flat", "--plateau-trials", "20", "--json"}, home_.path());
  ASSERT_EQ(more.exit_code, 0) << more.err;
  EXPECT_NE(more.err.find("plateau_trials 6 \u2192 20"), std::string::npos) << more.err;
  const nlohmann::json b = Json(more);
  EXPECT_GE(b["trials_started"].get<int64_t>(), a["trials_started"].get<int64_t>() + 10);
  EXPECT_EQ(b["stop_reason"], "plateau");
  EXPECT_EQ(Status("flat")["gates"]["plateau_trials"]["cap"], 20.0);

  // A smaller ε with a tighter count is not looser: the study stays stopped where it stopped,
  // its gate still reading what it stopped at, and says so.
  const CommandResult mixed = RunFrugal(
      {"tune", "resume", "flat", "--plateau-epsilon", "5", "--plateau-trials", "2", "--json"},
      home_.path());
  ASSERT_EQ(mixed.exit_code, 0) << mixed.err;
  EXPECT_NE(mixed.err.find("stays stopped at its plateau"), std::string::npos) << mixed.err;
  EXPECT_EQ(Json(mixed)["trials_started"], b["trials_started"]);
  const nlohmann::json gate = Status("flat")["gates"]["plateau_trials"];
  EXPECT_GE(gate["used"].get<double>(), gate["cap"].get<double>()) << gate.dump();

  // A smaller ε and a larger count loosen it: the count starts again at the resume, so at least
  // 20 more.
  const CommandResult finer = RunFrugal(
      {"tune", "resume", "flat", "--plateau-epsilon", "0", "--plateau-trials", "20", "--json"},
      home_.path());
  ASSERT_EQ(finer.exit_code, 0) << finer.err;
  EXPECT_NE(finer.err.find("plateau_epsilon 5 \u2192 0"), std::string::npos) << finer.err;
  EXPECT_GE(Json(finer)["trials_started"].get<int64_t>(), b["trials_started"].get<int64_t>() + 20);

  // ε alone cannot give a study a plateau gate: it would have nothing to count.
  ASSERT_EQ(RunFrugal(Flags("unplateaued", "8"), home_.path()).exit_code, 0);
  const CommandResult alone =
      RunFrugal({"tune", "resume", "unplateaued", "--plateau-epsilon", "0.1"}, home_.path());
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_NE(alone.err.find("--plateau-epsilon: study 'unplateaued' has no plateau gate"),
            std::string::npos)
      << alone.err;
}

TEST_F(TuneResumeCaps, BadCapFlagsAreExitTwoNamingTheFlag) {
  for (const auto& [flag, value] :
       std::vector<std::pair<std::string, std::string>>{{"--budget", "-5"},
                                                        {"--budget", "lots"},
                                                        {"--max-gpu-hours", "0"},
                                                        {"--max-trials", "0"},
                                                        {"--max-trials", "2.5"},
                                                        {"--trial-max-wall", "soon"},
                                                        {"--trial-max-wall", "0s"},
                                                        {"--plateau-trials", "0"},
                                                        {"--plateau-spend", "free"},
                                                        {"--plateau-epsilon", "-1"},
                                                        {"--plateau-epsilon", "tiny"}}) {
    const CommandResult r = RunFrugal({"tune", "resume", "any", flag, value}, home_.path());
    EXPECT_EQ(r.exit_code, 2) << flag << " " << value << ": " << r.err;
    EXPECT_NE(r.err.find(flag + ":"), std::string::npos) << r.err;
  }
}

TEST_F(TuneResumeCaps, ALoweredTrialWallStopsTrialsAlreadyPastIt) {
  // Killed mid-study: some trials have trained longer than the wall set on resume.
  std::vector<std::string> flags = Flags("wall", "400");
  flags.insert(flags.end(), {"--halt-after", "40"});
  ASSERT_EQ(RunFrugal(flags, home_.path()).exit_code, 130);
  // The wall: the longest trial's time so far ($0.001 a second), so at least it is past it.
  std::map<int64_t, double> before;
  double longest = 0;
  const nlohmann::json halted = Status("wall");
  for (const auto& t : halted["leaderboard"]) {
    before[t["trial"].get<int64_t>()] = t["spend_usd"].get<double>();
    longest = std::max(longest, t["spend_usd"].get<double>());
  }
  ASSERT_GT(before.size(), 2u) << halted.dump();
  const auto wall_seconds = static_cast<int64_t>(longest * 1000);
  const double kWallUsd = static_cast<double>(wall_seconds) / 1000;
  int past = 0;
  for (const auto& [id, spend] : before) past += spend >= kWallUsd;
  ASSERT_LT(past, static_cast<int>(before.size()));

  const CommandResult resumed = RunFrugal(
      {"tune", "resume", "wall", "--trial-max-wall", std::to_string(wall_seconds) + "s", "--json"},
      home_.path());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  const nlohmann::json after = Status("wall");
  for (const auto& t : after["leaderboard"]) {
    const auto was = before.find(t["trial"].get<int64_t>());
    const double spend = t["spend_usd"].get<double>();
    if (was == before.end() || was->second < kWallUsd) continue;
    EXPECT_DOUBLE_EQ(spend, was->second) << t.dump();  // nothing more after the new wall
    EXPECT_EQ(t["state"], "stopped_at_wall") << t.dump();
  }
}

}  // namespace
}  // namespace frugal::testing

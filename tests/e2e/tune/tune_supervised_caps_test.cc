// `frugal tune resume NAME --budget` with real supervised trials: a study stopped at its budget
// continues with more, its stopped trials resume from their checkpoints, and no epoch is
// trained twice.

#include "tune_supervised_support.h"

namespace frugal::testing {
namespace {

using nlohmann::json;

TEST_F(TuneSupervised, AStudyStoppedAtItsBudgetResumesItsTrialsFromTheirCheckpoints) {
  // Without pruning, every trial trains to the end unless the money runs out, so whatever the
  // machine's pace the budget (about three full runs) ends with a trial stopped part-way. (With
  // ASHA, a loaded machine could end the budget with the only unfinished trial paused at its
  // rung and no start affordable: nothing stopped at the budget to resume.)
  WriteTestFile(dir_ / "broke.yaml", R"(name: broke
trial: {command: [python3, trainer.py]}
space:
  x: {type: float, low: 0.0, high: 1.0}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 9, reduction_factor: 3, cost_per_unit: 200ms}
scheduler: none
sampler: random
seed: 7
resources: {gpus: 1, price_per_hour: 36, workers: 1}
gates: {budget_usd: 0.03, max_trials: 8}
)");
  const CommandResult first =
      RunFrugal({"--json", "tune", (dir_ / "broke.yaml").string()}, home_.path(), Env());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  const json a = json::parse(first.out, nullptr, false);
  ASSERT_EQ(a["stop_reason"], "budget") << first.out;
  std::set<int> stopped;  // trials stopped at the budget
  const json saved = SavedState(first, "broke");
  for (const json& t : saved["trials"]) {
    if (t["state"] == "stopped_at_budget") stopped.insert(t["id"].get<int>());
  }
  ASSERT_FALSE(stopped.empty()) << first.out;
  const std::map<int, std::vector<Segment>> before = ReadLog();
  const std::map<int, int> epochs_before = epochs_;

  const CommandResult more =
      RunFrugal({"--json", "tune", "resume", "broke", "--budget", "5"}, home_.path(), Env());
  ASSERT_EQ(more.exit_code, 0) << more.err;
  const json b = json::parse(more.out, nullptr, false);
  EXPECT_GT(b["spend_usd"].get<double>(), a["spend_usd"].get<double>());
  EXPECT_EQ(b["trials_started"], 8);
  EXPECT_NE(b["stop_reason"], "budget");

  // ReadLog fails the test when an epoch is trained twice or skipped; every segment after the
  // first starts from the checkpoint of the epochs its trial had done.
  const std::map<int, std::vector<Segment>> after = ReadLog();
  int resumed = 0;
  for (const auto& [trial, segments] : after) {
    for (size_t k = 0; k < segments.size(); ++k) {
      EXPECT_EQ(segments[k].from, segments[k].done_before) << "trial " << trial << " segment " << k;
    }
    const auto was = before.find(trial);
    if (stopped.contains(trial) && was != before.end() && segments.size() > was->second.size() &&
        epochs_before.at(trial) > 0) {
      ++resumed;
    }
  }
  EXPECT_GT(resumed, 0) << "no trial stopped at the budget went on from its checkpoint";
}

}  // namespace
}  // namespace frugal::testing

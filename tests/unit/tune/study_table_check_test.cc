// A replay study's ladder against its table: a `fidelity.max` that no curve reaches is bad
// input naming the spec's line, unless `scale_by` gives each configuration its own schedule.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <string>

#include "replay_study.h"

namespace frugal::tune {
namespace {

TEST_F(StudyTest, AMaxPastTheLongestCurveIsBadInputNamingTheSpecLineAndField) {
  // The synthetic table's curves end at epoch 27; grace, rungs and early rungs all lie at or
  // below max, so max is the field to fix.
  for (const char* fidelity : {"fidelity: {max: 50}\n", "fidelity: {max: 81, grace: 3}\n",
                               "fidelity: {max: 81, grace: 3, rungs: [3, 9, 81]}\n"}) {
    SCOPED_TRACE(fidelity);
    ReplayStudy rs(dir_.path(), fidelity);
    auto study = rs.Create();
    ASSERT_FALSE(study);
    EXPECT_EQ(study.error().code, ErrorCode::kBadInput);
    // Line 4 of the spec (after name, replay and objective), the column of max's value.
    EXPECT_EQ(study.error().message.rfind("test.yaml:4:17: field 'fidelity.max': ", 0), 0u)
        << study.error().message;
    EXPECT_NE(study.error().message.find("past the replay table's longest curve (27 epochs)"),
              std::string::npos)
        << study.error().message;
  }
}

TEST_F(StudyTest, AMaxAtTheLongestCurveReplays) {
  const StudySummary summary = RunToEnd("fidelity: {max: 27, grace: 3}\n");
  EXPECT_GT(summary.trials_by_state.at("completed"), 0);
}

// Configurations 1 (9 epochs) and 2 (27 epochs) under `configs_csv`; each epoch costs 60 s
// and scores its number.
void WriteTwoSchedules(const std::filesystem::path& dir, const std::string& configs_csv) {
  frugal::testing::WriteTestFile(dir / "configs.csv", configs_csv);
  std::string curves = "config_id,epoch,elapsed_s,score\n";
  for (const auto& [id, epochs] : {std::pair{1, 9}, std::pair{2, 27}}) {
    for (int e = 1; e <= epochs; ++e) curves += fmt::format("{},{},{},{}\n", id, e, 60 * e, e);
  }
  frugal::testing::WriteTestFile(dir / "curves.csv", curves);
}

TEST(StudyTableCheck, UnderScaleByRungsAreSharesOfEachScheduleSoMaxMayExceedTheCurves) {
  // max 54 is past both curves, but each trial runs its own `epochs` and completes there.
  frugal::testing::TempDir dir;
  WriteTwoSchedules(dir.path(), "config_id,epochs\n1,9\n2,27\n");
  ReplayStudy rs(dir.path(),
                 "scheduler: none\nsampler: random\nfidelity: {max: 54, scale_by: epochs}\n");
  auto study = rs.Create();
  ASSERT_TRUE(study) << study.error().message;
  auto summary = (*study)->Run({});
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->trials_by_state.at("completed"), 2);
  EXPECT_EQ(summary->best_value, 27);
}

TEST(StudyTableCheck, UnderScaleByAConfigWithoutALengthStillNeedsMax) {
  // Config 2 has no `epochs` (a conditional parameter it lacks), so it runs the ladder as
  // written, to max 54: no curve gets there.
  frugal::testing::TempDir dir;
  WriteTwoSchedules(dir.path(), "config_id,schedule,epochs\n1,cosine,9\n2,constant,\n");
  ReplayStudy rs(dir.path(),
                 "space:\n  schedule: {type: categorical, choices: [cosine, constant]}\n"
                 "  epochs: {type: int, low: 1, high: 54, when: {schedule: [cosine]}}\n"
                 "scheduler: none\nsampler: random\nfidelity: {max: 54, scale_by: epochs}\n");
  auto study = rs.Create();
  ASSERT_FALSE(study);
  EXPECT_NE(study.error().message.find("field 'fidelity.max': 54 is past"), std::string::npos)
      << study.error().message;
}

}  // namespace
}  // namespace frugal::tune

// The endgame of a budgeted study: money kept to finish the leader, the drain of paused trials
// once nothing is left to explore, leaders kept running at the cap, overshoot sized by each
// trial's own interval, the small-budget default, and what the study reports when nothing
// could complete (the best partial result) or as it goes (the best-so-far curve).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <functional>
#include <string>

#include "frugal/tune/study_check.h"
#include "frugal/tune/study_curve.h"
#include "replay_study.h"

namespace frugal::tune {
namespace {

/// Writes a table of `configs` configurations of `epochs` epochs; epoch `e` of configuration
/// `c` costs epoch_seconds(c, e). Scores rise toward a quality set by the configuration.
void WriteTable(const std::filesystem::path& dir, int configs, int epochs,
                const std::function<double(int, int)>& epoch_seconds,
                const std::string& extra_header = "",
                const std::function<std::string(int)>& extra = nullptr) {
  std::string config_csv = "config_id,lr" + extra_header + "\n";
  std::string curve_csv = "config_id,epoch,elapsed_s,score\n";
  for (int c = 0; c < configs; ++c) {
    const double lr = std::pow(10.0, -4.0 + 3.0 * std::fmod(c * 0.618034, 1.0));
    config_csv += fmt::format("{},{}{}\n", c, lr, extra ? "," + extra(c) : "");
    const double quality = 0.9 - 0.1 * std::pow(std::log10(lr) + 2.5, 2);
    double elapsed = 0;
    for (int e = 1; e <= epochs; ++e) {
      elapsed += epoch_seconds(c, e);
      curve_csv += fmt::format("{},{},{},{:.6f}\n", c, e, elapsed,
                               quality * (1 - std::exp(-e / (1.0 + c % 4))));
    }
  }
  frugal::testing::WriteTestFile(dir / "configs.csv", config_csv);
  frugal::testing::WriteTestFile(dir / "curves.csv", curve_csv);
}

StudySummary RunSpec(const std::filesystem::path& dir, const std::string& yaml,
                     std::unique_ptr<Study>* keep = nullptr) {
  ReplayStudy rs(dir, yaml);
  auto study = rs.Create();
  EXPECT_TRUE(study) << study.error().message;
  auto summary = (*study)->Run({});
  EXPECT_TRUE(summary) << summary.error().message;
  if (keep != nullptr) *keep = std::move(*study);
  return *summary;
}

/// Whether `t`'s loss at `rung` is within the top 1/3 (at least the best) of the trials'
/// results there: what the drain may still promote.
bool InTopThird(const std::vector<Trial>& trials, const Trial& t, int rung) {
  const auto k = static_cast<size_t>(rung);
  size_t results = 0, better = 0;
  for (const Trial& o : trials) {
    if (o.rung_losses.size() <= k || std::isnan(o.rung_losses[k])) continue;
    ++results;
    if (o.rung_losses[k] < t.rung_losses[k]) ++better;
  }
  return static_cast<double>(better) < std::max(1.0, std::ceil(static_cast<double>(results) / 3.0));
}

/// A $1,000 budget the drain did not spend: some trials are left paused, every one of them
/// behind the top third of its rung (none that could still win is left while money remains),
/// and what their promotion would have cost is reported as saved.
void ExpectOnlyTrialsThatCouldNotWinLeftPaused(const std::vector<Trial>& trials,
                                               const StudySummary& s) {
  int paused = 0;
  for (const Trial& t : trials) {
    if (t.state != TrialState::kPaused) continue;
    ++paused;
    EXPECT_FALSE(InTopThird(trials, t, t.RungReached())) << "trial " << t.id;
  }
  EXPECT_GT(paused, 0);
  EXPECT_GT(s.pruning_saved.dollars(), 0);
  EXPECT_LT(s.spend.dollars(), 1000);
}

TEST_F(StudyTest, AnExhaustedSearchSpaceDrainsOnlyThePausedTrialsThatCouldStillWin) {
  // The whole table costs about $390: the budget could train every configuration fully, but
  // a trial outside the top third of its rung (a diverged one) is not trained on: its pause
  // stands, and what its promotion would have cost is kept and reported as saved.
  ReplayStudy rs(dir_.path(),
                 "scheduler: asha\nresources: {price_per_hour: 3.60, workers: 4}\n"
                 "gates: {budget_usd: 1000}\n");
  auto study = rs.Create();
  ASSERT_TRUE(study) << study.error().message;
  auto s = (*study)->Run({});
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->stop_reason, "search space exhausted");
  EXPECT_EQ(s->trials_by_state.at("completed") + s->trials_by_state.at("failed") +
                s->trials_by_state.at("paused"),
            kConfigs);
  ExpectOnlyTrialsThatCouldNotWinLeftPaused((*study)->trials(), *s);
}

TEST_F(StudyTest, AMaxTrialsGateDrainsOnlyThePausedTrialsThatCouldStillWin) {
  // As above, but the starts close at max_trials (12 of the table's configurations) with money
  // left: the drain promotes the paused trials in the top third of their rung, and leaves the
  // rest (the diverged among them) paused, what they would have cost reported as saved.
  std::unique_ptr<Study> study;
  const StudySummary s = RunSpec(dir_.path(),
                                 "scheduler: asha\nresources: {price_per_hour: 3.60, workers: 4}\n"
                                 "gates: {budget_usd: 1000, max_trials: 12}\n",
                                 &study);
  ASSERT_TRUE(study);
  EXPECT_EQ(s.trials_started, 12);
  ExpectOnlyTrialsThatCouldNotWinLeftPaused(study->trials(), s);
}

TEST_F(StudyTest, ABudgetBelowTheTableIsSpentOnPromotionsOnceTheSpaceIsExhausted) {
  for (int seed = 1; seed <= 3; ++seed) {
    ReplayStudy rs(dir_.path(),
                   fmt::format("scheduler: asha\nseed: {}\nresources: {{price_per_hour: 3.60, "
                               "workers: 4}}\ngates: {{budget_usd: 150}}\n",
                               seed));
    auto study = rs.Create();
    ASSERT_TRUE(study) << study.error().message;
    auto s = (*study)->Run({});
    ASSERT_TRUE(s) << s.error().message;
    // It does not stop with money left while a paused trial that could still win could be
    // promoted: what is left is less than the cheapest rung a paused trial needs (at most a
    // few epochs), or every trial left paused is behind the top third of its rung.
    bool contender_paused = false;
    for (const Trial& t : (*study)->trials()) {
      if (t.state == TrialState::kPaused && InTopThird((*study)->trials(), t, t.RungReached()))
        contender_paused = true;
    }
    if (contender_paused) {
      EXPECT_GT(s->spend.dollars(), 150 - 3 * 27 * kMaxEpochSeconds / 1000) << "seed " << seed;
    }
    EXPECT_LE(s->overshoot.dollars(), kMaxEpochSeconds / 1000) << "seed " << seed;
  }
}

TEST_F(StudyTest, ASmallBudgetEndsWithACompletedTrial) {
  // 8 workers and budgets of 1.2 to 1.6 of the dearest full run ($4.86). The default prunes
  // nothing at this scale; a stated asha keeps the leader's finish in reserve (insured against
  // its pace growing until a trial has completed), and when a leader the endgame kept money for
  // diverges (seed 3: the first trial, the dearest configuration, fails at epoch 4), the
  // study explores again with what is left.
  for (const int budget : {6, 8}) {
    for (int seed = 1; seed <= 6; ++seed) {
      const StudySummary s = RunSpec(
          dir_.path(), fmt::format("seed: {}\nresources: {{price_per_hour: 3.60, workers: 8}}\n"
                                   "gates: {{budget_usd: {}}}\n",
                                   seed, budget));
      EXPECT_GE(s.trials_by_state.at("completed"), 1) << "seed " << seed;
      EXPECT_TRUE(s.best_value.has_value()) << "seed " << seed;
      const StudySummary a = RunSpec(
          dir_.path(),
          fmt::format("scheduler: asha\nseed: {}\nresources: {{price_per_hour: 3.60, workers: 8}}\n"
                      "gates: {{budget_usd: {}}}\n",
                      seed, budget));
      EXPECT_GE(a.trials_by_state.at("completed"), 1)
          << "asha, budget " << budget << " seed " << seed;
    }
  }
}

TEST(StudyEndgame, ALeaderWhoseEpochsGrowDearerStillFinishes) {
  // Progressive resizing: epoch e costs 10·e seconds, so a full run (3,780 s) costs 14× what
  // its first epoch's pace projects. The budget pays for two full runs.
  frugal::testing::TempDir dir;
  WriteTable(dir.path(), 60, 27, [](int, int e) { return 10.0 * e; });
  for (int seed = 1; seed <= 6; ++seed) {
    const StudySummary s = RunSpec(
        dir.path(), fmt::format("scheduler: asha\nseed: {}\nresources: {{price_per_hour: 3.60, "
                                "workers: 4}}\ngates: {{budget_usd: 7.56}}\n",
                                seed));
    EXPECT_GE(s.trials_by_state.at("completed"), 1) << "seed " << seed;
  }
}

TEST(StudyEndgame, OvershootStaysWithinOneIntervalWhenEpochCostDiffersByConfiguration) {
  // Even configurations take 10 s an epoch, odd ones 600 s: the reporting trial's interval is
  // no measure of the others'.
  frugal::testing::TempDir dir;
  WriteTable(dir.path(), 40, 20, [](int c, int) { return c % 2 == 0 ? 10.0 : 600.0; });
  for (const double budget : {3.0, 5.0, 8.0, 13.0}) {
    for (int seed = 1; seed <= 3; ++seed) {
      const StudySummary s = RunSpec(
          dir.path(),
          fmt::format("scheduler: none\nsampler: random\nseed: {}\nresources: {{price_per_hour: "
                      "3.60, workers: 4}}\nfidelity: {{max: 20, grace: 1}}\n"
                      "gates: {{budget_usd: {}}}\n",
                      seed, budget));
      // One interval of the dearest configuration: 600 s at $0.001 a second.
      EXPECT_LE(s.overshoot.dollars(), 0.60 + 1e-6) << "budget " << budget << " seed " << seed;
    }
  }
}

TEST_F(StudyTest, BelowTheCheapestFullRunTheBestPartialResultIsReported) {
  // The cheapest full run is 27 × 60 s = $1.62 at $3.60/h.
  const std::string yaml =
      "resources: {price_per_hour: 3.60, workers: 2}\n"
      "gates: {budget_usd: 1}\n";
  ReplayStudy rs(dir_.path(), yaml);
  auto spec = ParseStudySpec("name: t\nreplay: {dir: '" + dir_.path().string() +
                                 "'}\nobjective: {metric: score, direction: maximize}\n"
                                 "fidelity: {max: 27, grace: 1}\n" +
                                 yaml,
                             "t.yaml", dir_.path());
  ASSERT_TRUE(spec) << spec.error().message;
  const auto table = ReplayTable::Load(*spec->replay, "score", "epoch");
  ASSERT_TRUE(table);
  const auto item = FullRunItem(*spec, &*table);
  ASSERT_TRUE(item.has_value());
  EXPECT_FALSE(item->ok);
  EXPECT_NE(item->detail.find("$1.62"), std::string::npos) << item->detail;

  const StudySummary s = RunToEnd(yaml);
  EXPECT_FALSE(s.best_value.has_value());
  ASSERT_TRUE(s.best_partial.has_value());
  EXPECT_LT(s.best_partial->fidelity, s.best_partial->full_fidelity);
  const nlohmann::json doc = SummaryToJson(s);
  EXPECT_TRUE(doc["best_value"].is_null());
  EXPECT_EQ(doc["best_partial"]["partial"], true);
  EXPECT_EQ(doc["best_partial"]["fidelity"], s.best_partial->fidelity);
}

TEST_F(StudyTest, TheDefaultPrunesNothingWhenTheBudgetPaysFewerThanTenFullRuns) {
  // A full run costs $3.24 on average: $20 pays six.
  auto scheduler_of = [&](const std::string& yaml) {
    std::unique_ptr<Study> study;
    RunSpec(dir_.path(), yaml, &study);
    return study->spec().scheduler;
  };
  EXPECT_EQ(scheduler_of("resources: {price_per_hour: 3.60, workers: 4}\n"
                         "gates: {budget_usd: 20}\n"),
            SchedulerKind::kNone);
  EXPECT_EQ(scheduler_of("resources: {price_per_hour: 3.60, workers: 4}\n"
                         "gates: {budget_usd: 100}\n"),
            SchedulerKind::kAsha);
  // A stated scheduler is kept, whatever the budget.
  EXPECT_EQ(scheduler_of("scheduler: asha\nresources: {price_per_hour: 3.60, workers: 4}\n"
                         "gates: {budget_usd: 20}\n"),
            SchedulerKind::kAsha);
}

TEST_F(StudyTest, AResumedStudyKeepsTheSchedulerItStartedWith) {
  ReplayStudy rs(dir_.path(),
                 "resources: {price_per_hour: 3.60, workers: 4}\ngates: {budget_usd: 20}\n");
  auto halted = RunUntilHalted(rs, 5);
  EXPECT_EQ(halted->spec().scheduler, SchedulerKind::kNone);
  EXPECT_EQ((*rs.store().Load("t")).value("scheduler_kind", ""), "none");
  auto restored = rs.Restore();
  ASSERT_TRUE(restored) << restored.error().message;
  EXPECT_EQ((*restored)->spec().scheduler, SchedulerKind::kNone);
}

TEST_F(StudyTest, TheBestSoFarCurveIsKeptWithTheStateAndDrawn) {
  ReplayStudy rs(dir_.path(),
                 "resources: {price_per_hour: 3.60, workers: 4}\n"
                 "gates: {budget_usd: 200}\n");
  auto halted = RunUntilHalted(rs, 330);
  const std::vector<BestSoFar> before = halted->improvements();
  ASSERT_GE(before.size(), 2u);
  for (size_t i = 1; i < before.size(); ++i) {
    EXPECT_GE(before[i].spend.micros(), before[i - 1].spend.micros());
    EXPECT_GT(before[i].value, before[i - 1].value);  // maximized
  }
  auto restored = rs.Restore();
  ASSERT_TRUE(restored) << restored.error().message;
  ASSERT_EQ((*restored)->improvements().size(), before.size());
  EXPECT_EQ((*restored)->improvements().back().value, before.back().value);
  const nlohmann::json doc = SummaryToJson((*restored)->Summary());
  ASSERT_EQ(doc["best_so_far"].size(), before.size());
  EXPECT_EQ(doc["best_so_far"].back()["best_value"], before.back().value);
  const std::string svg = BestSoFarSvg(doc["best_so_far"], "score", 60.0, 200.0);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("<path d=\"M"), std::string::npos);
  EXPECT_EQ(svg.find("no trial has completed"), std::string::npos);
  EXPECT_NE(BestSoFarSvg(nlohmann::json::array(), "score", 1.0, std::nullopt)
                .find("no trial has completed"),
            std::string::npos);
}

TEST(StudyEndgame, AResumedStudyKeepsTheReserveItLearned) {
  // Progressive resizing (epoch e costs 10·e s): the reserve rests on the pace the trials
  // showed (each one's last interval, the growth completed trials showed), which the trials'
  // own records do not hold.
  frugal::testing::TempDir dir;
  WriteTable(dir.path(), 60, 27, [](int, int e) { return 10.0 * e; });
  bool checked = false;
  for (const int events : {60, 120, 180}) {
    ReplayStudy rs(dir.path(),
                   "scheduler: asha\nresources: {price_per_hour: 3.60, workers: 4}\n"
                   "gates: {budget_usd: 40}\n");
    const double before = RunUntilHalted(rs, events)->LeaderReserveSeconds();
    auto restored = rs.Restore();
    ASSERT_TRUE(restored) << restored.error().message;
    EXPECT_DOUBLE_EQ((*restored)->LeaderReserveSeconds(), before) << events << " events";
    // Without the learned pace (a state saved before it was kept) the reserve differs: the
    // check above is not met by chance.
    nlohmann::json state = *rs.store().Load("t");
    state.erase("pace");
    ReplayTable table = *ReplayTable::Load(ReplaySource{dir.path()}, "score", "epoch");
    ReplayRunner runner(table, 27);
    MemoryStudyStore store;
    auto spec = ParseStudySpec(state.at("spec_yaml").get<std::string>(), "test.yaml", dir.path());
    ASSERT_TRUE(spec) << spec.error().message;
    auto forgetful = Study::Restore(state, *spec, runner, store, &table);
    ASSERT_TRUE(forgetful) << forgetful.error().message;
    if (before > 0 && (*forgetful)->LeaderReserveSeconds() != before) checked = true;
  }
  EXPECT_TRUE(checked);
}

TEST(StudyEndgame, AConfigurationTooDearToFinishIsStoppedAndAnotherTried) {
  // Without pruning (a budget of under ten full runs): configurations 0-3 cost 200 s an epoch
  // (a full run of 20 epochs: $4 at $3.60/h), the rest 10 s ($0.20). Whichever comes first,
  // $3 cannot finish a dear one: it is stopped at its first report, not at the cap, and the
  // money goes to configurations that complete.
  frugal::testing::TempDir dir;
  WriteTable(dir.path(), 30, 20, [](int c, int) { return c < 4 ? 200.0 : 10.0; });
  for (int seed = 1; seed <= 12; ++seed) {
    const StudySummary s = RunSpec(
        dir.path(), fmt::format("seed: {}\nresources: {{price_per_hour: 3.60, workers: 8}}\n"
                                "fidelity: {{max: 20, grace: 1}}\ngates: {{budget_usd: 3}}\n",
                                seed));
    EXPECT_GE(s.trials_by_state.at("completed"), 5) << "seed " << seed;
    EXPECT_TRUE(s.best_value.has_value()) << "seed " << seed;
    // One interval of a dear configuration at most.
    EXPECT_LE(s.overshoot.dollars(), 0.2 + 1e-6) << "seed " << seed;
  }
}

TEST(StudyEndgame, DearDrawsDoNotEndTheStudyWithMoneyForCheaperConfigurations) {
  // cnn_shapes at 2% of the table, seeds 12 and 21: the first configurations drawn were dear,
  // and a start then had to fit one report at the dearest pace seen, which the money left could
  // not pay: the study ended with no completed trial, and the price of several cheap full runs
  // unspent. Here a configuration's `width` (8, 32 or 256) sets its epoch at 2, 8 or 64 s; a
  // full run of 10 epochs costs 20, 80 or 640 s, and $0.13 pays 130 s at $3.60/h. The study
  // predicts each configuration's pace from those measured nearby (by configs.csv's columns)
  // and, with money too short for a typical one, draws among those it can finish.
  frugal::testing::TempDir dir;
  const auto width = [](int c) { return std::array{8, 32, 256}[static_cast<size_t>(c % 3)]; };
  WriteTable(
      dir.path(), 48, 10, [&](int c, int) { return width(c) / 4.0; }, ",width",
      [&](int c) { return std::to_string(width(c)); });
  int empty = 0;
  for (int seed = 1; seed <= 30; ++seed) {
    const StudySummary s = RunSpec(
        dir.path(), fmt::format("seed: {}\nresources: {{price_per_hour: 3.60, workers: 8}}\n"
                                "fidelity: {{max: 10, grace: 1}}\ngates: {{budget_usd: 0.13}}\n",
                                seed));
    if (!s.best_value) {
      ++empty;
      EXPECT_TRUE(s.best_partial.has_value()) << "seed " << seed;
    }
    // One interval of the dearest configuration (64 s) at most.
    EXPECT_LE(s.overshoot.dollars(), 0.064 + 1e-6) << "seed " << seed;
  }
  // 4 of 30 still draw only dear configurations before the money runs out (9 before the
  // change): a draw is blind until a cheaper one has been measured.
  EXPECT_LE(empty, 5);
}

TEST(ReplayTableColumns, ConfigurationsArePointsOfTheirColumns) {
  frugal::testing::TempDir dir;
  frugal::testing::WriteTestFile(dir.path() / "configs.csv",
                                 "config_id,lr,width,opt,status\n"
                                 "a,0.001,16,adam,OK\nb,0.1,16,sgd,OK\nc,0.01,16,adam,OK\n");
  frugal::testing::WriteTestFile(dir.path() / "curves.csv",
                                 "config_id,epoch,elapsed_s,score\n"
                                 "a,1,1,0.5\nb,1,1,0.5\nc,1,1,0.5\n");
  ReplaySource source;
  source.dir = dir.path();
  const auto table = ReplayTable::Load(source, "score", "epoch");
  ASSERT_TRUE(table) << table.error().message;
  const auto points = table->ColumnPoints();
  ASSERT_EQ(points.size(), 3U);
  // lr spans 100×: in logs, 0, 1 and 0.5; `width` and `status` never vary; `opt` is one
  // coordinate per value (adam, sgd), 1/√2 for the row's own.
  ASSERT_EQ(points[0].size(), 3U);
  EXPECT_NEAR(points[0][0], 0.0, 1e-9);
  EXPECT_NEAR(points[1][0], 1.0, 1e-9);
  EXPECT_NEAR(points[2][0], 0.5, 1e-9);
  EXPECT_NEAR(points[0][1], std::sqrt(0.5), 1e-9);
  EXPECT_NEAR(points[0][2], 0.0, 1e-9);
  EXPECT_NEAR(points[1][1], 0.0, 1e-9);
  EXPECT_NEAR(points[1][2], std::sqrt(0.5), 1e-9);
}

TEST(ReplayTableSchedule, AColumnEqualToWhereEachCurveEndsIsTheScheduleLength) {
  frugal::testing::TempDir dir;
  // Configuration c trains 10 + c epochs; `epochs` says so, `width` does not vary with it, and
  // `n_logged` is the same in every row.
  std::string configs = "config_id,epochs,width,n_logged\n";
  std::string curves = "config_id,epoch,elapsed_s,score\n";
  for (int c = 0; c < 6; ++c) {
    configs += fmt::format("{},{},{},{}\n", c, 10 + c, 64 << (c % 2), 10);
    for (int e = 1; e <= 10 + c; ++e) curves += fmt::format("{},{},{},{}\n", c, e, e * 5, 0.1 * e);
  }
  frugal::testing::WriteTestFile(dir.path() / "configs.csv", configs);
  frugal::testing::WriteTestFile(dir.path() / "curves.csv", curves);
  const auto table = ReplayTable::Load(ReplaySource{dir.path()}, "score", "epoch");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(table->ScheduleLengthColumn("epoch"), "epochs");
  EXPECT_EQ(table->FirstReport(), 1.0);

  // Every curve the same length: no column is needed (nor found).
  frugal::testing::TempDir flat;
  WriteTable(
      flat.path(), 6, 8, [](int, int) { return 5.0; }, ",epochs",
      [](int) { return std::string("8"); });
  const auto same = ReplayTable::Load(ReplaySource{flat.path()}, "score", "epoch");
  ASSERT_TRUE(same) << same.error().message;
  EXPECT_FALSE(same->ScheduleLengthColumn("epoch").has_value());
}

}  // namespace
}  // namespace frugal::tune

#include "frugal/tune/study.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <string_view>

#include "replay_study.h"

namespace frugal::tune {
namespace {

TEST_F(StudyTest, NeverSpendsPastTheBudgetByMoreThanOneInterval) {
  // $3.60 per GPU-hour: one GPU-second costs $0.001; the dearest epoch costs $0.18.
  for (const char* scheduler : {"asha", "asha-stop", "sha", "hyperband", "median", "none"}) {
    for (int workers : {1, 5}) {
      for (int seed = 1; seed <= 3; ++seed) {
        const StudySummary s = RunToEnd(fmt::format(
            "scheduler: {}\nseed: {}\nresources: {{price_per_hour: 3.60, workers: {}}}\n"
            "gates: {{budget_usd: 25}}\n",
            scheduler, seed, workers));
        SCOPED_TRACE(fmt::format("{} workers={} seed={}", scheduler, workers, seed));
        EXPECT_LE(s.spend.dollars(), 25.0 + kMaxEpochSeconds * 0.001);
        EXPECT_GE(s.spend.dollars(), 20.0) << "the budget should be used, not left idle";
        EXPECT_EQ(s.stop_reason, "budget");
        EXPECT_EQ(s.trials_by_state.at("running"), 0);
      }
    }
  }
}

TEST_F(StudyTest, NothingStartsThatTheBudgetCannotPayFor) {
  // With a cost prior of 2 min per epoch at $3.60 per hour, the first rung (3 epochs) is
  // expected to cost $0.36: a $0.30 budget starts nothing at all.
  const StudySummary s = RunToEnd(
      "fidelity: {max: 27, grace: 3, reduction_factor: 3, cost_per_unit: 2m}\n"
      "gates: {budget_usd: 0.30}\n");
  EXPECT_EQ(s.trials_started, 0);
  EXPECT_EQ(s.spend, Money{});
  EXPECT_EQ(s.stop_reason, "budget");
}

TEST_F(StudyTest, GpuHourCapBindsWhenTighter) {
  const StudySummary s = RunToEnd(
      "resources: {price_per_hour: 3.60, gpus: 2, workers: 3}\n"
      "gates: {budget_usd: 1000, max_gpu_hours: 4}\n");
  EXPECT_LE(s.gpu_hours, 4.0 + 2 * kMaxEpochSeconds / 3600);
  EXPECT_GE(s.gpu_hours, 3.0);
}

TEST_F(StudyTest, MaxTrialsCapsStarts) {
  const StudySummary s = RunToEnd("gates: {max_trials: 17}\n");
  EXPECT_EQ(s.trials_started, 17);
  EXPECT_EQ(s.stop_reason, "scheduler finished");
}

TEST_F(StudyTest, NoPruningMeansNothingSavedAndEverythingCompletesOrFails) {
  const StudySummary s = RunToEnd("scheduler: none\ngates: {max_trials: 20}\n");
  EXPECT_EQ(s.pruning_saved, Money{});
  EXPECT_EQ(s.trials_by_state.at("completed") + s.trials_by_state.at("failed"), 20);
  EXPECT_GT(s.trials_by_state.at("failed"), 0);  // every seventh config diverges
}

TEST_F(StudyTest, BracketsThatFinishLeaveNoTrialPaused) {
  // The member whose report closes a rung may be pruned by that very decision: it ends
  // pruned, not paused waiting for a promotion that cannot come.
  for (const char* scheduler : {"sha", "hyperband"}) {
    const StudySummary s = RunToEnd(std::string("scheduler: ") + scheduler +
                                    "\nresources: {price_per_hour: 3.60, workers: 3}\n"
                                    "gates: {max_trials: 30}\n");
    EXPECT_EQ(s.stop_reason, "scheduler finished") << scheduler;
    EXPECT_EQ(s.trials_by_state.at("paused"), 0) << scheduler;
    EXPECT_GT(s.trials_by_state.at("pruned"), 0) << scheduler;
  }
}

TEST_F(StudyTest, PruningSavesAgainstFullFidelity) {
  const StudySummary s = RunToEnd(
      "scheduler: asha\nresources: {price_per_hour: 3.60, workers: 4}\n"
      "gates: {budget_usd: 40}\n");
  EXPECT_GT(s.trials_by_state.at("paused"), 0);
  EXPECT_GT(s.promotions, 0);
  EXPECT_GT(s.pruning_saved.dollars(), s.spend.dollars());
  ASSERT_TRUE(s.best_value);
}

TEST_F(StudyTest, PlateauStopsTheStudyEarly) {
  const StudySummary s = RunToEnd("scheduler: none\ngates: {plateau: {epsilon: 0.5, trials: 5}}\n");
  EXPECT_EQ(s.stop_reason, "plateau");
  EXPECT_LT(s.trials_started, 12);
}

TEST_F(StudyTest, PlateauBySpendStopsTheStudyEarly) {
  const StudySummary s = RunToEnd(
      "scheduler: none\ngates: {budget_usd: 200, plateau: {epsilon: 0.5, spend_usd: 10}}\n");
  EXPECT_EQ(s.stop_reason, "plateau");
  // The first completed trial sets the best; about $10 later nothing has beaten it by 0.5.
  EXPECT_LT(s.spend.dollars(), 20.0);
}

TEST_F(StudyTest, TrialMaxWallStopsLongTrials) {
  const StudySummary s = RunToEnd("scheduler: none\ngates: {max_trials: 9, trial_max_wall: 20m}\n");
  // Epochs of 60, 120 or 180 s: 27 epochs take 27–81 min, so every trial that does not diverge hits
  // the 20 min wall.
  EXPECT_EQ(s.trials_by_state.at("stopped_at_wall") + s.trials_by_state.at("failed"), 9);
  EXPECT_GT(s.trials_by_state.at("stopped_at_wall"), 0);
  EXPECT_EQ(s.trials_by_state.at("stopped_at_budget"), 0);
}

TEST_F(StudyTest, AReplayedTrialStopsAtItsWallEvenBeforeItsFirstReport) {
  // A 90 s wall against epochs of 60, 120 or 180 s: the slower trials reach the wall inside
  // their first epoch, before any accrual could tell the study; the runner stops them there.
  ReplayStudy rs(dir_.path(), "scheduler: none\ngates: {max_trials: 12, trial_max_wall: 90s}\n");
  auto study = rs.Create();
  ASSERT_TRUE(study) << study.error().message;
  auto summary = (*study)->Run({});
  ASSERT_TRUE(summary) << summary.error().message;
  int at_wall_unreported = 0;
  for (const Trial& t : (*study)->trials()) {
    EXPECT_LE(t.cost_seconds, 90.0 + 1e-6) << "trial " << t.id;
    if (t.state == TrialState::kStoppedAtWall && !t.last_value) ++at_wall_unreported;
  }
  EXPECT_GT(at_wall_unreported, 0);
  EXPECT_EQ(summary->stop_reason, "scheduler finished");  // a trial's wall is no budget stop
}

TEST_F(StudyTest, HaltedStudyResumesToTheSameResultWithRungStateIntact) {
  // The last case leaves grace unstated: an early rung at epoch 1, judged before the halt.
  for (const char* scheduler : {"asha", "asha-stop", "sha", "hyperband", "median",
                                "asha\nfidelity: {max: 27}", "asha\nsampler: gp"}) {
    SCOPED_TRACE(scheduler);
    const std::string yaml = fmt::format(
        "scheduler: {}\nresources: {{price_per_hour: 3.60, workers: 3}}\n"
        "gates: {{budget_usd: 60}}\n{}",
        scheduler,
        std::string_view(scheduler).find("sampler") == std::string_view::npos ? "sampler: tpe\n"
                                                                              : "");
    const StudySummary whole = RunToEnd(yaml);

    ReplayStudy rs(dir_.path(), yaml);
    const std::unique_ptr<Study> first = RunUntilHalted(rs, 250);
    const nlohmann::json saved = *rs.store().Load("t");
    EXPECT_EQ(saved["status"], "interrupted");
    if (saved["scheduler"].contains("pruning_from")) {
      EXPECT_EQ(saved["scheduler"]["pruning_from"], 0) << saved["scheduler"].dump();
      EXPECT_FALSE(saved["scheduler"]["cut"].empty());
    }
    auto resumed = rs.Restore();
    ASSERT_TRUE(resumed) << resumed.error().message;
    // The rung results recorded before the halt are all there after it.
    ASSERT_EQ((*resumed)->trials().size(), first->trials().size());
    for (size_t i = 0; i < first->trials().size(); ++i) {
      EXPECT_EQ(TrialToJson((*resumed)->trials()[i]), TrialToJson(first->trials()[i]));
    }
    auto rest = (*resumed)->Run({});
    ASSERT_TRUE(rest) << rest.error().message;
    EXPECT_EQ(rest->best_value, whole.best_value);
    EXPECT_EQ(rest->spend, whole.spend);
    EXPECT_EQ(rest->trials_by_state, whole.trials_by_state);
    EXPECT_EQ(rest->promotions, whole.promotions);
  }
}

TEST_F(StudyTest, AStudySavedBeforeEarlyRungsResumesOnItsOwnLadder) {
  // Version 1 states come from before early rungs: the same spec text, an unstated grace, then
  // meant no rung below it. Such a study resumes as it started, not on today's default ladder.
  const std::string common =
      "scheduler: asha\nsampler: tpe\nresources: {price_per_hour: 3.60, workers: 3}\n"
      "gates: {budget_usd: 60}\n";
  const std::string then = common + "fidelity: {max: 27, early_rungs: off}\n";
  const std::string now = common + "fidelity: {max: 27}\n";
  const StudySummary whole = RunToEnd(then);

  ReplayStudy old_build(dir_.path(), then);
  RunUntilHalted(old_build, 250);
  nlohmann::json saved = *old_build.store().Load("t");
  saved["version"] = 1;
  saved.erase("early_rungs");
  saved["spec_yaml"] = "name: t\n" + now;

  ReplayStudy new_build(dir_.path(), now);
  ASSERT_TRUE(new_build.store().Save("t", saved));
  auto resumed = new_build.Restore();
  ASSERT_TRUE(resumed) << resumed.error().message;
  auto rest = (*resumed)->Run({});
  ASSERT_TRUE(rest) << rest.error().message;
  EXPECT_EQ(rest->best_value, whole.best_value);
  EXPECT_EQ(rest->spend, whole.spend);
  EXPECT_EQ(rest->trials_by_state, whole.trials_by_state);
  // It saves as the current version, still without the early rung, so it resumes again.
  const nlohmann::json resaved = *new_build.store().Load("t");
  EXPECT_EQ(resaved["version"], kStudyStateVersion);
  EXPECT_EQ(resaved["early_rungs"], false);
  EXPECT_EQ(resaved["trials"][0]["rung_losses"].size(), saved["trials"][0]["rung_losses"].size());

  // A state whose trials lack the rungs its ladder claims is refused.
  saved["version"] = kStudyStateVersion;
  saved["early_rungs"] = true;
  ASSERT_TRUE(new_build.store().Save("t", saved));
  auto mismatched = new_build.Restore();
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().message.find("rungs"), std::string::npos);
}

/// A replay whose trials, stopped in flight, take `kStopSeconds` more to checkpoint and exit in
/// the background: their time is told later, between other trials' events.
class BackgroundStopRunner final : public ForwardingRunner {
 public:
  static constexpr double kStopSeconds = 7.0;
  explicit BackgroundStopRunner(ReplayRunner& inner) : ForwardingRunner(inner) {}
  Result<void> Launch(const Trial& t, double from, double to) override {
    // As a real runner: a trial's new segment waits until its released one has ended.
    for (const Progress& r : released_) {
      if (r.trial_id == t.id) {
        held_.emplace(t.id, Held{t, from, to});
        return {};
      }
    }
    return inner_.Launch(t, from, to);
  }
  Result<std::optional<Progress>> WaitNext() override {
    // A released segment ends after two more events of the others (or when none is left).
    if (!released_.empty() && (++tick_ % 3 == 0)) return TakeReleased();
    auto next = inner_.WaitNext();
    if (next && !*next && !released_.empty()) return TakeReleased();
    return next;
  }
  bool StopInBackground(int64_t id) override {
    inner_.Stop(id);
    released_.push_back(Progress{id, 0.0, std::nullopt, kStopSeconds, SegmentEnd::kReleased, {}});
    ++stops_;
    return true;
  }
  int stops() const { return stops_; }

 private:
  struct Held {
    Trial trial;
    double from;
    double to;
  };
  Result<std::optional<Progress>> TakeReleased() {
    Progress p = released_.front();
    released_.pop_front();
    if (const auto it = held_.find(p.trial_id); it != held_.end()) {
      FRUGAL_TRY(inner_.Launch(it->second.trial, it->second.from, it->second.to));
      held_.erase(it);
    }
    return std::optional<Progress>(p);
  }
  std::deque<Progress> released_;
  std::map<int64_t, Held> held_;
  int tick_ = 0;
  int stops_ = 0;
};

TEST_F(StudyTest, TrialsStoppedInTheBackgroundAreChargedTheirStopAndDecideNothingMore) {
  // asha-stop and median never resume a stopped trial, so the decisions are the replay's own;
  // asha's later promotions wait for the stopped segment to end, which may change them.
  for (const char* scheduler : {"asha-stop", "median", "asha"}) {
    const bool exact = std::string_view(scheduler) != "asha";
    SCOPED_TRACE(scheduler);
    const std::string yaml = fmt::format(
        "scheduler: {}\nresources: {{price_per_hour: 3.60, workers: 3}}\n"
        "gates: {{max_trials: 40}}\n",
        scheduler);
    const StudySummary base = RunToEnd(yaml);

    ReplayStudy rs(dir_.path(), yaml);
    BackgroundStopRunner runner(rs.replay());
    auto study = rs.CreateWith(runner);
    ASSERT_TRUE(study) << study.error().message;
    auto s = (*study)->Run({});
    ASSERT_TRUE(s) << s.error().message;
    ASSERT_GT(runner.stops(), 0);
    EXPECT_EQ(s->trials_by_state.at("running"), 0);
    // Every stop is charged its time (one GPU-second is $0.001).
    const double stops = runner.stops() * BackgroundStopRunner::kStopSeconds * 0.001;
    double trials = 0;
    for (const Trial& t : (*study)->trials()) trials += t.spend.dollars();
    EXPECT_NEAR(trials, s->spend.dollars(), 1e-3);
    if (!exact) continue;
    EXPECT_EQ(s->trials_by_state, base.trials_by_state);
    EXPECT_EQ(s->best_value, base.best_value);
    EXPECT_NEAR(s->spend.dollars(), base.spend.dollars() + stops, 1e-6);
  }
}

TEST_F(StudyTest, WithSaveAfterStartEveryStartedTrialIsSavedBeforeTheNextEvent) {
  // However long the save interval, a started trial is in the saved state before anything else
  // happens, so a tuner killed afterwards never leaves a trial that resume does not know of.
  for (const bool save_after_start : {false, true}) {
    ReplayStudy rs(dir_.path(), "scheduler: asha\nresources: {price_per_hour: 3.60, workers: 3}\n");
    auto study = rs.Create();
    ASSERT_TRUE(study) << study.error().message;
    size_t unsaved_events = 0, events = 0, trials_before = 0;
    FakeClock clock;  // never advanced: the interval alone never saves
    RunOptions options;
    options.save_every_ms = 1000;
    options.save_after_start = save_after_start;
    options.clock = &clock;
    // Trials started after the previous event were started before this one was waited for.
    options.on_event = [&](const Study& s) {
      ++events;
      const auto saved = rs.store().Load("t");
      if (!saved || (*saved)["trials"].size() < trials_before) ++unsaved_events;
      trials_before = s.trials().size();
    };
    ASSERT_TRUE((*study)->Run(options));
    ASSERT_GT(events, 10u);
    if (save_after_start) {
      EXPECT_EQ(unsaved_events, 0u);
    } else {
      EXPECT_GT(unsaved_events, 0u);  // the interval alone leaves started trials unsaved
    }
  }
}

TEST_F(StudyTest, TheSaveIntervalIsTimedByTheClockItIsGiven) {
  // Each event moves the fake clock past the interval: from the second event on, the state is
  // saved before every wait, so what is loaded after an event knows every trial started before
  // it (before the first, the clock has not moved and nothing is saved).
  ReplayStudy rs(dir_.path(), "scheduler: asha\nresources: {price_per_hour: 3.60, workers: 3}\n");
  auto study = rs.Create();
  ASSERT_TRUE(study) << study.error().message;
  FakeClock clock;
  RunOptions options;
  options.save_every_ms = 1000;
  options.clock = &clock;
  size_t events = 0, unsaved_events = 0, trials_before = 0;
  options.on_event = [&](const Study& s) {
    ++events;
    const auto saved = rs.store().Load("t");
    if (events > 1 && (!saved || (*saved)["trials"].size() < trials_before)) ++unsaved_events;
    trials_before = s.trials().size();
    clock.Advance(std::chrono::milliseconds(1000));
  };
  ASSERT_TRUE((*study)->Run(options));
  ASSERT_GT(events, 10u);
  EXPECT_EQ(unsaved_events, 0u);
}

TEST_F(StudyTest, SpaceSnapsSamplesToUntriedTableRows) {
  const StudySummary s = RunToEnd(
      "space:\n  lr: {type: float, low: 1.0e-4, high: 0.1, scale: log}\n"
      "  width: {type: categorical, choices: [32, 64, 128, 256]}\n"
      "sampler: halton\nscheduler: none\ngates: {max_trials: 30}\n");
  EXPECT_EQ(s.trials_started, 30);
}

/// (sampler coordinate, table row) of each trial of a study without a space.
std::vector<std::pair<double, int>> OpaqueRowsTried(const std::filesystem::path& dir,
                                                    const std::string& yaml) {
  ReplayStudy rs(dir, yaml);
  auto study = rs.Create();
  EXPECT_TRUE(study) << study.error().message;
  EXPECT_TRUE((*study)->Run({}));
  std::vector<std::pair<double, int>> rows;
  for (const Trial& t : (*study)->trials())
    rows.emplace_back(t.point.at(0), std::stoi(t.source_id));
  return rows;
}

TEST_F(StudyTest, OpaqueTableRowsComeInTheStudysOwnShuffledOrder) {
  // The sampler's coordinate must not map onto the file's row order: benchmark files are often
  // grouped or sorted upstream, and a sampler that learns "low coordinates are good" would be
  // learning the file, not the configurations.
  const std::string yaml = "scheduler: none\ngates: {max_trials: 40}\nsampler: random\n";
  const auto tried = OpaqueRowsTried(dir_.path(), yaml + "seed: 1\n");
  ASSERT_EQ(tried.size(), 40u);
  EXPECT_EQ(OpaqueRowsTried(dir_.path(), yaml + "seed: 1\n"), tried);  // reproducible
  EXPECT_NE(OpaqueRowsTried(dir_.path(), yaml + "seed: 2\n"), tried);
  // Kendall's τ between coordinate and row: near 1 if the coordinate walked the file in order.
  int concordant = 0, discordant = 0;
  for (size_t i = 0; i < tried.size(); ++i) {
    for (size_t j = i + 1; j < tried.size(); ++j) {
      const double sign = (tried[i].first - tried[j].first) * (tried[i].second - tried[j].second);
      (sign > 0 ? concordant : discordant) += 1;
    }
  }
  const double tau = static_cast<double>(concordant - discordant) / (concordant + discordant);
  EXPECT_LT(std::abs(tau), 0.3) << "τ = " << tau;
}

TEST_F(StudyTest, SpaceParameterMissingFromTableIsBadInput) {
  ReplayStudy rs(dir_.path(), "space:\n  dropout: {type: float, low: 0, high: 0.5}\n");
  auto study = rs.Create();
  ASSERT_FALSE(study);
  EXPECT_EQ(study.error().code, ErrorCode::kBadInput);
  EXPECT_NE(study.error().message.find("dropout"), std::string::npos);
}

// Three configurations with their own schedule lengths (an `epochs` column) and scores that
// name the epoch they were read at: config 1 (9 epochs) scores 100 + epoch, config 2 (27
// epochs) scores epoch, config 3 (2 epochs) scores 200 + epoch. Each epoch costs 60 s.
void WriteSchedulesTable(const std::filesystem::path& dir) {
  frugal::testing::WriteTestFile(dir / "configs.csv", "config_id,epochs\n1,9\n2,27\n3,2\n");
  std::string curves = "config_id,epoch,elapsed_s,score\n";
  const std::pair<int, int> configs[] = {{1, 9}, {2, 27}, {3, 2}};
  for (const auto& [id, epochs] : configs) {
    const int base = id == 1 ? 100 : id == 3 ? 200 : 0;
    for (int e = 1; e <= epochs; ++e)
      curves += fmt::format("{},{},{},{}\n", id, e, 60 * e, base + e);
  }
  frugal::testing::WriteTestFile(dir / "curves.csv", curves);
}

/// Six configurations with a conditional parameter: momentum only in the SGD rows, empty in
/// the AdamW ones. `lr_of_row_2` lets a test spoil one cell.
void WriteConditionalTable(const std::filesystem::path& dir, const std::string& lr_of_row_2) {
  frugal::testing::WriteTestFile(dir / "configs.csv",
                                 "config_id,optimizer,lr,momentum\n"
                                 "1,adamw,0.001,\n" +
                                     fmt::format("2,sgd,{},0.9\n", lr_of_row_2) +
                                     "3,adamw,0.01,\n4,sgd,0.01,0.95\n5,adamw,0.0001,\n"
                                     "6,sgd,0.5,0.8\n");
  std::string curves = "config_id,epoch,elapsed_s,score\n";
  for (int id = 1; id <= 6; ++id) {
    for (int e = 1; e <= 9; ++e) curves += fmt::format("{},{},{},{}\n", id, e, 60 * e, id * e);
  }
  frugal::testing::WriteTestFile(dir / "curves.csv", curves);
}

constexpr const char* kConditionalSpace =
    "space:\n"
    "  optimizer: {type: categorical, choices: [adamw, sgd]}\n"
    "  lr: {type: float, low: 1.0e-4, high: 1, scale: log}\n"
    "  momentum: {type: float, low: 0.8, high: 0.99, when: {optimizer: [sgd]}}\n"
    "sampler: tpe\nscheduler: none\nfidelity: {max: 9}\n";

TEST(StudyReplaySpace, EmptyCellsAreInactiveConditionalParameters) {
  frugal::testing::TempDir dir;
  WriteConditionalTable(dir.path(), "0.1");
  const auto table =
      ReplayTable::Load(ReplaySource{dir.path(), "config_id", "elapsed_s"}, "score", "epoch");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_FALSE(table->configs()[0].params.contains("momentum"));
  EXPECT_TRUE(table->configs()[1].params.contains("momentum"));

  ReplayStudy rs(dir.path(), kConditionalSpace);
  auto study = rs.Create();
  ASSERT_TRUE(study) << study.error().message;
  auto summary = (*study)->Run({});
  ASSERT_TRUE(summary) << summary.error().message;
  EXPECT_EQ(summary->trials_by_state.at("completed"), 6);
  EXPECT_EQ(summary->best_value, 54);  // config 6 ends at 6 × 9
}

TEST(StudyReplaySpace, ANonNumberInANumericColumnIsBadInputNamingTheRow) {
  frugal::testing::TempDir dir;
  WriteConditionalTable(dir.path(), "fast");
  ReplayStudy rs(dir.path(), kConditionalSpace);
  auto study = rs.Create();
  ASSERT_FALSE(study);
  EXPECT_EQ(study.error().code, ErrorCode::kBadInput);
  // The table's line and column, and the spec's line of the parameter.
  EXPECT_NE(study.error().message.find("configs.csv:3: column 'lr' (config '2'): 'fast' is not a "
                                       "number, as space parameter 'lr' at test.yaml:6:"),
            std::string::npos)
      << study.error().message;
}

TEST(StudyReplaySpace, AValueOutsideTheChoicesOrAMissingColumnNamesTheLineOfEach) {
  frugal::testing::TempDir dir;
  WriteConditionalTable(dir.path(), "0.1");
  // Row 2 of the table (line 3) tried an optimizer the space does not have.
  frugal::testing::WriteTestFile(dir.path() / "configs.csv",
                                 "config_id,optimizer,lr,momentum\n1,adamw,0.001,\n"
                                 "2,lion,0.1,\n3,adamw,0.01,\n4,sgd,0.01,0.95\n"
                                 "5,adamw,0.0001,\n6,sgd,0.5,0.8\n");
  ReplayStudy outside(dir.path(), kConditionalSpace);
  auto study = outside.Create();
  ASSERT_FALSE(study);
  EXPECT_EQ(study.error().code, ErrorCode::kBadInput);
  EXPECT_NE(study.error().message.find("configs.csv:3: column 'optimizer' (config '2'): 'lion' is "
                                       "not one of the choices of space parameter 'optimizer' "
                                       "at test.yaml:5:"),
            std::string::npos)
      << study.error().message;

  WriteConditionalTable(dir.path(), "0.1");
  std::string space = kConditionalSpace;
  space.insert(space.find("sampler:"), "  warmup: {type: int, low: 0, high: 5}\n");
  ReplayStudy missing(dir.path(), space);
  study = missing.Create();
  ASSERT_FALSE(study);
  EXPECT_NE(study.error().message.find("test.yaml:8:"), std::string::npos) << study.error().message;
  EXPECT_NE(study.error().message.find("space parameter 'warmup' is not a column of the replay "
                                       "table (no value in "),
            std::string::npos)
      << study.error().message;
}

TEST(StudyScaleBy, TrialsReportAtTheirOwnShareOfEachRung) {
  frugal::testing::TempDir dir;
  WriteSchedulesTable(dir.path());
  // One synchronous bracket of all three: each reports rung 0, the best one goes on.
  const std::string yaml = "scheduler: {type: sha, bracket_size: 3}\nsampler: random\n";
  ReplayStudy scaled(dir.path(), yaml +
                                     "fidelity: {max: 27, grace: 3, reduction_factor: 3, "
                                     "scale_by: epochs}\n");
  auto study = scaled.Create();
  ASSERT_TRUE(study) << study.error().message;
  ASSERT_TRUE((*study)->Run({}));
  std::map<std::string, const Trial*> by_id;
  for (const Trial& t : (*study)->trials()) by_id[t.source_id] = &t;
  ASSERT_EQ(by_id.size(), 3u);
  // Rungs 3, 9, 27 of the longest schedule are 1, 3, 9 epochs of a 9-epoch one.
  EXPECT_EQ(by_id["1"]->rung_losses.at(0), -101);
  EXPECT_EQ(by_id["2"]->rung_losses.at(0), -3);
  // The 2-epoch schedule reports rungs 0 and 1 at epoch 1 (it trains once for both) and
  // completes at its own end.
  const Trial& shortest = *by_id["3"];
  EXPECT_EQ(shortest.rung_losses, (std::vector<double>{-201, -201, -202}));
  EXPECT_EQ(shortest.state, TrialState::kCompleted);
  EXPECT_DOUBLE_EQ(shortest.cost_seconds, 120.0);
  EXPECT_NE(by_id["1"]->state, TrialState::kCompleted);
  EXPECT_NE(by_id["2"]->state, TrialState::kCompleted);

  // Without scale_by every trial reports rung 0 at epoch 3, and the 2-epoch one ends short.
  ReplayStudy plain(dir.path(), yaml + "fidelity: {max: 27, grace: 3, reduction_factor: 3}\n");
  auto unscaled = plain.Create();
  ASSERT_TRUE(unscaled) << unscaled.error().message;
  ASSERT_TRUE((*unscaled)->Run({}));
  for (const Trial& t : (*unscaled)->trials()) {
    if (t.source_id == "1") {
      EXPECT_EQ(t.rung_losses.at(0), -103);
    } else if (t.source_id == "2") {
      EXPECT_EQ(t.rung_losses.at(0), -3);
    }
  }
}

TEST(StudyScaleBy, AnOpaqueTableWithoutTheColumnIsBadInput) {
  frugal::testing::TempDir dir;
  WriteSchedulesTable(dir.path());
  ReplayStudy rs(dir.path(), "fidelity: {max: 27, scale_by: steps}\n");
  auto study = rs.Create();
  ASSERT_FALSE(study);
  EXPECT_EQ(study.error().code, ErrorCode::kBadInput);
  EXPECT_NE(study.error().message.find("scale_by 'steps'"), std::string::npos)
      << study.error().message;
}

}  // namespace
}  // namespace frugal::tune

#include "frugal/tune/ledger_study_store.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frugal/tune/replay_runner.h"
#include "frugal/tune/study.h"
#include "support/test_support.h"
#include "synthetic_table.h"

namespace frugal::tune {
namespace {

/// Runs the synthetic replay study against `store`, halting after `halt` events when given,
/// or restoring from the store first when `resume`.
class Harness {
 public:
  explicit Harness(const std::filesystem::path& dir) {
    text_.yaml = "name: s\nreplay: {dir: '" + dir.string() +
                 "'}\nobjective: {metric: score, direction: maximize}\n"
                 "fidelity: {max: 27, grace: 1, reduction_factor: 3}\nscheduler: asha\n"
                 "sampler: tpe\nresources: {price_per_hour: 3.60, workers: 3}\n"
                 "gates: {budget_usd: 30}\n";
    text_.source = "s.yaml";
    spec_ = *ParseStudySpec(text_.yaml, text_.source, dir);
    table_ = *ReplayTable::Load(*spec_.replay, "score", "epoch");
  }
  Result<StudySummary> Run(StudyStore& store, std::optional<int64_t> halt, bool resume) {
    ReplayRunner runner(table_, spec_.fidelity.max);
    std::unique_ptr<Study> study;
    if (resume) {
      const nlohmann::json state = FRUGAL_TRY(store.Load("s"));
      study = FRUGAL_TRY(Study::Restore(state, spec_, runner, store, &table_));
    } else {
      study = FRUGAL_TRY(Study::Create(text_, spec_, runner, store, &table_));
    }
    RunOptions options;
    options.halt_after_events = halt;
    options.save_every_ms = 0;
    return study->Run(options);
  }

 private:
  SpecText text_;
  StudySpec spec_;
  ReplayTable table_;
};

class LedgerStudyStoreTest : public ::testing::Test {
 protected:
  void SetUp() override { testing::WriteSyntheticTable(dir_.path(), 60, 27); }
  std::unique_ptr<ledger::Ledger> Open() {
    auto l = ledger::Ledger::Open((dir_ / "ledger.sqlite").string());
    if (!l) {
      ADD_FAILURE() << l.error().message;
      std::abort();
    }
    return std::move(*l);
  }
  frugal::testing::TempDir dir_;
};

TEST_F(LedgerStudyStoreTest, KilledStudyResumesFromTheLedgerToTheSameResult) {
  Harness h(dir_.path());
  MemoryStudyStore memory;
  const auto whole = h.Run(memory, std::nullopt, false);
  ASSERT_TRUE(whole) << whole.error().message;
  {
    auto l = Open();
    LedgerStudyStore store(*l);
    const auto halted = h.Run(store, 90, false);
    ASSERT_FALSE(halted);
    EXPECT_EQ(halted.error().code, ErrorCode::kInterrupted);
  }
  // A new process: a new connection to the same file.
  auto l = Open();
  LedgerStudyStore store(*l);
  const auto found = l->FindStudy("s");
  ASSERT_TRUE(found && *found);
  EXPECT_EQ((*found)->state, ledger::StudyState::kRunning);
  const auto rest = h.Run(store, std::nullopt, true);
  ASSERT_TRUE(rest) << rest.error().message;
  EXPECT_EQ(rest->best_value, whole->best_value);
  EXPECT_EQ(rest->spend, whole->spend);
  EXPECT_EQ(rest->trials_by_state, whole->trials_by_state);
  EXPECT_EQ(rest->promotions, whole->promotions);

  // The ledger's rows say the same as the summary.
  const auto study = *l->FindStudy("s");
  EXPECT_EQ(study->state, rest->stop_reason == "budget" ? ledger::StudyState::kBudgetStopped
                                                        : ledger::StudyState::kFinished);
  EXPECT_EQ(study->definition.objective, "score");
  EXPECT_EQ(study->definition.direction, "maximize");
  const auto trials = l->TrialsOf(study->id);
  ASSERT_TRUE(trials);
  ASSERT_EQ(static_cast<int64_t>(trials->size()), rest->trials_started);
  Money cost;
  int completed = 0;
  size_t rungs = 0;
  for (const ledger::Trial& t : *trials) {
    cost += t.cost;
    completed += t.state == ledger::TrialState::kCompleted ? 1 : 0;
    rungs += t.rungs.size();
  }
  // Each trial's spend is rounded to the micro-dollar on its own.
  EXPECT_LE(std::abs((cost - rest->spend).micros()), static_cast<int64_t>(trials->size()));
  EXPECT_EQ(completed, rest->trials_by_state.at("completed"));
  EXPECT_GT(rungs, trials->size());  // promotions recorded results at higher rungs
  const auto state = store.Load("s");
  ASSERT_TRUE(state);
  EXPECT_EQ((*state)["status"], "finished");
}

TEST_F(LedgerStudyStoreTest, MissingStudyIsBadInputAndRetireFreesTheName) {
  auto l = Open();
  LedgerStudyStore store(*l);
  const auto missing = store.Load("nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(missing.error().message.find("no study named 'nope'"), std::string::npos);

  Harness h(dir_.path());
  ASSERT_FALSE(h.Run(store, 20, false));  // halted: the study is running in the ledger
  const auto kept = store.Retire("s");
  ASSERT_TRUE(kept);
  EXPECT_EQ(*kept, "s@1");
  EXPECT_FALSE(*l->FindStudy("s"));
  const auto old = l->FindStudy("s@1");
  ASSERT_TRUE(old && *old);
  EXPECT_EQ((*old)->state, ledger::StudyState::kCancelled);
  const auto again = h.Run(store, std::nullopt, false);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_TRUE(store.Load("s"));
}

}  // namespace
}  // namespace frugal::tune

namespace frugal::tune {
namespace {

TEST_F(LedgerStudyStoreTest, TrialsLinkTheirLedgerRunsOnceTheRunsExist) {
  Harness h(dir_.path());
  MemoryStudyStore memory;
  ASSERT_TRUE(h.Run(memory, std::nullopt, false));
  nlohmann::json state = *memory.Load("s");
  ASSERT_GE(state["trials"].size(), 2U);
  // As a supervised study names them: one ledger run per trial.
  state["trials"][0]["run"] = "s@x-t0";
  state["trials"][1]["run"] = "s@x-t1";
  auto l = Open();
  LedgerStudyStore store(*l);
  ledger::NewRun run;
  run.name = "s@x-t0";
  run.command = "train";
  run.start = ledger::Now();
  const auto first = l->BeginRun(run);
  ASSERT_TRUE(first) << first.error().message;
  ASSERT_TRUE(store.Save("s", state));
  auto trials = l->TrialsOf((*l->FindStudy("s"))->id);
  ASSERT_TRUE(trials);
  EXPECT_EQ((*trials)[0].run_id, *first);
  EXPECT_FALSE((*trials)[1].run_id.has_value()) << "its run has not started yet";
  EXPECT_FALSE((*trials)[2].run_id.has_value()) << "a replayed trial has no run";

  run.name = "s@x-t1";
  const auto second = l->BeginRun(run);
  ASSERT_TRUE(second);
  ASSERT_TRUE(store.Save("s", state));
  trials = l->TrialsOf((*l->FindStudy("s"))->id);
  EXPECT_EQ((*trials)[0].run_id, *first);
  EXPECT_EQ((*trials)[1].run_id, *second);
}

}  // namespace
}  // namespace frugal::tune

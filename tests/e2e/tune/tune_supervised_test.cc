// frugal tune with real trial processes under the run supervisor: a stdlib Python trainer
// (fast, always available) for pauses, promotions, preemptions and in-flight rung decisions, and
// the PyTorch example study when torch is importable. The kill and Ctrl-C drills are in
// tune_supervised_drill_test.cc.

#include "frugal/core/atomic_file.h"
#include "tune_supervised_support.h"

namespace frugal::testing {
namespace {

TEST_F(TuneSupervised, PausesPromotesResumesAndSurvivesPreemptionsAndAKill) {
  // Killed (as if) after a few events, then resumed from the stored state.
  // State lives in a SQLite ledger (--db).
  const std::string db = (dir_ / "ledger.sqlite").string();
  const CommandResult first =
      RunFrugal({"--db", db, "tune", (dir_ / "study.yaml").string(), "--halt-after", "8"},
                home_.path(), Env());
  ASSERT_EQ(first.exit_code, 130) << first.err;
  const CommandResult r =
      RunFrugal({"--db", db, "--json", "tune", "resume", "fake"}, home_.path(), Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["trials_started"], 9);
  EXPECT_GE(doc["trials"]["completed"].get<int>(), 1) << r.out;
  EXPECT_EQ(doc["trials"]["failed"], 0) << r.err;
  EXPECT_GE(doc["promotions"].get<int>(), 2);
  EXPECT_GE(doc["supervised"]["preemptions"].get<int>(), 1) << r.err;
  EXPECT_LT(doc["best_config"]["x"].get<double>(), 0.65);
  // Money: 2 GPUs at $36/GPU-h is $0.02 a second; a trial's spend is its wall time.
  EXPECT_GT(doc["spend_usd"].get<double>(), 0.02 * 9 * 0.1);
  EXPECT_LE(doc["spend_usd"].get<double>(), 10.0);

  const std::map<int, std::vector<Segment>> segments = ReadLog();
  ASSERT_EQ(segments.size(), 9U);
  int resumed = 0;
  for (const auto& [trial, list] : segments) {
    // Every segment starts where the trial's work stopped: pauses, promotions, preemptions and
    // the kill all resume from its newest checkpoint, so no completed epoch is repeated.
    for (const Segment& s : list) {
      EXPECT_EQ(s.from, s.done_before) << "trial " << trial;
      resumed += s.from > 0 ? 1 : 0;
      EXPECT_TRUE(s.target == 1 || s.target == 3 || s.target == 9) << s.target;
    }
  }
  EXPECT_GE(resumed, 2);

  const CommandResult status =
      RunFrugal({"--db", db, "--json", "tune", "status", "fake"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.out.find("\"finished\""), std::string::npos) << status.out;
}

TEST_F(TuneSupervised, AshaStopDecidesRungsInFlightWithoutRestartingTheTrial) {
  // asha-stop never pauses: each trial is one process that trains on through the rungs it
  // passes, and one that falls out of the top third is stopped where it reports.
  const CommandResult r = RunFakeStudy("stop", ", grace: 1", "asha-stop", 5, 8);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  const std::map<int, std::vector<Segment>> segments = ReadLog();
  ASSERT_EQ(segments.size(), 8U);
  int stopped_early = 0;
  for (const auto& [trial, list] : segments) {
    ASSERT_EQ(list.size(), 1U) << "trial " << trial << " was restarted";
    EXPECT_EQ(list[0].target, 9) << "trial " << trial;
    stopped_early += epochs_[trial] < 9 ? 1 : 0;
  }
  const int pruned = doc["trials"]["pruned"].get<int>();
  EXPECT_GE(pruned, 2) << r.out;
  EXPECT_EQ(stopped_early, pruned) << r.out;
  EXPECT_EQ(doc["trials"]["completed"].get<int>(), 8 - pruned) << r.out;
  // A trial stopped in flight closes its ledger run, and the runs add up to the study's spend.
  const CommandResult runs =
      RunFrugal({"--json", "runs", "list", "--tag", "study=stop", "--limit", "100"}, home_.path());
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json listed = nlohmann::json::parse(runs.out, nullptr, false);
  ASSERT_EQ(listed["runs"].size(), 8U) << runs.out;
  int64_t micros = 0;
  for (const auto& run : listed["runs"]) {
    micros += run["cost_micros"].get<int64_t>();
    EXPECT_NE(run["status"], "running") << run.dump();
  }
  const double spend = doc["spend_usd"].get<double>();
  EXPECT_NEAR(static_cast<double>(micros) / 1e6, spend, 0.002 + spend * 0.01) << runs.out;
}

TEST_F(TuneSupervised, ATrialThatTrainsOnPastItsStopKeepsWhatItReached) {
  // A trainer slow to honour a stop (here: never; its epochs take 0.1 s, far inside the
  // supervisor's grace) trains to the end after its rung pruned it. That training was paid
  // for: the trial is complete with its final result, not pruned at the rung it passed.
  WriteTestFile(dir_ / "trainer.py", StubbornTrainer());
  const CommandResult r = RunFakeStudy("stubborn", ", grace: 1", "asha-stop", 5, 8);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  ReadLog();
  const nlohmann::json state = SavedState(r, "stubborn");
  ASSERT_EQ(state["trials"].size(), 8U) << state.dump();
  for (const auto& t : state["trials"]) {
    const int id = t["id"].get<int>();
    ASSERT_EQ(epochs_[id], 9) << "trial " << id << " stopped: the trainer should not";
    EXPECT_EQ(t["state"], "completed") << t.dump();
    const double x = t["config"]["x"].get<double>();
    EXPECT_NEAR(t["last_value"].get<double>(), (x - 0.3) * (x - 0.3) + 0.1, 1e-9) << t.dump();
  }
  EXPECT_EQ(doc["trials"]["completed"], 8) << r.out;
  // The tuner's own stop requests are no preemptions, and one that came as a trial finished
  // takes nothing away from the count either (it once went negative, hiding real ones).
  EXPECT_EQ(doc["supervised"]["preemptions"], 0) << r.out;
}

TEST_F(TuneSupervised, ATrialStoppedAtTheBudgetKeepsWhatItReportedWhileItStopped) {
  // At $0.01 a second the cap comes inside the first trial. The trainer takes its time to stop
  // (it never asks, and its epochs fit in the supervisor's grace), and every epoch it reports
  // meanwhile was paid for: the study keeps the furthest, with its result.
  WriteTestFile(dir_ / "trainer.py", StubbornTrainer());
  WriteTestFile(dir_ / "capped.yaml", R"(name: capped
trial: {command: [python3, trainer.py]}
space:
  x: {type: float, low: 0.0, high: 1.0}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 9, grace: 9, cost_per_unit: 50ms}
scheduler: none
sampler: random
seed: 4
resources: {gpus: 1, price_per_hour: 36, workers: 1}
gates: {budget_usd: 0.006, max_trials: 1}
)");
  const CommandResult r =
      RunFrugal({"--json", "tune", (dir_ / "capped.yaml").string()}, home_.path(), Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ReadLog();
  const nlohmann::json state = SavedState(r, "capped");
  ASSERT_EQ(state["trials"].size(), 1U) << state.dump();
  const nlohmann::json& t = state["trials"][0];
  ASSERT_GT(epochs_[0], 0);
  // One that got to its last epoch before it stopped is complete.
  EXPECT_EQ(t["state"], epochs_[0] >= 9 ? "completed" : "stopped_at_budget") << t.dump();
  EXPECT_EQ(t["last_fidelity"].get<double>(), epochs_[0]) << t.dump();
  const double x = t["config"]["x"].get<double>();
  EXPECT_NEAR(t["last_value"].get<double>(), (x - 0.3) * (x - 0.3) + 1.0 / (epochs_[0] + 1), 1e-9);
}

TEST_F(TuneSupervised, AStudyWhoseEveryTrialFailsIsAFailureThatSavedNothing) {
  WriteTestFile(dir_ / "trainer.py", "import sys\nsys.exit(3)\n");
  const CommandResult r = RunFakeStudy("broken", ", grace: 1", "asha", 1, 3);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("study 'broken': all 3 trials failed"), std::string::npos) << r.err;
  // The result is still printed, and a failed trial would have failed however it was pruned.
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["trials"]["failed"], 3) << r.out;
  EXPECT_EQ(doc["pruning_saved_usd"].get<double>(), 0.0) << r.out;
  EXPECT_NEAR(doc["full_fidelity_cost_usd"].get<double>(), doc["spend_usd"].get<double>(), 1e-6)
      << r.out;
}

TEST_F(TuneSupervised, AStudyStopsWhenItsFirstTrialsFailTheSameWay) {
  // A python3 that cannot import torch: every trial fails at once with the same error. The
  // study stops after the first three instead of paying for all eight, and says why.
  WriteTestFile(
      dir_ / "trainer.py",
      "import sys\nsys.stderr.write(\"ModuleNotFoundError: No module named 'torch'\\n\")\n"
      "sys.exit(1)\n");
  const CommandResult r = RunFakeStudy("no-torch", ", grace: 1", "asha", 1, 8);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["trials"]["failed"], 3) << r.out;
  const std::string reason = doc["stop_reason"].get<std::string>();
  EXPECT_NE(reason.find("the first 3 trials all failed the same way (exit code 1)"),
            std::string::npos)
      << reason;
  EXPECT_NE(r.err.find("failed the same way"), std::string::npos) << r.err;
}

TEST_F(TuneSupervised, TheShippedStudyStopsAtTheFirstIdenticalFailuresToo) {
  // examples/pytorch/study.yaml on a python3 without torch: two workers, a budget of a few
  // trials. The budget's endgame closes and reopens starts around each failed probe; the
  // identical failures still stop the study at the third instead of paying for all eight.
  const std::string shipped = ReadFile(SourceDir() / "examples" / "pytorch" / "study.yaml").value();
  WriteTestFile(dir_ / "study.yaml", shipped);
  WriteTestFile(
      dir_ / "tune_train.py",
      "import sys\nsys.stderr.write(\"ModuleNotFoundError: No module named 'torch'\\n\")\n"
      "sys.exit(1)\n");
  const CommandResult r =
      RunFrugal({"--json", "tune", (dir_ / "study.yaml").string()}, home_.path(), Env());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  // Three failed alike; a fourth may have started beside the third before it failed.
  EXPECT_GE(doc["trials"]["failed"].get<int>(), 3) << r.out;
  EXPECT_LE(doc["trials"]["failed"].get<int>(), 4) << r.out;
  EXPECT_NE(doc["stop_reason"].get<std::string>().find("failed the same way (exit code 1)"),
            std::string::npos)
      << r.out;
}

TEST_F(TuneSupervised, AnEarlyRungNotYetTrustedIsPassedWithoutRestartingTheTrial) {
  // The default ladder for max 9: an early rung at epoch 1 below the grace of 3. Every segment
  // runs to the top and the rungs are decided in flight: nobody restarts at epoch 1, and its
  // result is recorded on the way.
  const CommandResult r = RunFakeStudy("early", "", "asha", 6, 4);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const auto& [trial, list] : ReadLog()) {
    ASSERT_FALSE(list.empty());
    EXPECT_EQ(list[0].from, 0) << "trial " << trial;
    for (const Segment& s : list) EXPECT_EQ(s.target, 9) << "trial " << trial;
  }
  const CommandResult status = RunFrugal({"--json", "tune", "status", "early"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const nlohmann::json st = nlohmann::json::parse(status.out, nullptr, false);
  ASSERT_FALSE(st.is_discarded()) << status.out;
  // Every trial reported at the early rung.
  EXPECT_EQ(st["rungs"][0]["results"].get<int>(), 4) << status.out;
}

TEST_F(TuneSupervised, AshaPromotesAtOnceInPlaceAndPausesTheRest) {
  // A trial that reaches a rung in the top third is promoted at once: it goes on in the same
  // process. Only a trial paused and promoted later starts again, from its checkpoint.
  const CommandResult r = RunFakeStudy("inplace", ", grace: 1", "asha", 7, 9);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  const int promotions = doc["promotions"].get<int>();
  ASSERT_GE(promotions, 3) << r.out;
  size_t starts = 0;
  int resumed = 0;
  for (const auto& [trial, list] : ReadLog()) {
    starts += list.size();
    if (list.size() > 1) ++resumed;
    for (const Segment& s : list) EXPECT_EQ(s.from, s.done_before) << "trial " << trial;
  }
  // Every promotion used to be a restart: 9 first starts plus one per promotion.
  EXPECT_LT(starts, 9U + static_cast<size_t>(promotions)) << r.out;
  EXPECT_GE(doc["trials"]["completed"].get<int>(), 1) << r.out;
  // The rest were paused at a rung: still paused at the end, or promoted later by the drain
  // (search space exhausted with budget left), which starts them again from their checkpoints.
  EXPECT_GE(doc["trials"]["paused"].get<int>() + resumed, 1) << r.out;
}

TEST_F(TuneSupervised, ScaleByTrainsEachTrialToItsShareOfEachRungAndToItsOwnEnd) {
  const CommandResult r = RunFakeStudy("scaled", ", grace: 3, scale_by: epochs", "asha", 4, 6,
                                       "  epochs: {type: categorical, choices: [3, 9]}\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::map<int, std::vector<Segment>> segments = ReadLog();
  ASSERT_EQ(segments.size(), 6U);
  std::set<int> seen_lengths;
  for (const auto& [trial, list] : segments) {
    ASSERT_TRUE(lengths_.contains(trial)) << trial;
    const int length = lengths_[trial];
    seen_lengths.insert(length);
    // Every segment runs to the trial's own end; the rungs on the way are decided in flight.
    for (const Segment& s : list) EXPECT_EQ(s.target, length) << "trial " << trial;
  }
  EXPECT_EQ(seen_lengths, (std::set<int>{3, 9}));
  // Rungs 3 and 9 of the longest schedule are epochs L/3 and L of a trial of length L: each
  // result recorded there is the fake trainer's loss at that epoch.
  const nlohmann::json state = SavedState(r, "scaled");
  int checked = 0;
  for (const auto& t : state["trials"]) {
    const double x = t["config"]["x"].get<double>();
    const auto& epochs = t["config"]["epochs"];
    const int length =
        epochs.is_string() ? std::stoi(epochs.get<std::string>()) : epochs.get<int>();
    const int rung_epochs[] = {length / 3, length};
    for (size_t k = 0; k < 2; ++k) {
      if (t["rung_losses"][k].is_null()) continue;
      EXPECT_NEAR(t["rung_losses"][k].get<double>(),
                  (x - 0.3) * (x - 0.3) + 1.0 / (rung_epochs[k] + 1), 1e-9)
          << "trial " << t["id"] << " rung " << k;
      ++checked;
    }
  }
  EXPECT_GE(checked, 7);  // all six at rung 0, and at least one promoted to the top
}

TEST(TunePytorch, ExampleStudyRunsUnderItsBudgetWithPreemptions) {
  if (RunProgram({"/usr/bin/python3", "-c", "import torch"}).exit_code != 0) {
    GTEST_SKIP() << "torch is not importable by /usr/bin/python3";
  }
  TempDir home;
  const char* path = std::getenv("PATH");
  const CommandResult r =
      RunFrugal({"--json", "tune", (SourceDir() / "examples/pytorch/study.yaml").string()},
                home.path(), {std::string("PATH=/usr/bin:") + (path != nullptr ? path : "")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_GE(doc["trials_started"].get<int>(), 3) << r.out;
  EXPECT_EQ(doc["trials"]["failed"], 0) << r.err;
  EXPECT_GE(doc["promotions"].get<int>(), 1) << r.out;
  EXPECT_GE(doc["supervised"]["preemptions"].get<int>(), 1) << r.err;
  // The budget is hard: at most one accrual interval (1 s at $2.50/h) past $0.06. (The
  // study ends at max_trials with about a fifth of it spent on an idle machine; the caps leave
  // room for promotions on a loaded one, where epochs cost more.)
  EXPECT_GT(doc["spend_usd"].get<double>(), 0.0);
  EXPECT_LE(doc["spend_usd"].get<double>(), 0.06 + 0.0007);
  EXPECT_FALSE(doc["leaderboard"].empty()) << r.out;
}

}  // namespace
}  // namespace frugal::testing

// frugal tune with real trial processes under the run supervisor: a stdlib Python trainer
// (fast, always available) for pauses, promotions, preemptions and kill/resume, and the
// PyTorch example study when torch is importable.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/test_support.h"

namespace frugal::testing {
namespace {

// What every fake trainer starts with: its configuration, trial id and target, and the epoch
// its newest checkpoint holds (0 without one).
constexpr const char* kTrainerPrelude = R"py(
import json, os, sys, time
sys.path.insert(0, os.environ["FRUGAL_TEST_PYTHONPATH"])
import frugal
config = json.loads(os.environ["FRUGAL_TRIAL_CONFIG"])
trial = os.environ["FRUGAL_TRIAL_ID"]
target = int(float(os.environ["FRUGAL_TRIAL_TARGET"]))
epoch = 0
if frugal.resume_from():
    with open(os.path.join(frugal.resume_from(), "state.json")) as f:
        epoch = json.load(f)["epoch"]
)py";

// Trains nothing, but behaves like a trainer: reads its configuration and target, resumes from
// its checkpoint, "trains" epoch by epoch (checkpoint, then report), and logs every segment's
// start and every epoch to trials.log in its working directory.
const std::string kTrainer = std::string(kTrainerPrelude) + R"py(
def log(line):
    with open("trials.log", "a") as f:
        f.write(line + "\n")
log(f"start {trial} {epoch} {target}")
if "epochs" in config:
    log(f"max {trial} {os.environ['FRUGAL_TRIAL_MAX']} {config['epochs']}")
while epoch < target:
    for i in range(5):
        time.sleep(0.02)
        frugal.report(epoch * 5 + i, heartbeat=1)
        if frugal.checkpoint_requested():  # a preemption notice: keep the epochs done
            with frugal.checkpoint(epoch * 5 + i) as d:
                with open(os.path.join(d, "state.json"), "w") as f:
                    json.dump({"epoch": epoch}, f)
        if frugal.should_stop():
            sys.exit(0)
    epoch += 1
    with frugal.checkpoint(epoch * 5 + 5) as d:
        with open(os.path.join(d, "state.json"), "w") as f:
            json.dump({"epoch": epoch}, f)
    loss = (config["x"] - 0.3) ** 2 + 1.0 / (epoch + 1)
    frugal.report(epoch * 5 + 5, epoch=epoch, loss=loss)
    log(f"epoch {trial} {epoch}")
)py";

constexpr const char* kStudy = R"(name: fake
trial:
  command: [python3, trainer.py]
  chaos: {every: 400ms, max: 3}
space:
  x: {type: float, low: 0.0, high: 1.0}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 9, grace: 1, reduction_factor: 3, cost_per_unit: 200ms}
scheduler: asha
seed: 3
resources: {gpus: 2, price_per_hour: 36, workers: 1}
gates: {budget_usd: 10, max_trials: 9}
)";

struct Segment {
  int from = 0;
  int target = 0;
  int done_before = 0;
};

class TuneSupervised : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTestFile(dir_ / "trainer.py", kTrainer);
    WriteTestFile(dir_ / "study.yaml", kStudy);
  }
  std::vector<std::string> Env() const {
    const char* path = std::getenv("PATH");
    return {"FRUGAL_TEST_PYTHONPATH=" + (SourceDir() / "python").string(),
            std::string("PATH=/usr/bin:") + (path != nullptr ? path : "")};
  }
  /// trial id → the segments it ran and the epochs it trained, from trials.log.
  /// trial id → its segments in order, from trials.log; `from` is checked against the epochs
  /// the trial logged before the segment started.
  std::map<int, std::vector<Segment>> ReadLog() const {
    std::map<int, std::vector<Segment>> segments;
    std::map<int, int> done;  // epochs logged so far
    std::ifstream in(dir_ / "trials.log");
    std::string kind;
    int trial = 0;
    while (in >> kind >> trial) {
      if (kind == "start") {
        Segment s;
        in >> s.from >> s.target;
        s.done_before = done[trial];
        segments[trial].push_back(s);
      } else if (kind == "max") {
        std::string max, length;
        in >> max >> length;
        EXPECT_EQ(std::stod(max), std::stod(length)) << "trial " << trial << "'s own full fidelity";
        lengths_[trial] = static_cast<int>(std::stod(length));
      } else {
        int e = 0;
        in >> e;
        EXPECT_EQ(e, done[trial] + 1) << "trial " << trial << " trained an epoch twice or skipped";
        done[trial] = e;
        epochs_[trial] = e;
      }
    }
    return segments;
  }
  /// Runs a one-worker study of the fake trainer (`x` in [0, 1] plus `extra_space`, loss
  /// minimized, $10 budget) to its end with --json.
  CommandResult RunFakeStudy(const std::string& name, const std::string& fidelity,
                             const std::string& scheduler, int seed, int max_trials,
                             const std::string& extra_space = "") const {
    const std::filesystem::path spec = dir_ / (name + ".yaml");
    WriteTestFile(spec, fmt::format(R"(name: {}
trial: {{command: [python3, trainer.py]}}
space:
  x: {{type: float, low: 0.0, high: 1.0}}
{}objective: {{metric: loss, direction: minimize}}
fidelity: {{name: epoch, min: 1, max: 9, reduction_factor: 3, cost_per_unit: 200ms{}}}
scheduler: {}
sampler: random
seed: {}
resources: {{gpus: 1, price_per_hour: 36, workers: 1}}
gates: {{budget_usd: 10, max_trials: {}}}
)",
                                    name, extra_space, fidelity, scheduler, seed, max_trials));
    return RunFrugal({"--json", "tune", spec.string()}, home_.path(), Env());
  }
  /// The state the study saved (the file store beside its trials directory).
  static nlohmann::json SavedState(const CommandResult& r, const std::string& name) {
    const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    const std::filesystem::path trials = doc["supervised"]["trials_dir"].get<std::string>();
    std::ifstream in(trials.parent_path().parent_path() / (name + ".json"));
    return nlohmann::json::parse(in, nullptr, false);
  }
  TempDir home_;
  TempDir dir_;
  mutable std::map<int, int> lengths_;  ///< trial id → its own schedule (scale_by studies)
  mutable std::map<int, int> epochs_;   ///< trial id → the epochs it trained in all
};

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
  std::string stubborn = kTrainer;
  const std::string honour = "        if frugal.should_stop():\n            sys.exit(0)\n";
  ASSERT_NE(stubborn.find(honour), std::string::npos);
  stubborn.erase(stubborn.find(honour), honour.size());
  WriteTestFile(dir_ / "trainer.py", stubborn);
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
  for (const auto& [trial, list] : ReadLog()) {
    starts += list.size();
    for (const Segment& s : list) EXPECT_EQ(s.from, s.done_before) << "trial " << trial;
  }
  // Every promotion used to be a restart: 9 first starts plus one per promotion.
  EXPECT_LT(starts, 9U + static_cast<size_t>(promotions)) << r.out;
  EXPECT_GE(doc["trials"]["completed"].get<int>(), 1) << r.out;
  EXPECT_GE(doc["trials"]["paused"].get<int>(), 1) << r.out;
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

// A trainer for the parallel study: half a second per epoch, every segment's start and end
// logged with the wall clock (spans.log), resumable from its checkpoint like the one above.
const std::string kSlowTrainer = std::string(kTrainerPrelude) + R"py(
def log(name, line):
    with open(name, "a") as f:
        f.write(line + "\n")
log("spans.log", f"B {trial} {time.time()}")
log("trials.log", f"start {trial} {epoch} {target}")
try:
    while epoch < target:
        for i in range(10):
            time.sleep(0.05)
            frugal.report(epoch * 10 + i, heartbeat=1)
            if frugal.should_stop() or frugal.checkpoint_requested():
                with frugal.checkpoint(epoch * 10 + i) as d:
                    with open(os.path.join(d, "state.json"), "w") as f:
                        json.dump({"epoch": epoch}, f)
                sys.exit(0)
        epoch += 1
        with frugal.checkpoint(epoch * 10) as d:
            with open(os.path.join(d, "state.json"), "w") as f:
                json.dump({"epoch": epoch}, f)
        frugal.report(epoch * 10, epoch=epoch, loss=(config["x"] - 0.3) ** 2 + 1.0 / (epoch + 1))
        log("trials.log", f"epoch {trial} {epoch}")
finally:
    log("spans.log", f"E {trial} {time.time()}")
)py";

constexpr const char* kParallelStudy = R"(name: par
tags: {team: vision, project: hpo, owner: ada}
trial:
  command: [python3, trainer.py]
space:
  x: {type: float, low: 0.0, high: 1.0}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 9, grace: 1, reduction_factor: 3, cost_per_unit: 700ms}
scheduler: asha
seed: 5
resources: {gpus: 1, price_per_hour: 36, workers: 3}
gates: {budget_usd: 0.12, max_trials: 12}
)";

/// Segments begun and not yet ended, from spans.log.
int OpenSpans(const std::filesystem::path& spans) {
  std::ifstream in(spans);
  int open = 0;
  for (std::string line; std::getline(in, line);) open += line.rfind("B ", 0) == 0 ? 1 : -1;
  return open;
}

/// The most segments whose [begin, end) spans overlap at one moment, from spans.log.
int PeakOverlap(const std::filesystem::path& spans) {
  std::vector<std::pair<double, int>> edges;
  std::ifstream in(spans);
  std::string kind;
  int trial = 0;
  double t = 0;
  while (in >> kind >> trial >> t) edges.emplace_back(t, kind == "B" ? 1 : -1);
  std::sort(edges.begin(), edges.end());  // an end sorts before a begin at the same time
  int now = 0, peak = 0;
  for (const auto& [time, delta] : edges) peak = std::max(peak, now += delta);
  return peak;
}

TEST_F(TuneSupervised, ParallelTrialsOverlapHoldTheBudgetAndResumeAfterAKill) {
  WriteTestFile(dir_ / "trainer.py", kSlowTrainer);
  WriteTestFile(dir_ / "study.yaml", kParallelStudy);
  const std::string db = (dir_ / "ledger.sqlite").string();
  const CommandResult first =
      RunFrugal({"--db", db, "tune", (dir_ / "study.yaml").string(), "--halt-after", "12"},
                home_.path(), Env());
  ASSERT_EQ(first.exit_code, 130) << first.err;
  const CommandResult during =
      RunFrugal({"--db", db, "--json", "tune", "status", "par"}, home_.path());
  ASSERT_EQ(during.exit_code, 0) << during.err;
  const nlohmann::json before = nlohmann::json::parse(during.out, nullptr, false);
  ASSERT_TRUE(before["gates"].contains("budget_usd")) << during.out;
  EXPECT_GT(before["gates"]["budget_usd"]["used"].get<double>(), 0.0);
  EXPECT_TRUE(before["gates"]["max_trials"]["eta_seconds"].is_number()) << during.out;
  EXPECT_TRUE(before["eta_seconds"].is_number()) << during.out;

  const CommandResult r =
      RunFrugal({"--db", db, "--json", "tune", "resume", "par"}, home_.path(), Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  // Trials ran side by side, in the killed process and in the resumed one.
  EXPECT_GE(PeakOverlap(dir_ / "spans.log"), 2);
  EXPECT_GE(doc["supervised"]["peak_concurrency"].get<int>(), 2) << r.out;
  EXPECT_EQ(doc["trials"]["failed"], 0) << r.err;
  // The budget binds, and holds: at the cap every running trial checkpoints and stops; what
  // the stops themselves take (a checkpoint and an exit) is the only overshoot.
  EXPECT_EQ(doc["stop_reason"], "budget") << r.out;
  const double spend = doc["spend_usd"].get<double>();
  EXPECT_GT(spend, 0.12 * 0.7);
  EXPECT_LE(spend, 0.12 + 0.01 * 3 * 0.5) << "more than half a second of three trials past the cap";
  // No epoch was trained twice: every segment started where its trial's work stopped.
  for (const auto& [trial, list] : ReadLog()) {
    for (const Segment& s : list) EXPECT_EQ(s.from, s.done_before) << "trial " << trial;
  }

  // Each trial is a ledger run with the spec's tags; together they cost what the study spent.
  const CommandResult runs = RunFrugal(
      {"--db", db, "--json", "runs", "list", "--tag", "study=par", "--limit", "100"}, home_.path());
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json listed = nlohmann::json::parse(runs.out, nullptr, false);
  ASSERT_EQ(listed["runs"].size(), doc["trials_started"].get<size_t>()) << runs.out;
  int64_t micros = 0;
  for (const auto& run : listed["runs"]) {
    micros += run["cost_micros"].get<int64_t>();
    EXPECT_EQ(run["tags"]["team"], "vision");
    EXPECT_EQ(run["tags"]["owner"], "ada");
    EXPECT_TRUE(run["tags"].contains("trial"));
    // Paused and stopped trials close their runs; nothing is left for the sweep to call lost.
    EXPECT_NE(run["status"], "running") << run.dump();
  }
  EXPECT_NEAR(static_cast<double>(micros) / 1e6, spend, 0.002 + spend * 0.01) << runs.out;
}

TEST_F(TuneSupervised, CtrlCCheckpointsEveryRunningTrialAndResumeFinishesTheStudy) {
  WriteTestFile(dir_ / "trainer.py", kSlowTrainer);
  WriteTestFile(dir_ / "study.yaml", kParallelStudy);
  const pid_t pid =
      StartFrugal({"-q", "tune", (dir_ / "study.yaml").string()}, home_.path(), Env());
  ASSERT_GE(pid, 0);
  // Interrupt once trials run side by side.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (PeakOverlap(dir_ / "spans.log") < 2 && std::chrono::steady_clock::now() < deadline) {
    if (OpenSpans(dir_ / "spans.log") >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ::kill(pid, SIGINT);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 130);
  // Every trial that was running ended its segment (a span's end is logged on exit).
  {
    std::ifstream in(dir_ / "spans.log");
    int open = 0;
    for (std::string line; std::getline(in, line);) open += line.rfind("B ", 0) == 0 ? 1 : -1;
    EXPECT_EQ(open, 0) << "a trial outlived the interrupted tuner";
  }
  const CommandResult r = RunFrugal({"--json", "tune", "resume", "par"}, home_.path(), Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_EQ(doc["trials"]["failed"], 0) << r.err;
  EXPECT_EQ(doc["trials"]["running"], 0) << r.out;
  for (const auto& [trial, list] : ReadLog()) {
    for (const Segment& s : list) EXPECT_EQ(s.from, s.done_before) << "trial " << trial;
  }
  const CommandResult runs =
      RunFrugal({"--json", "runs", "list", "--tag", "study=par", "--limit", "100"}, home_.path());
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  int64_t micros = 0;
  const nlohmann::json listed = nlohmann::json::parse(runs.out, nullptr, false);
  for (const auto& run : listed["runs"]) micros += run["cost_micros"].get<int64_t>();
  const double spend = doc["spend_usd"].get<double>();
  EXPECT_NEAR(static_cast<double>(micros) / 1e6, spend, 0.002 + spend * 0.01) << runs.out;
}

// A trainer that is slow to checkpoint when the tuner stops it in flight (two seconds), and
// that exits at once when its supervisor is gone (SIGTERM: the tuner was killed). Each stop
// request is logged to stops.log; spans.log as kSlowTrainer.
const std::string kSlowToStopTrainer = std::string(kTrainerPrelude) + R"py(
def log(name, line):
    with open(name, "a") as f:
        f.write(line + "\n")
def save(step):
    with frugal.checkpoint(step) as d:
        with open(os.path.join(d, "state.json"), "w") as f:
            json.dump({"epoch": epoch}, f)
log("spans.log", f"B {trial} {time.time()}")
try:
    while epoch < target:
        for i in range(10):
            time.sleep(0.05)
            frugal.report(epoch * 10 + i, heartbeat=1)
            if frugal.should_stop():
                sys.exit(0)
            if frugal.checkpoint_requested():
                log("stops.log", f"{trial} {time.time()}")
                for _ in range(40):
                    time.sleep(0.05)
                    if frugal.should_stop():
                        sys.exit(0)
                save(epoch * 10 + i)
                sys.exit(0)
        epoch += 1
        save(epoch * 10)
        frugal.report(epoch * 10, epoch=epoch, loss=(config["x"] - 0.3) ** 2 + 1.0 / (epoch + 1))
finally:
    log("spans.log", f"E {trial} {time.time()}")
)py";

constexpr const char* kOrphanStudy = R"(name: orphan
trial:
  command: [python3, trainer.py]
space:
  x: {type: float, low: 0.0, high: 1.0}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 9, grace: 1, reduction_factor: 3, cost_per_unit: 700ms}
scheduler: asha-stop
seed: 5
resources: {gpus: 1, price_per_hour: 36, workers: 2}
gates: {budget_usd: 1, max_trials: 6}
)";

TEST_F(TuneSupervised, AKilledTunersTrialRunsAreClosedAtTheirLastHeartbeatOnResume) {
  // SIGKILL to the tuner while a trial it stopped in flight is still checkpointing: that trial
  // is decided (pruned) and never relaunched, and the other one was mid-segment. On resume,
  // every run the dead tuner left open is closed at its last heartbeat, not left running (and
  // charging by the wall clock), and the runs still cost what the study says it spent.
  WriteTestFile(dir_ / "trainer.py", kSlowToStopTrainer);
  WriteTestFile(dir_ / "study.yaml", kOrphanStudy);
  const pid_t pid =
      StartFrugal({"-q", "tune", (dir_ / "study.yaml").string()}, home_.path(), Env());
  ASSERT_GE(pid, 0);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!std::filesystem::exists(dir_ / "stops.log") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(std::filesystem::exists(dir_ / "stops.log")) << "no trial was stopped in flight";
  int stopped = -1;
  std::ifstream(dir_ / "stops.log") >> stopped;
  const auto stop_seen = std::chrono::steady_clock::now();
  // While the tuner lives, neither a resume nor a fresh start may take the study over: either
  // would mark its running trials lost (or clear their checkpoints) and launch them again.
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"tune", "resume", "orphan"},
        std::vector<std::string>{"tune", "--restart", (dir_ / "study.yaml").string()}}) {
    const CommandResult refused = RunFrugal(args, home_.path(), Env());
    EXPECT_EQ(refused.exit_code, 2) << args[1] << ": " << refused.err;
    EXPECT_NE(refused.err.find("study 'orphan' is in use by another frugal process (pid " +
                               std::to_string(pid) + ")"),
              std::string::npos)
        << refused.err;
  }
  // Long enough for the study to save its state with the trial stopped, well inside its stop.
  std::this_thread::sleep_until(stop_seen + std::chrono::milliseconds(1200));
  ::kill(pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  // The trials see their supervisors die and exit.
  const auto exited = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (OpenSpans(dir_ / "spans.log") > 0 && std::chrono::steady_clock::now() < exited) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_EQ(OpenSpans(dir_ / "spans.log"), 0) << "a trial outlived the killed tuner";

  const CommandResult r = RunFrugal({"--json", "tune", "resume", "orphan"}, home_.path(), Env());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  const CommandResult runs = RunFrugal(
      {"--json", "runs", "list", "--tag", "study=orphan", "--limit", "100"}, home_.path());
  ASSERT_EQ(runs.exit_code, 0) << runs.err;
  const nlohmann::json listed = nlohmann::json::parse(runs.out, nullptr, false);
  ASSERT_EQ(listed["runs"].size(), doc["trials_started"].get<size_t>()) << runs.out;
  int64_t micros = 0;
  bool found_stopped = false;
  for (const auto& run : listed["runs"]) {
    micros += run["cost_micros"].get<int64_t>();
    EXPECT_NE(run["status"], "running") << run.dump();
    if (run["tags"]["trial"] == std::to_string(stopped)) {
      found_stopped = true;
      EXPECT_GT(run["cost_micros"].get<int64_t>(), 0) << run.dump();
    }
  }
  EXPECT_TRUE(found_stopped) << runs.out;
  // Within one accrual interval (1 s at $36/h) of the study's spend.
  const double spend = doc["spend_usd"].get<double>();
  EXPECT_NEAR(static_cast<double>(micros) / 1e6, spend, 0.01) << runs.out << r.err;
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
  // The budget is hard: at most one accrual interval (1 s at $2.50/h) past $0.035.
  EXPECT_GT(doc["spend_usd"].get<double>(), 0.0);
  EXPECT_LE(doc["spend_usd"].get<double>(), 0.035 + 0.0007);
  EXPECT_FALSE(doc["leaderboard"].empty()) << r.out;
}

}  // namespace
}  // namespace frugal::testing

#pragma once
// What the supervised tune tests share: a fake Python trainer (stdlib only, fast) that behaves
// like a real one (resumes from its checkpoint, reports per epoch, logs its segments), the
// study it runs, and a fixture that reads what the trials logged.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
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

#include "frugal/ledger/ledger.h"
#include "frugal/tune/ledger_study_store.h"
#include "support/test_support.h"

namespace frugal::testing {

// What every fake trainer starts with: its configuration, trial id and target, and the epoch
// its newest checkpoint holds (0 without one).
inline constexpr const char* kTrainerPrelude = R"py(
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
inline const std::string kTrainer = std::string(kTrainerPrelude) + R"py(
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

/// kTrainer without its stop check: it trains on until the supervisor's SIGTERM ends it, and
/// reports its result at the end.
inline std::string StubbornTrainer() {
  std::string stubborn = kTrainer;
  const std::string honour = "        if frugal.should_stop():\n            sys.exit(0)\n";
  const size_t at = stubborn.find(honour);
  EXPECT_NE(at, std::string::npos) << "kTrainer no longer checks should_stop()";
  if (at != std::string::npos) stubborn.erase(at, honour.size());
  // Like a real trainer, it reports its result as it ends: a stop that came meanwhile was
  // moot (the segment finished).
  return stubborn + "frugal.result(loss=loss)\n";
}

inline constexpr const char* kStudy = R"(name: fake
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
  /// Writes `trainer` and `study` (its spec) and starts `frugal -q tune` on them in the
  /// background; the pid, or -1.
  pid_t StartStudy(const std::string& trainer, const char* study) const {
    WriteTestFile(dir_ / "trainer.py", trainer);
    WriteTestFile(dir_ / "study.yaml", study);
    return StartFrugal({"-q", "tune", (dir_ / "study.yaml").string()}, home_.path(), Env());
  }
  /// The state the study saved, from the ledger (the one study store) of the data directory
  /// its trials directory is in (`<data>/studies/<study>/trials`); null when there is none.
  static nlohmann::json SavedState(const CommandResult& r, const std::string& name) {
    const nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
    const std::filesystem::path trials = doc["supervised"]["trials_dir"].get<std::string>();
    const std::filesystem::path data = trials.parent_path().parent_path().parent_path();
    auto db =
        ledger::OpenForCommand((data / "ledger.sqlite").string(), ledger::CreateMode::kMustExist);
    if (!db) return nullptr;
    Result<nlohmann::json> state = tune::LedgerStudyStore(**db).Load(name);
    return state ? *state : nlohmann::json();
  }
  TempDir home_;
  TempDir dir_;
  mutable std::map<int, int> lengths_;  ///< trial id → its own schedule (scale_by studies)
  mutable std::map<int, int> epochs_;   ///< trial id → the epochs it trained in all
};

}  // namespace frugal::testing

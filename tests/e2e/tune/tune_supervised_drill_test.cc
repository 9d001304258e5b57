// frugal tune's drills with real trial processes: parallel trials under a budget, killed and
// resumed; Ctrl-C; and a tuner SIGKILLed while a trial it stopped is still checkpointing.

#include "tune_supervised_support.h"

namespace frugal::testing {
namespace {

// A trainer for the parallel study: half a second per epoch, every segment's start and end
// logged with the wall clock (spans.log), resumable from its checkpoint like the one above.
const std::string kSlowTrainer = std::string(kTrainerPrelude) + R"py(
def log(name, line):
    with open(name, "a") as f:
        f.write(line + "\n")
log("spans.log", f"B {trial} {time.time()}")
log("trials.log", f"start {trial} {epoch} {target}")
reported = False  # this segment has reported progress (ready.log says when)
try:
    while epoch < target:
        for i in range(10):
            time.sleep(0.05)
            frugal.report(epoch * 10 + i, heartbeat=1)
            if not reported:
                reported = True
                log("ready.log", f"R {trial} {time.time()}")
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
gates: {budget_usd: 0.24, max_trials: 24}
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

/// Polls `done` every 20 ms until it holds or `limit` passes; returns whether it held.
template <class Done>
bool WaitUntil(Done done, std::chrono::seconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
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
  // the stops themselves take (a checkpoint and an exit, about half a second on an idle
  // machine) is the only overshoot, within the issue's bound of one accrual interval (1 s)
  // of each of the three trials.
  EXPECT_EQ(doc["stop_reason"], "budget") << r.out;
  const double spend = doc["spend_usd"].get<double>();
  EXPECT_GT(spend, 0.24 * 0.7);
  EXPECT_LE(spend, 0.24 + 0.01 * 3 * 1.0) << "more than one interval of three trials past the cap";
  EXPECT_NEAR(doc["overshoot_usd"].get<double>(), std::max(0.0, spend - 0.24), 1e-6) << r.out;
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
  const pid_t pid = StartStudy(kSlowTrainer, kParallelStudy);
  ASSERT_GE(pid, 0);
  // Interrupt once two trials run side by side, each past its first report (so in the loop
  // that answers a checkpoint request): a trial is there when its segment's last "R" in
  // ready.log is later than its last "E" in spans.log.
  const auto reported_and_open = [&] {
    std::map<int, double> last_ready, last_end;
    std::ifstream ready(dir_ / "ready.log");
    std::string kind;
    int trial = 0;
    double t = 0;
    while (ready >> kind >> trial >> t) last_ready[trial] = std::max(last_ready[trial], t);
    std::ifstream spans(dir_ / "spans.log");
    while (spans >> kind >> trial >> t) {
      if (kind == "E") last_end[trial] = std::max(last_end[trial], t);
    }
    int open = 0;
    for (const auto& [id, at] : last_ready) open += !last_end.contains(id) || at > last_end[id];
    return open;
  };
  WaitUntil([&] { return reported_and_open() >= 2; }, std::chrono::seconds(30));
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
  // Until the resume, the trials it interrupted wait on their checkpoints: the ledger says
  // paused, not cancelled (nor running, charging by the wall clock).
  {
    const CommandResult runs =
        RunFrugal({"--json", "runs", "list", "--tag", "study=par", "--limit", "100"}, home_.path());
    ASSERT_EQ(runs.exit_code, 0) << runs.err;
    const nlohmann::json listed = nlohmann::json::parse(runs.out, nullptr, false);
    int paused = 0;
    for (const auto& run : listed["runs"]) {
      EXPECT_NE(run["status"], "cancelled") << run.dump();
      EXPECT_NE(run["status"], "running") << run.dump();
      paused += run["status"] == "paused" ? 1 : 0;
    }
    EXPECT_GE(paused, 2) << runs.out;
    // The study says so too: nothing of it is running.
    const CommandResult told = RunFrugal({"--json", "tune", "status", "par"}, home_.path());
    ASSERT_EQ(told.exit_code, 0) << told.err;
    const nlohmann::json shown = nlohmann::json::parse(told.out, nullptr, false);
    EXPECT_EQ(shown["status"], "interrupted") << told.out;
    EXPECT_EQ(shown["trials"]["running"], 0) << told.out;
    EXPECT_GE(shown["trials"]["paused"].get<int>(), 2) << told.out;
    for (const auto& t : shown["per_trial"]) EXPECT_NE(t["state"], "running") << t.dump();
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

/// What a trial's journal charged: the sum of its closed segments' costs.
int64_t JournalMicros(const std::filesystem::path& journal) {
  std::ifstream in(journal);
  int64_t micros = 0;
  for (std::string line; std::getline(in, line);) {
    const nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_object() && r.value("record", "") == "segment_closed")
      micros += r.value("cost_micros", int64_t{0});
  }
  return micros;
}

TEST_F(TuneSupervised, AKilledTunersTrialRunsAreClosedAtTheirLastJournalRecordOnResume) {
  // SIGKILL to the tuner while a trial it stopped in flight is still checkpointing: that trial
  // is decided (pruned) and never relaunched, and the other one was mid-segment. On resume,
  // every run the dead tuner left open is closed at its journal's last record (as a killed
  // `frugal run` is), not left running (and charging by the wall clock), and not at the
  // ledger's last heartbeat either: the ledger charges each run what its journal does, to the
  // micro-dollar, and the runs still cost what the study says it spent.
  const pid_t pid = StartStudy(kSlowToStopTrainer, kOrphanStudy);
  ASSERT_GE(pid, 0);
  // The file exists a moment before its line is written: wait for the whole line.
  const std::string stop_line = WaitForLine(dir_ / "stops.log", std::chrono::seconds(60));
  ASSERT_FALSE(stop_line.empty()) << "no trial was stopped in flight";
  const int stopped = std::stoi(stop_line);
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
  ASSERT_TRUE(
      WaitUntil([&] { return OpenSpans(dir_ / "spans.log") == 0; }, std::chrono::seconds(10)))
      << "a trial outlived the killed tuner";
  // Its state was saved as running; status tells that no tuner runs it any more.
  const CommandResult shown = RunFrugal({"tune", "status", "orphan"}, home_.path(), Env());
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_NE(shown.out.find("study orphan: interrupted"), std::string::npos) << shown.out;
  EXPECT_NE(shown.err.find("frugal tune resume orphan"), std::string::npos) << shown.err;

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
    const std::filesystem::path journal = home_.path() / "data" / "studies" / "orphan" / "trials" /
                                          run["tags"]["trial"].get<std::string>() / "journal.jsonl";
    ASSERT_TRUE(std::filesystem::exists(journal)) << journal;
    EXPECT_EQ(run["cost_micros"].get<int64_t>(), JournalMicros(journal)) << run.dump();
    if (run["tags"]["trial"] == std::to_string(stopped)) {
      found_stopped = true;
      EXPECT_GT(run["cost_micros"].get<int64_t>(), 0) << run.dump();
    }
  }
  EXPECT_TRUE(found_stopped) << runs.out;
  // Within one accrual interval (1 s at $36/h) of the study's spend.
  const double spend = doc["spend_usd"].get<double>();
  EXPECT_NEAR(static_cast<double>(micros) / 1e6, spend, 0.01) << runs.out << r.err;
  // And the trials' own spends, summed, are the study's to the micro-dollar.
  const CommandResult after =
      RunFrugal({"--json", "tune", "status", "orphan"}, home_.path(), Env());
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const nlohmann::json shown_doc = nlohmann::json::parse(after.out, nullptr, false);
  ASSERT_TRUE(shown_doc.contains("per_trial")) << after.out;
  int64_t per_trial_micros = 0;
  for (const auto& t : shown_doc["per_trial"])
    per_trial_micros += std::llround(t["spend_usd"].get<double>() * 1e6);
  EXPECT_EQ(per_trial_micros, std::llround(shown_doc["spend_usd"].get<double>() * 1e6))
      << after.out;
}

}  // namespace
}  // namespace frugal::testing

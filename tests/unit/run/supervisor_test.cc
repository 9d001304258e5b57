#include "frugal/run/supervisor.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <fstream>
#include <random>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "frugal/core/clock.h"
#include "frugal/run/protocol.h"
#include "frugal/run/run_journal.h"
#include "run_test_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

using std::chrono::milliseconds;
using testing::CounterCommand;
using testing::CounterValue;
using testing::Records;
using testing::Shell;

SupervisorConfig Config(const std::filesystem::path& dir, std::vector<std::string> command) {
  SupervisorConfig c;
  c.command = std::move(command);
  c.run_id = "test-run";
  c.run_dir = dir / "run";
  c.price = Rate{Money::FromCents(360)};
  c.checkpoint_grace = milliseconds(2000);
  c.stop_grace = milliseconds(2000);
  c.accrual_interval = milliseconds(100);
  c.heartbeat_interval = milliseconds(200);
  c.restart_backoff = milliseconds(50);
  return c;
}

Result<RunResult> RunOnce(const SupervisorConfig& config,
                          std::unique_ptr<PreemptionSource> source = nullptr) {
  RunJournal journal(config.run_dir / "journal.jsonl");
  Supervisor supervisor(config, journal);
  if (source) supervisor.AddPreemptionSource(std::move(source));
  return supervisor.Run();
}

/// Sends `signal` to this process (the supervisor) once the command has reported progress: a
/// notice that comes while the command runs, however long it took to start.
class SignalAtFirstProgress final : public PreemptionSource {
 public:
  explicit SignalAtFirstProgress(int signal) : signal_(signal) {}
  void SegmentStarted(SteadyTime /*now*/) override {}
  void Progress(int64_t /*step*/) override {
    if (!sent_) ::kill(::getpid(), signal_);
    sent_ = true;
  }
  std::optional<PreemptionNotice> Poll(SteadyTime /*now*/) override { return std::nullopt; }

 private:
  int signal_;
  bool sent_ = false;
};

/// A capacity notice once the command has reported `step`.
class NoticeAtStep final : public PreemptionSource {
 public:
  explicit NoticeAtStep(int64_t step) : step_(step) {}
  void SegmentStarted(SteadyTime /*now*/) override {}
  void Progress(int64_t step) override { due_ = due_ || (!fired_ && step >= step_); }
  std::optional<PreemptionNotice> Poll(SteadyTime /*now*/) override {
    if (!due_) return std::nullopt;
    due_ = false;
    fired_ = true;
    return PreemptionNotice{"test", "notice at step " + std::to_string(step_)};
  }

 private:
  int64_t step_;
  bool due_ = false;
  bool fired_ = false;
};

TEST(Supervisor, RunsToTheEndCommittingCheckpoints) {
  frugal::testing::TempDir dir;
  auto config = Config(dir.path(), CounterCommand(12, 0.02, 4));
  auto r = RunOnce(config);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->outcome, RunOutcome::kFinished);
  EXPECT_EQ(r->exit_code, 0);
  EXPECT_EQ(r->checkpoints_committed, 3);
  ASSERT_TRUE(r->result.has_value());
  EXPECT_EQ(static_cast<long long>(r->result->metrics.at("value")), CounterValue(12));
  EXPECT_EQ(r->last_step, 12);
  EXPECT_GT(r->usage.spent, Money());
  const auto journal = config.run_dir / "journal.jsonl";
  EXPECT_EQ(Records(journal, "run_started").size(), 1u);
  EXPECT_EQ(Records(journal, "event", "checkpoint_committed").size(), 3u);
  auto closed = Records(journal, "segment_closed");
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0]["end"], "finished");
  EXPECT_EQ(Records(journal, "run_finished").at(0)["outcome"], "finished");
}

TEST(Supervisor, ChaosPreemptionsRestartLocallyAndEndWithTheUninterruptedResult) {
  frugal::testing::TempDir dir;
  // Long enough that the third notice (at most 600 ms after each first progress) comes
  // before the command is done.
  auto config = Config(dir.path(), CounterCommand(60, 0.06, 5));
  config.restart = RestartPolicy::kLocal;
  config.max_restarts = 5;
  auto r = RunOnce(config, std::make_unique<ChaosPreemptions>(milliseconds(400), 11, 3));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->outcome, RunOutcome::kFinished) << r->message;
  EXPECT_EQ(r->preemptions, 3);
  EXPECT_EQ(r->restarts, 3);
  EXPECT_EQ(r->segments, 4);
  // Chaos arms at each segment's first progress report, so however slowly a restarted command
  // loads, it reports progress before its notice: every restart has its resume time.
  EXPECT_EQ(r->resume_times.size(), 3u);
  ASSERT_TRUE(r->result.has_value());
  EXPECT_EQ(static_cast<long long>(r->result->metrics.at("value")), CounterValue(60));
  const auto journal = config.run_dir / "journal.jsonl";
  EXPECT_EQ(Records(journal, "segment_opened").size(), 4u);
  EXPECT_EQ(Records(journal, "event", "preempted").size(), 3u);
  EXPECT_EQ(Records(journal, "event", "resumed").size(), r->resume_times.size());
  // On notice the child checkpointed, so nothing was lost.
  for (int64_t lost : r->lost_steps) EXPECT_EQ(lost, 0);
}

TEST(Supervisor, AChaosNoticeWaitsForASlowlyStartingCommandsFirstProgress) {
  // Each segment's command takes far longer to start than the chaos interval (as on a loaded
  // machine): every notice still comes after that segment's first progress, so each one is
  // checkpointed on and each restart is timed.
  frugal::testing::TempDir dir;
  std::string counter;
  // Work enough that no notice comes after the last step (a restart from the final checkpoint
  // reports no progress, so it has no resume time), even when the supervisor lags.
  for (const std::string& arg : CounterCommand(80, 0.04, 5)) counter += " '" + arg + "'";
  auto config = Config(dir.path(), Shell("sleep 0.6; exec" + counter));
  config.restart = RestartPolicy::kLocal;
  config.max_restarts = 3;
  auto r = RunOnce(config, std::make_unique<ChaosPreemptions>(milliseconds(100), 11, 2));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->outcome, RunOutcome::kFinished) << r->message;
  EXPECT_EQ(r->preemptions, 2);
  EXPECT_EQ(r->resume_times.size(), 2u);
  EXPECT_EQ(Records(config.run_dir / "journal.jsonl", "event", "resumed").size(), 2u);
  ASSERT_TRUE(r->result.has_value());
  EXPECT_EQ(static_cast<long long>(r->result->metrics.at("value")), CounterValue(80));
  for (int64_t lost : r->lost_steps) EXPECT_EQ(lost, 0);
}

TEST(Supervisor, LocalRestartsHoldTheCapacityAndTheSpendIsWhatTheSegmentsPrice) {
  frugal::testing::TempDir dir;
  auto config = Config(dir.path(), CounterCommand(40, 0.06, 5));
  config.restart = RestartPolicy::kLocal;
  config.restart_backoff = milliseconds(300);  // then 600 ms: held, so paid for
  auto r = RunOnce(config, std::make_unique<ChaosPreemptions>(milliseconds(400), 11, 2));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->segments, 3) << r->message;
  const auto journal = config.run_dir / "journal.jsonl";
  const auto opened = Records(journal, "segment_opened");
  const auto closed = Records(journal, "segment_closed");
  ASSERT_EQ(opened.size(), 3u);
  ASSERT_EQ(closed.size(), 3u);
  // One held stretch: each restarted segment opens where the previous one closed.
  EXPECT_EQ(opened[1]["at"], closed[0]["at"]);
  EXPECT_EQ(opened[2]["at"], closed[1]["at"]);
  // Each segment's cost is price × its recorded length, as the ledger prices it, and the
  // spend is their sum, backoffs included.
  Money sum;
  for (size_t i = 0; i < 3; ++i) {
    const Duration length = RecordedLength(*ParseWallTime(opened[i]["at"].get<std::string>()),
                                           *ParseWallTime(closed[i]["at"].get<std::string>()));
    EXPECT_EQ(closed[i]["cost_micros"].get<int64_t>(), config.price.For(length).micros());
    sum += config.price.For(length);
  }
  EXPECT_EQ(r->recorded.spent, sum);
  EXPECT_EQ(r->recorded_total.spent, sum);
  EXPECT_GE(r->recorded.wall, milliseconds(900));
  EXPECT_EQ(ReadJournalHistory(journal).recorded.spent, sum);
  // The caps counted the supervisor's whole time: never less.
  EXPECT_GE(r->usage.spent, r->recorded.spent);
  EXPECT_LE(r->usage.spent - r->recorded.spent, config.price.For(milliseconds(500)));
}

TEST(Supervisor, PreemptionWithoutLocalRestartAsksForARequeueAndTheNextAttemptResumes) {
  frugal::testing::TempDir dir;
  auto config = Config(dir.path(), CounterCommand(30, 0.03, 100));
  // The notice comes once the command has reported its third step, however long it took to
  // start: it is running, with its handler installed, and 27 steps from its end.
  auto first = RunOnce(config, std::make_unique<NoticeAtStep>(3));
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(first->outcome, RunOutcome::kPreempted);
  EXPECT_EQ(first->exit_code, kRequeueExitCode);
  EXPECT_GE(first->checkpoints_committed,
            1);  // taken on notice (and again on SIGTERM if it moved on)
  auto second = RunOnce(config);
  ASSERT_TRUE(second.has_value()) << second.error().message;
  EXPECT_EQ(second->outcome, RunOutcome::kFinished);
  EXPECT_EQ(second->attempt, 2);
  EXPECT_EQ(static_cast<long long>(second->result->metrics.at("value")), CounterValue(30));
  auto opened = Records(config.run_dir / "journal.jsonl", "segment_opened");
  ASSERT_EQ(opened.size(), 2u);
  EXPECT_EQ(opened[1]["segment"], 2);
  EXPECT_GT(opened[1]["resume_step"].get<int>(), 0);
  EXPECT_GT(second->total.spent, second->usage.spent);  // the first attempt's spend carried over
}

/// The longest gap between two consecutive records of `journal` up to `until`, in ms.
int64_t LongestStepBefore(const std::vector<nlohmann::json>& journal, WallTime until) {
  int64_t longest = 0;
  std::optional<WallTime> previous;
  for (const nlohmann::json& r : journal) {
    const auto at = ParseWallTime(r.value("at", ""));
    if (!at || *at > until) continue;
    if (previous)
      longest = std::max<int64_t>(
          longest, std::chrono::duration_cast<milliseconds>(*at - *previous).count());
    previous = at;
  }
  return longest;
}

TEST(Supervisor, BudgetCapsAtRandomMomentsOvershootByAtMostOneIntervalPlusGrace) {
  std::mt19937 rng(20260520);
  std::uniform_int_distribution<int> cap_ms(300, 1200);
  for (int i = 0; i < 3; ++i) {
    frugal::testing::TempDir dir;
    // A child that ignores the protocol entirely: it has to be killed.
    auto config = Config(dir.path(), Shell("trap '' TERM USR1; while :; do sleep 0.05; done"));
    config.price = Rate{Money::FromCents(3600)};  // one cent per second
    config.checkpoint_grace = milliseconds(150);
    config.stop_grace = milliseconds(150);
    const int cap = cap_ms(rng);
    config.caps.dollars = Money::FromMicros(cap * 10);
    auto r = RunOnce(config);
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->outcome, RunOutcome::kBudgetStop);
    EXPECT_EQ(r->exit_code, 3);
    ASSERT_TRUE(r->cap.has_value());
    EXPECT_EQ(*r->cap, CapKind::kDollars);
    const auto stops = Records(config.run_dir / "journal.jsonl", "event", "budget_stop");
    const auto closed = Records(config.run_dir / "journal.jsonl", "segment_closed");
    ASSERT_EQ(stops.size(), 1u);
    ASSERT_EQ(closed.size(), 1u);
    EXPECT_EQ(Records(config.run_dir / "journal.jsonl", "event", "budget_warning").size(), 1u);
    const auto stopped_at = ParseWallTime(stops[0].value("at", ""));
    const auto closed_at = ParseWallTime(closed[0].value("at", ""));
    ASSERT_TRUE(stopped_at && closed_at);
    // From the stop to the segment's end: SIGTERM's grace (a command that never spoke the
    // protocol is not asked for a checkpoint), then SIGKILL. How long the kill itself takes is
    // the machine's; 2 s more than both graces still says the escalation happened.
    const auto stop_to_close =
        std::chrono::duration_cast<milliseconds>(*closed_at - *stopped_at).count();
    EXPECT_GE(stop_to_close, 150) << "SIGTERM's grace is waited out: the child ignores it";
    EXPECT_LE(stop_to_close, 300 + 2000) << "cap " << cap << " ms";
    // The money: past the cap by at most one accrual interval (100 ms) before the stop, or by
    // the longest the supervisor went between two records (a loaded machine runs a tick late;
    // spawning the child is one such step), then every millisecond from the stop to the run's
    // last accrual, just before it records its end.
    const auto journal = ReadJournal(config.run_dir / "journal.jsonl");
    const auto finished = Records(config.run_dir / "journal.jsonl", "run_finished");
    ASSERT_EQ(finished.size(), 1u);
    const auto finished_at = ParseWallTime(finished[0].value("at", ""));
    ASSERT_TRUE(finished_at);
    const auto stop_to_end =
        std::chrono::duration_cast<milliseconds>(*finished_at - *stopped_at).count();
    const auto step_ms = std::max<int64_t>(100, LongestStepBefore(journal, *stopped_at));
    const Money overshoot = r->total.spent - *config.caps.dollars;
    EXPECT_GE(overshoot, Money());
    EXPECT_LE(overshoot, Money::FromMicros((step_ms + stop_to_end + 2) * 10))
        << "cap " << cap << " ms";
  }
}

/// Drives a FakeClock from the supervisor's own loop: once the command reports progress, every
/// tick (each Poll while it runs) moves the run's time on by `step`.
class ClockDriver final : public PreemptionSource {
 public:
  ClockDriver(FakeClock& clock, Duration step) : clock_(clock), step_(step) {}
  void SegmentStarted(SteadyTime /*now*/) override {}
  void Progress(int64_t /*step*/) override { progressed_ = true; }
  std::optional<PreemptionNotice> Poll(SteadyTime /*now*/) override {
    if (progressed_) clock_.Advance(step_);
    return std::nullopt;
  }

 private:
  FakeClock& clock_;
  Duration step_;
  bool progressed_ = false;
};

TEST(Supervisor, TheCapsAndTheRecordsRunOnTheInjectedClock) {
  frugal::testing::TempDir dir;
  // Six seconds of real work; the run's clock says ten minutes pass at each tick.
  auto config = Config(dir.path(), CounterCommand(200, 0.03, 1000));
  config.caps.wall = std::chrono::hours(1);
  config.heartbeat_interval = std::chrono::hours(100);
  FakeClock clock(WallTime(std::chrono::seconds(1'800'000'000)));
  RunJournal journal(config.run_dir / "journal.jsonl");
  Supervisor supervisor(config, journal, clock);
  supervisor.AddPreemptionSource(std::make_unique<ClockDriver>(clock, std::chrono::minutes(10)));
  auto r = supervisor.Run();
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->outcome, RunOutcome::kBudgetStop) << r->message;
  ASSERT_TRUE(r->cap.has_value());
  EXPECT_EQ(*r->cap, CapKind::kWall);
  // The cap is checked every tick (the accrual interval is shorter than one), so the stop
  // began at the tick that reached the hour; the command then checkpointed and stopped while
  // the run's clock stood still.
  EXPECT_GE(r->usage.wall, std::chrono::hours(1));
  EXPECT_LT(r->usage.wall, std::chrono::minutes(70));
  EXPECT_LT(r->last_step, 200);
  const auto journal_path = config.run_dir / "journal.jsonl";
  EXPECT_EQ(Records(journal_path, "event", "budget_warning").size(), 1u);
  EXPECT_EQ(Records(journal_path, "event", "budget_stop").size(), 1u);
  // The records' times are the clock's: the segment lasted the clock's hour.
  const auto opened = Records(journal_path, "segment_opened");
  const auto closed = Records(journal_path, "segment_closed");
  ASSERT_EQ(opened.size(), 1u);
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(*ParseWallTime(opened[0]["at"].get<std::string>()),
            WallTime(std::chrono::seconds(1'800'000'000)));
  EXPECT_EQ(RecordedLength(*ParseWallTime(opened[0]["at"].get<std::string>()),
                           *ParseWallTime(closed[0]["at"].get<std::string>())),
            r->usage.wall);
}

TEST(Supervisor, AChildThatIgnoresSigtermIsKilledAfterTheGracePeriods) {
  frugal::testing::TempDir dir;
  auto config = Config(dir.path(), Shell("trap '' TERM USR1; while :; do sleep 0.05; done"));
  config.checkpoint_grace = milliseconds(200);
  config.stop_grace = milliseconds(200);
  const auto started = std::chrono::steady_clock::now();
  // A command that speaks no protocol never reports progress: chaos counts from its start.
  auto r = RunOnce(config, std::make_unique<ChaosPreemptions>(milliseconds(200), 1, 1,
                                                              ChaosArming::kAtSegmentStart));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, RunOutcome::kPreempted);
  EXPECT_EQ(r->child_exit->signal, SIGKILL);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(5));
}

TEST(Supervisor, AChildThatForksAndExitsLeavesNothingBehind) {
  frugal::testing::TempDir dir;
  const auto pidfile = dir / "orphan.pid";
  auto config =
      Config(dir.path(), Shell("sleep 60 & echo $! > '" + pidfile.string() + "'; exit 0"));
  config.stop_grace = milliseconds(300);
  auto r = RunOnce(config);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, RunOutcome::kFinished);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("left processes running"), std::string::npos);
  const pid_t orphan = static_cast<pid_t>(std::stol(*ReadFile(pidfile)));
  EXPECT_NE(::kill(orphan, 0), 0);
  EXPECT_EQ(Records(config.run_dir / "journal.jsonl", "event", "warning").size(), 1u);
}

TEST(Supervisor, GarbageReportLinesAreCountedAndWarnedNeverFatal) {
  frugal::testing::TempDir dir;
  auto config =
      Config(dir.path(),
             Shell("echo 'loss=0.3' >> \"$FRUGAL_REPORT\"; echo '{oops' >> \"$FRUGAL_REPORT\";"
                   "echo '{\"type\":\"progress\",\"step\":7}' >> \"$FRUGAL_REPORT\"; sleep 0.3"));
  auto r = RunOnce(config);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, RunOutcome::kFinished);
  EXPECT_EQ(r->garbage_report_lines, 2);
  EXPECT_EQ(r->last_step, 7);
}

TEST(Supervisor, AVanishedCheckpointDirectoryIsReportedAndTheRunGoesOn) {
  frugal::testing::TempDir dir;
  auto config = Config(
      dir.path(),
      Shell("rm -rf \"$FRUGAL_CHECKPOINT_DIR\"; "
            "echo '{\"type\":\"checkpoint\",\"path\":\"s1\",\"step\":1}' >> \"$FRUGAL_REPORT\";"
            "echo '{\"type\":\"progress\",\"step\":2}' >> \"$FRUGAL_REPORT\"; sleep 0.3"));
  auto r = RunOnce(config);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, RunOutcome::kFinished);
  EXPECT_EQ(r->checkpoints_rejected, 1);
  auto rejected = Records(config.run_dir / "journal.jsonl", "event", "checkpoint_rejected");
  ASSERT_EQ(rejected.size(), 1u);
  EXPECT_NE(rejected[0]["detail"].get<std::string>().find("vanished"), std::string::npos);
}

TEST(Supervisor, ASignalToTheSupervisorIsAPreemptionThatAlwaysRequeues) {
  frugal::testing::TempDir dir;
  auto config = Config(dir.path(), CounterCommand(200, 0.02, 1000));
  config.restart = RestartPolicy::kLocal;  // the supervisor itself is going away: no local restart
  auto r = RunOnce(config, std::make_unique<SignalAtFirstProgress>(SIGUSR1));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->outcome, RunOutcome::kPreempted);
  EXPECT_EQ(r->exit_code, kRequeueExitCode);
  EXPECT_EQ(r->restarts, 0);
  EXPECT_GE(r->checkpoints_committed, 1);
  auto notices = Records(config.run_dir / "journal.jsonl", "event", "preemption_notice");
  ASSERT_EQ(notices.size(), 1u);
  EXPECT_EQ(notices[0]["detail"], "signal SIGUSR1");
}

TEST(Supervisor, ACommandThatFinishesAsANoticeComesHasFinishedAndIsNotRequeued) {
  frugal::testing::TempDir dir;
  // Its last step is done when the notice arrives: it reports its result and exits 0.
  auto config =
      Config(dir.path(),
             Shell("r='{\"type\":\"result\",\"metrics\":{\"value\":7}}';"
                   " finish() { echo \"$r\" >> \"$FRUGAL_REPORT\"; exit 0; }; trap finish USR1;"
                   " echo '{\"type\":\"progress\",\"step\":1}' >> \"$FRUGAL_REPORT\";"
                   " while :; do sleep 0.05; done"));
  auto r = RunOnce(config, std::make_unique<SignalAtFirstProgress>(SIGUSR1));
  ASSERT_TRUE(r.has_value()) << r.error().message;
  EXPECT_EQ(r->outcome, RunOutcome::kFinished);
  EXPECT_EQ(r->exit_code, 0);
  ASSERT_TRUE(r->result.has_value());
  EXPECT_EQ(r->result->metrics.at("value"), 7);
  EXPECT_EQ(r->preemptions, 0);  // the notice ended no segment
  auto closed = Records(config.run_dir / "journal.jsonl", "segment_closed");
  ASSERT_EQ(closed.size(), 1u);
  EXPECT_EQ(closed[0]["end"], "finished");
}

TEST(Supervisor, ACommandThatCannotStartIsBadInput) {
  frugal::testing::TempDir dir;
  auto r = RunOnce(Config(dir.path(), {"frugal-no-such-trainer"}));
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
}

TEST(PythonHelper, ACheckpointRequestAfterTheScriptEndedIsIgnored) {
  // Python puts the default (fatal) action back for SIGUSR1 as it shuts down: a request that
  // lands then would read as "killed by SIGUSR1". Once the script's exit handlers ran, the
  // helper has the signal ignored: its last checkpoint stands.
  testing::UsePythonHelper();
  const frugal::testing::CommandResult r = frugal::testing::RunProgram(
      {FRUGAL_PYTHON, "-c",
       "import atexit, signal, frugal\n"
       "assert signal.getsignal(signal.SIGUSR1) not in (signal.SIG_IGN, signal.SIG_DFL)\n"
       "atexit._run_exitfuncs()\n"
       "print(signal.getsignal(signal.SIGUSR1) == signal.SIG_IGN)\n"},
      {"FRUGAL_REPORT=/dev/null"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "True\n") << r.err;
}

}  // namespace
}  // namespace frugal::run

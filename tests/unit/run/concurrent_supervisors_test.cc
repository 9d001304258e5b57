// Several supervisors in one process, one per thread (how the tuner runs trials side by side):
// signals reach every one of them, and each reaps only what its own command left behind.

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <thread>
#include <vector>

#include "frugal/core/atomic_file.h"
#include "frugal/run/run_journal.h"
#include "frugal/run/signal_watcher.h"
#include "frugal/run/supervisor.h"
#include "run_test_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

using std::chrono::milliseconds;
using testing::Shell;

TEST(SignalWatcher, EverySignalReachesEveryWatcherOnce) {
  struct sigaction before {};
  ::sigaction(SIGUSR1, nullptr, &before);
  {
    SignalWatcher a;
    SignalWatcher b;
    ::raise(SIGUSR1);
    a.WaitFor(milliseconds(1000));
    EXPECT_EQ(a.TakePreemptionSignal(), SIGUSR1);
    EXPECT_EQ(b.TakePreemptionSignal(), SIGUSR1);
    EXPECT_EQ(a.TakePreemptionSignal(), 0);
    SignalWatcher late;  // made after the signal: it never sees it
    EXPECT_EQ(late.TakePreemptionSignal(), 0);
    ::raise(SIGINT);
    EXPECT_TRUE(late.TakeInterrupt());
    EXPECT_TRUE(b.TakeInterrupt());
    EXPECT_FALSE(b.TakeInterrupt());
  }
  // The last watcher gone, the previous handler is back.
  struct sigaction after {};
  ::sigaction(SIGUSR1, nullptr, &after);
  EXPECT_EQ(after.sa_handler, before.sa_handler);
}

TEST(ConcurrentSupervisors, EachSeesItsOwnCommandsExitAndOrphansAreReaped) {
  frugal::testing::TempDir dir;
  constexpr int kRuns = 4;
  std::vector<Result<RunResult>> results(kRuns, Fail(ErrorCode::kFailed, "not run"));
  std::vector<std::string> orphan_files;
  std::vector<std::thread> threads;
  for (int i = 0; i < kRuns; ++i) {
    // Each command leaves an orphan behind and exits with its own code at its own moment, so
    // leaders and orphans of different supervisors exit while the others poll and reap.
    orphan_files.push_back((dir / ("orphan-" + std::to_string(i))).string());
    SupervisorConfig c;
    c.command = Shell("sleep 0.3 & echo $! > '" + orphan_files.back() + "'; sleep 0." +
                      std::to_string(1 + i) + "; exit " + std::to_string(10 + i));
    c.run_id = "run-" + std::to_string(i);
    c.run_dir = dir / c.run_id;
    c.stop_grace = milliseconds(500);
    c.accrual_interval = milliseconds(50);
    threads.emplace_back([c, &results, i] {
      RunJournal journal(c.run_dir / "journal.jsonl");
      Supervisor supervisor(c, journal);
      results[static_cast<size_t>(i)] = supervisor.Run();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int i = 0; i < kRuns; ++i) {
    const Result<RunResult>& r = results[static_cast<size_t>(i)];
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->outcome, RunOutcome::kFailed) << i;
    ASSERT_TRUE(r->child_exit.has_value());
    // Another supervisor reaping this leader would have left the "unknown" status 255.
    EXPECT_EQ(r->child_exit->exit_code, 10 + i);
    const pid_t orphan =
        static_cast<pid_t>(std::stol(*ReadFile(orphan_files[static_cast<size_t>(i)])));
    EXPECT_NE(::kill(orphan, 0), 0) << "orphan " << orphan << " still exists (a zombie?)";
  }
  siginfo_t info{};
  const int none = ::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT);
  EXPECT_TRUE(none != 0 || info.si_pid == 0)
      << "an exited child was left unreaped: " << info.si_pid;
}

}  // namespace
}  // namespace frugal::run

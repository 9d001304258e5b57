#include "frugal/run/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

using std::chrono::seconds;

/// Whether a process exists and is not a zombie.
bool Running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const size_t close = line.rfind(')');
  return close != std::string::npos && line.size() > close + 2 && line[close + 2] != 'Z';
}

pid_t WaitForPidFile(const std::filesystem::path& p) {
  const std::string line = frugal::testing::WaitForLine(p, std::chrono::seconds(5));
  return line.empty() ? -1 : static_cast<pid_t>(std::stol(line));
}

TEST(ChildProcess, ReportsExitCodesAndSignals) {
  auto ok = ChildProcess::Spawn({{"/bin/sh", "-c", "exit 0"}, {}, ChildStdout::kInherit});
  ASSERT_TRUE(ok.has_value());
  EXPECT_TRUE((*ok)->WaitFor(seconds(10))->Succeeded());
  auto three = ChildProcess::Spawn({{"/bin/sh", "-c", "exit 3"}, {}, ChildStdout::kInherit});
  EXPECT_EQ((*three)->WaitFor(seconds(10))->exit_code, 3);
  auto killed = ChildProcess::Spawn({{"/bin/sh", "-c", "kill -9 $$"}, {}, ChildStdout::kInherit});
  auto s = (*killed)->WaitFor(seconds(10));
  EXPECT_EQ(s->signal, SIGKILL);
  EXPECT_EQ(s->Describe(), "killed by SIGKILL");
}

TEST(ChildProcess, PassesEnvironmentWithoutChangingOurs) {
  frugal::testing::TempDir dir;
  auto c = ChildProcess::Spawn({{"/bin/sh", "-c", "echo \"$FRUGAL_TEST_X\" > \"$OUT\""},
                                {{"FRUGAL_TEST_X", "42"}, {"OUT", (dir / "out").string()}},
                                ChildStdout::kInherit});
  ASSERT_TRUE(c.has_value());
  (*c)->WaitFor(seconds(10));
  EXPECT_EQ(*ReadFile(dir / "out"), "42\n");
  EXPECT_EQ(std::getenv("FRUGAL_TEST_X"), nullptr);
}

TEST(ChildProcess, UnknownCommandIsBadInput) {
  auto c = ChildProcess::Spawn({{"frugal-no-such-command-xyz"}, {}, ChildStdout::kInherit});
  ASSERT_FALSE(c.has_value());
  EXPECT_EQ(c.error().code, ErrorCode::kBadInput);
  EXPECT_NE(c.error().message.find("frugal-no-such-command-xyz"), std::string::npos);
}

TEST(ChildProcess, DestructorKillsTheWholeGroup) {
  frugal::testing::TempDir dir;
  const auto pidfile = dir / "grandchild";
  pid_t grandchild = -1;
  {
    auto c = ChildProcess::Spawn({{"/bin/sh", "-c", "sleep 60 & echo $! > \"$P\"; wait"},
                                  {{"P", pidfile.string()}},
                                  ChildStdout::kInherit});
    ASSERT_TRUE(c.has_value());
    grandchild = WaitForPidFile(pidfile);
    ASSERT_GT(grandchild, 0);
    EXPECT_TRUE(Running(grandchild));
    EXPECT_TRUE((*c)->GroupAlive());
  }
  for (int i = 0; i < 200 && Running(grandchild); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(Running(grandchild));
}

// What a killed supervisor's command left behind is found by its environment, unless a live
// ChildProcess here still owns its group; what is found is stopped with its whole group.
TEST(ChildProcess, LeftoversAreFoundByEnvironmentAndStoppedWithTheirGroup) {
  frugal::testing::TempDir dir;
  const std::string mark = "FRUGAL_TEST_MARK=" + std::to_string(::getpid()) + "-leftover";
  const std::pair<std::string, std::string> env = {"FRUGAL_TEST_MARK",
                                                   mark.substr(mark.find('=') + 1)};
  auto owned =
      ChildProcess::Spawn({{"/bin/sh", "-c", "exec sleep 60"}, {env}, ChildStdout::kInherit});
  ASSERT_TRUE(owned.has_value());
  // `setsid` puts the shell and its sleep in a group of their own that nothing here owns, as a
  // dead supervisor's command's would be.
  const auto pidfile = dir / "leftover";
  auto launcher = ChildProcess::Spawn(
      {{"/bin/sh", "-c", "setsid /bin/sh -c 'sleep 60 & echo $! > \"$P\"; wait' &"},
       {env, {"P", pidfile.string()}},
       ChildStdout::kInherit});
  ASSERT_TRUE(launcher.has_value());
  (*launcher)->WaitFor(seconds(10));
  const pid_t leftover = WaitForPidFile(pidfile);
  ASSERT_GT(leftover, 0);

  const std::vector<pid_t> found = ProcessesWithEnvironment({mark});
  EXPECT_NE(std::find(found.begin(), found.end(), leftover), found.end());
  EXPECT_EQ(std::find(found.begin(), found.end(), (*owned)->pid()), found.end());
  EXPECT_TRUE(ProcessesWithEnvironment({mark, "FRUGAL_TEST_MARK=other"}).empty());

  StopProcessGroups(found, std::chrono::milliseconds(2000));
  for (int i = 0; i < 200 && Running(leftover); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(Running(leftover));
  EXPECT_TRUE(ProcessesWithEnvironment({mark}).empty());
  EXPECT_TRUE(Running((*owned)->pid()));
}

}  // namespace
}  // namespace frugal::run

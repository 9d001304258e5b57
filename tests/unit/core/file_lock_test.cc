#include "frugal/core/file_lock.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

#include "support/test_support.h"

namespace frugal {
namespace {

using testing::TempDir;

TEST(FileLock, OneHolderAtATimeAndTheRefusalNamesIt) {
  TempDir dir;
  const auto path = dir.path() / "deep" / "study.lock";
  {
    Result<FileLock> held = FileLock::Acquire(path, "study 'x'");
    ASSERT_TRUE(held.has_value()) << held.error().message;
    const Result<FileLock> again = FileLock::Acquire(path, "study 'x'");
    ASSERT_FALSE(again.has_value());
    EXPECT_EQ(again.error().code, ErrorCode::kBadInput);
    EXPECT_NE(again.error().message.find("study 'x' is in use by another frugal process (pid " +
                                         std::to_string(::getpid()) + ")"),
              std::string::npos)
        << again.error().message;
    // Moved, it is still held.
    FileLock moved = std::move(*held);
    EXPECT_FALSE(FileLock::Acquire(path, "study 'x'").has_value());
  }
  // Released with its holder.
  EXPECT_TRUE(FileLock::Acquire(path, "study 'x'").has_value());
}

TEST(FileLock, AFolderThatCannotBeCreatedIsNamed) {
  testing::TempDir dir;
  // A file where the lock's folder should be: no user, root included, can create it.
  testing::WriteTestFile(dir / "home", "not a folder");
  auto lock = FileLock::Acquire(dir / "home" / "runs" / "r1" / "supervisor.lock", "run 'r1'");
  ASSERT_FALSE(lock.has_value());
  EXPECT_EQ(lock.error().code, ErrorCode::kFailed);
  EXPECT_NE(lock.error().message.find("cannot create " + (dir / "home" / "runs" / "r1").string()),
            std::string::npos)
      << lock.error().message;
}

TEST(FileLock, AKilledHolderLeavesNoStaleLock) {
  TempDir dir;
  const auto path = dir.path() / "run.lock";
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<FileLock> held = FileLock::Acquire(path, "run 'r'");
    const char ok = held.has_value() ? 'y' : 'n';
    (void)!::write(ready[1], &ok, 1);
    ::pause();
    ::_exit(0);
  }
  char ok = 0;
  ASSERT_EQ(::read(ready[0], &ok, 1), 1);
  ASSERT_EQ(ok, 'y');
  EXPECT_FALSE(FileLock::Acquire(path, "run 'r'").has_value());
  ::kill(child, SIGKILL);
  int status = 0;
  ::waitpid(child, &status, 0);
  EXPECT_TRUE(FileLock::Acquire(path, "run 'r'").has_value());
  ::close(ready[0]);
  ::close(ready[1]);
}

}  // namespace
}  // namespace frugal

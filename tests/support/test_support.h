#pragma once
// Test helpers: run the real frugal binary, make temporary directories.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace frugal::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// Runs the built frugal binary with `args` (and extra environment "K=V" entries), capturing
/// stdout and stderr. FRUGAL_HOME points at `home` when given, so tests never touch the user's
/// real data directory.
CommandResult RunFrugal(const std::vector<std::string>& args,
                        const std::filesystem::path& home = {},
                        const std::vector<std::string>& env = {});

/// Starts the built frugal binary the same way, without waiting: its stdout goes to
/// /dev/null, its stderr to the test's. Returns the child's pid (negative when fork fails) for
/// the caller to signal and reap.
pid_t StartFrugal(const std::vector<std::string>& args, const std::filesystem::path& home = {},
                  const std::vector<std::string>& env = {});

/// Reads a child's stdout and stderr pipes to their end into `out` and `err`, closes them and
/// reaps `pid`; returns its exit status (128 + signal when killed).
int DrainAndReap(pid_t pid, int out_fd, int err_fd, std::string& out, std::string& err);

/// Runs any program the same way.
CommandResult RunProgram(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env = {});

/// A fresh directory removed (recursively) when the object goes away.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

/// Writes a file (creating parents); aborts the test on failure.
void WriteTestFile(const std::filesystem::path& path, const std::string& contents);
/// A file's whole contents; empty when it cannot be read.
std::string ReadTestFile(const std::filesystem::path& path);
/// The first line of a file another process is writing, without its newline, once the whole
/// line is there (a file exists before anything is written to it); empty after `limit`.
std::string WaitForLine(const std::filesystem::path& path, std::chrono::milliseconds limit);

/// A TCP port on 127.0.0.1 that nothing listened on a moment ago (0 when none could be found).
int FreeLoopbackPort();

/// The source tree's root, and the shared raw data folder beside it.
std::filesystem::path SourceDir();
std::filesystem::path SharedDataDir();

/// The value tests/unit/run/children/counter.py ends with after `steps` steps, interrupted or
/// not (its recurrence, checked by every resume test).
long long CounterValue(int steps);

}  // namespace frugal::testing

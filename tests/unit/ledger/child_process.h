#pragma once
// A writer child process for the concurrency and crash tests: its stdout (the op log) is read
// back through a pipe; the destructor kills and reaps it.

#include <signal.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace frugal::ledger::testing {

class ChildProcess {
 public:
  explicit ChildProcess(const std::vector<std::string>& argv);
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void Kill(int signal = SIGKILL);
  /// Reads stdout and stderr to the end and reaps the child; returns its exit status
  /// (128 + signal when killed).
  int Wait();
  const std::string& out() const { return out_; }
  const std::string& err() const { return err_; }
  /// The last complete number the child logged, or 0.
  int64_t LastLoggedOp() const;

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::string out_;
  std::string err_;
  int status_ = -1;
};

}  // namespace frugal::ledger::testing

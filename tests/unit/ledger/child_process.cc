#include "child_process.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "support/test_support.h"

namespace frugal::ledger::testing {

ChildProcess::ChildProcess(const std::vector<std::string>& argv) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) std::abort();
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::perror("execv");
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  out_fd_ = out_pipe[0];
  err_fd_ = err_pipe[0];
}

ChildProcess::~ChildProcess() {
  if (status_ < 0 && pid_ > 0) {
    Kill();
    Wait();
  }
}

void ChildProcess::Kill(int signal) {
  if (pid_ > 0 && status_ < 0) ::kill(pid_, signal);
}

int ChildProcess::Wait() {
  if (status_ >= 0) return status_;
  status_ = frugal::testing::DrainAndReap(pid_, out_fd_, err_fd_, out_, err_);
  return status_;
}

int64_t ChildProcess::LastLoggedOp() const {
  // Only whole lines count: a kill can cut the last one short.
  const size_t end = out_.rfind('\n');
  if (end == std::string::npos) return 0;
  const size_t start = out_.rfind('\n', end == 0 ? 0 : end - 1);
  const std::string line =
      out_.substr(start == std::string::npos || end == 0 ? 0 : start + 1,
                  end - (start == std::string::npos || end == 0 ? 0 : start + 1));
  return std::atoll(line.c_str());
}

}  // namespace frugal::ledger::testing

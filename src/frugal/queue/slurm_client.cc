#include "frugal/queue/slurm_client.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>

namespace frugal::queue {
namespace {

/// A pipe's two ends, closed when it goes away.
struct Pipe {
  int fd[2] = {-1, -1};
  Pipe() {
    if (::pipe2(fd, O_CLOEXEC) != 0) fd[0] = fd[1] = -1;
  }
  ~Pipe() {
    for (int f : fd) {
      if (f >= 0) ::close(f);
    }
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
  void CloseWrite() {
    if (fd[1] >= 0) ::close(fd[1]);
    fd[1] = -1;
  }
};

/// Reads both pipes to their end, or until `deadline`; false when the deadline came first.
bool Drain(Pipe& out, Pipe& err, std::chrono::steady_clock::time_point deadline,
           SlurmOutput& result) {
  pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
  std::string* sinks[2] = {&result.out, &result.err};
  int open = 2;
  char buffer[4096];
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    const int ready = ::poll(fds, 2, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        sinks[i]->append(buffer, static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;
        --open;
      }
    }
  }
  return true;
}

class SystemSlurmClient final : public SlurmClient {
 public:
  SystemSlurmClient(std::string bin_dir, std::chrono::seconds limit)
      : bin_dir_(std::move(bin_dir)), limit_(limit) {}

  Result<SlurmOutput> Run(const std::string& tool, const std::vector<std::string>& args) override {
    const std::string program =
        bin_dir_.empty() ? tool : (std::filesystem::path(bin_dir_) / tool).string();
    std::vector<std::string> argv = {program};
    argv.insert(argv.end(), args.begin(), args.end());
    std::vector<char*> cargs;
    for (std::string& a : argv) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    Pipe out, err, exec_error;
    if (out.fd[0] < 0 || err.fd[0] < 0 || exec_error.fd[0] < 0) {
      return Fail(ErrorCode::kFailed, std::string("pipe: ") + std::strerror(errno));
    }
    const pid_t pid = ::fork();
    if (pid < 0) return Fail(ErrorCode::kFailed, std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
      ::setpgid(0, 0);
      ::dup2(out.fd[1], 1);
      ::dup2(err.fd[1], 2);
      const int null = ::open("/dev/null", O_RDONLY);
      if (null >= 0) ::dup2(null, 0);
      ::execvp(cargs[0], cargs.data());
      const int e = errno;
      [[maybe_unused]] const ssize_t n = ::write(exec_error.fd[1], &e, sizeof e);
      ::_exit(127);
    }
    out.CloseWrite();
    err.CloseWrite();
    exec_error.CloseWrite();
    SlurmOutput result;
    const bool finished = Drain(out, err, std::chrono::steady_clock::now() + limit_, result);
    if (!finished) ::kill(-pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    int exec_errno = 0;
    if (::read(exec_error.fd[0], &exec_errno, sizeof exec_errno) == sizeof exec_errno) {
      return Fail(ErrorCode::kUnavailable,
                  fmt::format("{}: cannot run it: {} (Debian package slurm-client)", program,
                              std::strerror(exec_errno)));
    }
    if (!finished) {
      return Fail(ErrorCode::kUnavailable,
                  fmt::format("{}: no answer within {} s (is slurmctld reachable?)", program,
                              limit_.count()));
    }
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return result;
  }

 private:
  std::string bin_dir_;
  std::chrono::seconds limit_;
};

bool IsKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '_' && c != '/' && c != ':') {
      return false;
    }
  }
  return true;
}

}  // namespace

std::unique_ptr<SlurmClient> MakeSystemSlurmClient(std::string bin_dir,
                                                   std::chrono::seconds limit) {
  return std::make_unique<SystemSlurmClient>(std::move(bin_dir), limit);
}

std::map<std::string, std::string> ParseScontrolFields(const std::string& line) {
  std::map<std::string, std::string> fields;
  std::string* last = nullptr;
  size_t at = 0;
  while (at < line.size()) {
    const size_t end = std::min(line.find_first_of(" \n", at), line.size());
    const std::string_view token(line.data() + at, end - at);
    at = end + 1;
    if (token.empty()) continue;
    const size_t eq = token.find('=');
    if (eq != std::string_view::npos && IsKey(token.substr(0, eq))) {
      last = &fields[std::string(token.substr(0, eq))];
      *last = std::string(token.substr(eq + 1));
    } else if (last != nullptr) {
      *last += " " + std::string(token);
    }
  }
  return fields;
}

}  // namespace frugal::queue

#include "support/test_support.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>

extern char** environ;

namespace frugal::testing {

int DrainAndReap(pid_t pid, int out_fd, int err_fd, std::string& out, std::string& err) {
  pollfd fds[2] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}};
  int open_fds = 2;
  char buffer[65536];
  while (open_fds > 0) {
    if (::poll(fds, 2, -1) < 0) break;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t n = ::read(fds[i].fd, buffer, sizeof buffer);
      if (n <= 0) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open_fds;
      } else {
        (i == 0 ? out : err).append(buffer, static_cast<size_t>(n));
      }
    }
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

CommandResult RunProgram(const std::vector<std::string>& argv,
                         const std::vector<std::string>& env) {
  int out_pipe[2];
  int err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0) std::abort();
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    for (const std::string& kv : env) ::putenv(const_cast<char*>(kv.c_str()));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    std::perror("execv");
    ::_exit(127);
  }
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CommandResult result;
  result.exit_code = DrainAndReap(pid, out_pipe[0], err_pipe[0], result.out, result.err);
  return result;
}

CommandResult RunFrugal(const std::vector<std::string>& args, const std::filesystem::path& home,
                        const std::vector<std::string>& env) {
  std::vector<std::string> argv = {FRUGAL_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> full_env = env;
  if (!home.empty()) full_env.push_back("FRUGAL_HOME=" + home.string());
  return RunProgram(argv, full_env);
}

pid_t StartFrugal(const std::vector<std::string>& args, const std::filesystem::path& home,
                  const std::vector<std::string>& env) {
  std::vector<std::string> argv = {FRUGAL_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  std::vector<std::string> full_env = env;
  if (!home.empty()) full_env.push_back("FRUGAL_HOME=" + home.string());
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (std::string& kv : full_env) ::putenv(kv.data());
    if (!std::freopen("/dev/null", "w", stdout)) ::_exit(126);
    std::vector<char*> pointers;
    for (std::string& a : argv) pointers.push_back(a.data());
    pointers.push_back(nullptr);
    ::execv(pointers[0], pointers.data());
    ::_exit(127);
  }
  return pid;
}

TempDir::TempDir() {
  std::string pattern = (std::filesystem::temp_directory_path() / "frugal-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

void WriteTestFile(const std::filesystem::path& path, const std::string& contents) {
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary);
  out << contents;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string ReadTestFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string WaitForLine(const std::filesystem::path& path, std::chrono::milliseconds limit) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (true) {
    const std::string text = ReadTestFile(path);
    const size_t end = text.find('\n');
    if (end != std::string::npos) return text.substr(0, end);
    if (std::chrono::steady_clock::now() >= until) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::filesystem::path SourceDir() { return FRUGAL_SOURCE_DIR; }
std::filesystem::path SharedDataDir() { return FRUGAL_SHARED_DATA_DIR; }

int FreeLoopbackPort() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0) {
    port = ntohs(addr.sin_port);
  }
  ::close(fd);
  return port;
}

long long CounterValue(int steps) {
  long long value = 1;
  for (int step = 1; step <= steps; ++step) value = (value * 31 + step) % 1000000007LL;
  return value;
}

}  // namespace frugal::testing

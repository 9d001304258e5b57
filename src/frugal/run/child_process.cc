#include "frugal/run/child_process.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <mutex>
#include <set>
#include <sstream>
#include <string_view>
#include <thread>

extern char** environ;

namespace frugal::run {

std::string SignalName(int signal) {
  switch (signal) {
    case SIGTERM:
      return "SIGTERM";
    case SIGKILL:
      return "SIGKILL";
    case SIGINT:
      return "SIGINT";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGHUP:
      return "SIGHUP";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return fmt::format("signal {}", signal);
  }
}

std::string ExitStatus::Describe() const {
  if (signal != 0) return "killed by " + SignalName(signal);
  return fmt::format("exit code {}", exit_code);
}

ExitStatus FromWaitStatus(int wait_status) {
  ExitStatus s;
  if (WIFEXITED(wait_status)) s.exit_code = WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) s.signal = WTERMSIG(wait_status);
  return s;
}

namespace {

// The leaders some ChildProcess owns, from fork to reap. A multiset: a reaped pid may be
// reused by a new child before its old owner erases it.
std::mutex g_children_mutex;
std::multiset<pid_t> g_leaders;

bool Owned(pid_t pid) { return g_leaders.contains(pid); }

// Runs in the forked child: only async-signal-safe calls until exec.
[[noreturn]] void ExecChild(const std::vector<char*>& args, const std::vector<char*>& envp,
                            int error_fd, ChildStdout stdout_to, pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  // The parent may already be gone (it died between fork and prctl).
  if (::getppid() != parent) ::_exit(127);
  // Undo what the supervisor changed for itself: signal dispositions and the mask.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  for (int sig : {SIGTERM, SIGUSR1, SIGUSR2, SIGINT, SIGHUP, SIGPIPE, SIGXFSZ, SIGCHLD}) {
    ::signal(sig, SIG_DFL);
  }
  if (stdout_to == ChildStdout::kToStderr) ::dup2(2, 1);
  ::execvpe(args[0], args.data(), envp.data());
  const int err = errno;
  ssize_t ignored = ::write(error_fd, &err, sizeof err);
  (void)ignored;
  ::_exit(127);
}

}  // namespace

Result<std::unique_ptr<ChildProcess>> ChildProcess::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return Fail(ErrorCode::kBadInput, "no command given to run");
  // The child's environment: ours, with the options' entries replacing same-named ones.
  std::vector<std::string> env_entries;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const std::string_view key = entry.substr(0, entry.find('='));
    bool replaced = false;
    for (const auto& kv : options.env) replaced = replaced || kv.first == key;
    if (!replaced) env_entries.emplace_back(entry);
  }
  for (const auto& [key, value] : options.env) env_entries.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (std::string& e : env_entries) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<char*> args;
  for (const std::string& a : options.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // exec failures come back through a close-on-exec pipe: EOF means exec succeeded.
  int error_pipe[2];
  if (::pipe2(error_pipe, O_CLOEXEC) != 0) {
    return Fail(ErrorCode::kFailed, fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  }
  const pid_t parent = ::getpid();
  std::unique_lock registry(g_children_mutex);  // registered before anyone may reap it
  const pid_t pid = ::fork();
  if (pid == 0) ExecChild(args, envp, error_pipe[1], options.stdout_to, parent);
  const int fork_errno = errno;
  if (pid > 0) g_leaders.insert(pid);
  registry.unlock();
  ::close(error_pipe[1]);
  if (pid < 0) {
    ::close(error_pipe[0]);
    return Fail(ErrorCode::kFailed, fmt::format("cannot fork: {}", std::strerror(fork_errno)));
  }
  // Both sides call setpgid so the group exists before either signals it.
  ::setpgid(pid, pid);
  auto child = std::unique_ptr<ChildProcess>(new ChildProcess(pid));
  int exec_errno = 0;
  ssize_t n;
  do {
    n = ::read(error_pipe[0], &exec_errno, sizeof exec_errno);
  } while (n < 0 && errno == EINTR);
  ::close(error_pipe[0]);
  if (n == static_cast<ssize_t>(sizeof exec_errno)) {
    child->WaitFor(std::chrono::seconds(5));
    return Fail(ErrorCode::kBadInput,
                fmt::format("cannot run '{}': {}", options.argv[0], std::strerror(exec_errno)));
  }
  return child;
}

ChildProcess::~ChildProcess() {
  ::kill(-pid_, SIGKILL);
  if (!status_) {
    // Nobody else reaps a registered leader, so waiting outside the lock is safe.
    int ws = 0;
    while (::waitpid(pid_, &ws, 0) < 0 && errno == EINTR) {
    }
    std::lock_guard lock(g_children_mutex);
    g_leaders.erase(g_leaders.find(pid_));
  }
}

bool ChildProcess::SignalGroup(int signal) const { return ::kill(-pid_, signal) == 0; }

bool ChildProcess::GroupAlive() const {
  // A zombie leader still counts as a group member until reaped; that is what we want for an
  // unreaped leader, and after reaping kill(0) only finds the other members.
  return ::kill(-pid_, 0) == 0;
}

std::optional<ExitStatus> ChildProcess::Poll() {
  if (status_) return status_;
  int ws = 0;
  pid_t r;
  std::lock_guard lock(g_children_mutex);
  do {
    r = ::waitpid(pid_, &ws, WNOHANG);
  } while (r < 0 && errno == EINTR);
  if (r == pid_) status_ = FromWaitStatus(ws);
  // ECHILD: someone else reaped it (code outside this registry); gone with unknown status.
  if (r < 0 && errno == ECHILD) status_ = ExitStatus{.exit_code = 255, .signal = 0};
  if (status_) g_leaders.erase(g_leaders.find(pid_));
  return status_;
}

std::optional<ExitStatus> ChildProcess::WaitFor(std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    if (auto s = Poll()) return s;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

void ReapOrphans(pid_t group) {
  std::lock_guard lock(g_children_mutex);
  // Any exited child nobody owns, until the first one that an owner will reap itself.
  while (true) {
    siginfo_t info{};
    if (::waitid(P_ALL, 0, &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid == 0) return;
    if (Owned(info.si_pid)) break;
    ::waitpid(info.si_pid, nullptr, WNOHANG);
  }
  // Then the command's own group, past other owners' exited leaders.
  if (group <= 0) return;
  while (true) {
    siginfo_t info{};
    if (::waitid(P_PGID, static_cast<id_t>(group), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
        info.si_pid == 0 || Owned(info.si_pid)) {
      return;
    }
    ::waitpid(info.si_pid, nullptr, WNOHANG);
  }
}

namespace {

/// The fields of /proc/PID/stat after the command name: [0] state, [2] pgrp, [19] starttime.
std::vector<std::string> StatFields(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const size_t paren = text.rfind(')');  // the command name may hold spaces and parentheses
  std::vector<std::string> fields;
  if (paren == std::string::npos) return fields;
  std::istringstream rest(text.substr(paren + 1));
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

/// Whether `pid` still runs: it exists and is not a zombie.
bool Running(pid_t pid) {
  const std::vector<std::string> fields = StatFields(pid);
  return !fields.empty() && fields[0] != "Z" && fields[0] != "X";
}

}  // namespace

std::optional<uint64_t> ProcessStartTime(pid_t pid) {
  const std::vector<std::string> fields = StatFields(pid);
  if (fields.size() < 20) return std::nullopt;
  return std::stoull(fields[19]);
}

std::vector<pid_t> LeftGroupMembers(pid_t group, uint64_t leader_start,
                                    std::chrono::system_clock::time_point latest_start) {
  std::vector<pid_t> found;
  if (group <= 1 || group == ::getpgrp()) return found;
  // Start times count clock ticks since boot: `latest_start` on that clock, with a second's
  // slack for the boot time's whole seconds.
  uint64_t boot_seconds = 0;
  {
    std::ifstream stat("/proc/stat");
    for (std::string key; stat >> key;) {
      if (key == "btime") {
        stat >> boot_seconds;
        break;
      }
    }
  }
  const auto ticks_per_second = static_cast<uint64_t>(::sysconf(_SC_CLK_TCK));
  const auto latest_seconds =
      std::chrono::duration_cast<std::chrono::seconds>(latest_start.time_since_epoch()).count();
  if (boot_seconds == 0 || ticks_per_second == 0 ||
      latest_seconds + 1 < static_cast<int64_t>(boot_seconds)) {
    return found;  // the owner was gone before this boot: nothing of it is left
  }
  const uint64_t latest_ticks =
      (static_cast<uint64_t>(latest_seconds) + 1 - boot_seconds) * ticks_per_second;
  if (const auto start = ProcessStartTime(group); start && *start != leader_start) return found;
  {
    std::lock_guard lock(g_children_mutex);
    if (Owned(group)) return found;
  }
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = dir.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    const std::vector<std::string> fields = StatFields(pid);
    if (fields.size() < 20 || fields[0] == "Z" || fields[0] == "X") continue;
    if (fields[2] != std::to_string(group)) continue;
    const uint64_t start = std::stoull(fields[19]);
    if (start >= leader_start && start <= latest_ticks) found.push_back(pid);
  }
  return found;
}

std::vector<pid_t> ProcessesWithEnvironment(const std::vector<std::string>& entries) {
  std::vector<pid_t> found;
  std::error_code ec;
  for (const auto& dir : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = dir.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    const auto pid = static_cast<pid_t>(std::stol(name));
    if (pid == ::getpid()) continue;
    std::ifstream in(dir.path() / "environ", std::ios::binary);
    if (!in) continue;
    std::set<std::string> environment;
    for (std::string entry; std::getline(in, entry, '\0');) environment.insert(entry);
    bool all = !entries.empty();
    for (const std::string& e : entries) all = all && environment.contains(e);
    if (!all || !Running(pid)) continue;
    // A command some supervisor in this process still runs (the tuner's other trials) is not
    // left over, whatever its environment says.
    std::lock_guard lock(g_children_mutex);
    if (!Owned(::getpgid(pid))) found.push_back(pid);
  }
  return found;
}

void StopProcessGroups(const std::vector<pid_t>& pids, std::chrono::milliseconds grace) {
  const pid_t own_group = ::getpgrp();
  std::set<pid_t> groups;  // taken first: a leader that dies leaves its group's members behind
  for (pid_t pid : pids) {
    if (const pid_t group = ::getpgid(pid); group > 0 && group != own_group) groups.insert(group);
  }
  auto signal_all = [&](int sig) {
    for (pid_t group : groups) ::kill(-group, sig);
    for (pid_t pid : pids) ::kill(pid, sig);
  };
  signal_all(SIGTERM);
  const auto deadline = std::chrono::steady_clock::now() + grace;
  auto any_running = [&] {
    for (pid_t pid : pids)
      if (Running(pid)) return true;
    return false;
  };
  while (any_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (any_running()) signal_all(SIGKILL);
}

}  // namespace frugal::run

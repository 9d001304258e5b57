// The local executor: queued jobs as `frugal run` processes on this machine.

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "frugal/queue/executor.h"

namespace frugal::queue {
namespace {

// Runs the job's command and records how it ended, atomically, where the scheduler looks.
constexpr const char* kWrapper =
    "\"$@\"; s=$?; printf '%s\\n' \"$s\" > \"$FRUGAL_QUEUE_EXIT.tmp\" && "
    "mv \"$FRUGAL_QUEUE_EXIT.tmp\" \"$FRUGAL_QUEUE_EXIT\"";

class LocalExecutor final : public Executor {
 public:
  LocalExecutor(std::string binary, std::string db, std::filesystem::path dir)
      : binary_(std::move(binary)), db_(std::move(db)), dir_(std::move(dir)) {}

  Result<int64_t> Start(const ledger::QueueJobRow& row, const Pool& pool,
                        const std::string& devices, Seconds /*delay_seconds*/) override {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) return Fail(ErrorCode::kFailed, dir_.string() + ": " + ec.message());
    std::filesystem::remove(ExitFile(row.id), ec);
    std::vector<std::string> argv = {"/bin/sh", "-c", kWrapper, "frugal-queue-job"};
    const std::vector<std::string> run = FRUGAL_TRY(FrugalRunArgv(row, pool, binary_, db_));
    argv.insert(argv.end(), run.begin(), run.end());
    std::vector<std::string> env = {fmt::format("FRUGAL_QUEUE_JOB={}", row.id),
                                    "FRUGAL_QUEUE_EXIT=" + ExitFile(row.id).string()};
    if (!pool.gpu.empty()) env.push_back("CUDA_VISIBLE_DEVICES=" + devices);
    return Spawn(argv, env, dir_ / fmt::format("{}.log", row.id));
  }

  Result<JobStatus> Status(const ledger::QueueJobRow& row) override {
    JobStatus status;
    if (const std::optional<int64_t> pid = FindProcess(row.id)) {
      status.phase = JobPhase::kRunning;
      status.handle = pid;
      return status;
    }
    std::ifstream in(ExitFile(row.id));
    int exit = 0;
    if (in >> exit) {
      status.phase = JobPhase::kEnded;
      status.exit_status = exit;
    }
    return status;
  }

  /// SIGTERM to the job's process group (its wrapper and `frugal run`, which checkpoints and
  /// stops the command), found by the job's environment: the recorded pid is the wrapper's,
  /// not a group id, and may since belong to another process.
  void Stop(const ledger::QueueJobRow& row) override {
    const std::optional<int64_t> pid = FindProcess(row.id);
    if (!pid) return;
    const pid_t group = ::getpgid(static_cast<pid_t>(*pid));
    if (group > 1) ::kill(-group, SIGTERM);
  }

 private:
  std::filesystem::path ExitFile(int64_t id) const { return dir_ / fmt::format("{}.exit", id); }

  /// The job's process: the one whose environment names its exit file, which holds both the
  /// job id and this executor's directory (job ids of another ledger on this machine repeat).
  std::optional<int64_t> FindProcess(int64_t job_id) const {
    const std::string needle = "FRUGAL_QUEUE_EXIT=" + ExitFile(job_id).string();
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
      const std::string name = entry.path().filename().string();
      if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
      std::ifstream in(entry.path() / "environ", std::ios::binary);
      std::string var;
      while (std::getline(in, var, '\0')) {
        if (var == needle) return std::stoll(name);
      }
    }
    return std::nullopt;
  }

  /// Double fork: the job runs in a session of its own, a child of init, so it outlives the
  /// scheduler and never becomes its zombie. Its pid comes back through a pipe.
  static Result<int64_t> Spawn(const std::vector<std::string>& argv,
                               const std::vector<std::string>& env,
                               const std::filesystem::path& log) {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Fail(ErrorCode::kFailed, std::strerror(errno));
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const pid_t child = ::fork();
    if (child < 0) return Fail(ErrorCode::kFailed, std::string("fork: ") + std::strerror(errno));
    if (child == 0) {
      const pid_t job = ::fork();
      if (job != 0) {
        const int64_t pid = job;
        [[maybe_unused]] const ssize_t n = ::write(fds[1], &pid, sizeof pid);
        ::_exit(job < 0 ? 1 : 0);
      }
      // The job leads its own session and process group, whose id is the pid recorded: Stop()
      // signals that group.
      ::setsid();
      for (const std::string& e : env) ::putenv(const_cast<char*>(e.c_str()));
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
      const int null = ::open("/dev/null", O_RDONLY);
      if (out >= 0) {
        ::dup2(out, 1);
        ::dup2(out, 2);
      }
      if (null >= 0) ::dup2(null, 0);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    int64_t pid = -1;
    const ssize_t n = ::read(fds[0], &pid, sizeof pid);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(child, &status, 0);
    if (n != static_cast<ssize_t>(sizeof pid) || pid <= 0) {
      return Fail(ErrorCode::kFailed, "could not start the job's process");
    }
    return pid;
  }

  std::string binary_;
  std::string db_;
  std::filesystem::path dir_;
};

}  // namespace

std::unique_ptr<Executor> MakeLocalExecutor(std::string frugal_binary, std::string db_flag,
                                            std::filesystem::path state_dir) {
  return std::make_unique<LocalExecutor>(std::move(frugal_binary), std::move(db_flag),
                                         std::move(state_dir));
}

}  // namespace frugal::queue

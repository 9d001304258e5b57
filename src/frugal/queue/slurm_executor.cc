// The Slurm executor: queued jobs as Slurm batch jobs that run `frugal run` over the command.

#include <fmt/format.h>
#include <sys/stat.h>

#include <fstream>

#include "frugal/core/atomic_file.h"
#include "frugal/core/text.h"
#include "frugal/queue/executor.h"
#include "frugal/queue/queue_service.h"

namespace frugal::queue {
namespace {

// The batch script. Its arguments are the `frugal run` command line. Slurm's SIGTERM (a
// requeue, a preemption, scancel) reaches every process of the job, frugal run included; the
// checkpoint notice that --signal sends goes to this shell only (B:), which passes it on.
// frugal run exits 75 when it was preempted: Slurm is asked for a requeue unless the queue
// stopped the job on purpose (the stop file). Any other end is recorded for the queue, which
// reads it once Slurm has forgotten the job.
constexpr const char* kScript =
    "#!/bin/sh\n"
    "# frugal queue job {id}, written by `frugal queue run` for Slurm.\n"
    "exit_file={exit}\n"
    "stop_file={stop}\n"
    "\"$@\" &\n"
    "child=$!\n"
    "trap 'kill -USR1 \"$child\" 2>/dev/null' USR1\n"
    "trap 'kill -TERM \"$child\" 2>/dev/null' TERM\n"
    "while :; do\n"
    "  wait \"$child\"; rc=$?\n"
    "  kill -0 \"$child\" 2>/dev/null || break\n"
    "done\n"
    "if [ \"$rc\" -eq 75 ]; then\n"
    "  [ -e \"$stop_file\" ] || scontrol requeue \"$SLURM_JOB_ID\"\n"
    "  exit \"$rc\"\n"
    "fi\n"
    "printf '%s\\n' \"$rc\" > \"$exit_file.tmp\" && mv \"$exit_file.tmp\" \"$exit_file\"\n"
    "exit \"$rc\"\n";

/// Seconds before a job's time limit at which Slurm sends the checkpoint notice.
constexpr int kNoticeSeconds = 120;

std::string ShellQuote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// The job's GRES per node: the pool's type (`gpu:a100` of `gpu:a100:8`) with the count the
/// job needs on each node.
std::string JobGres(const Pool& pool, int per_node) {
  std::vector<std::string> parts = Split(pool.gres.empty() ? "gpu" : pool.gres, ':');
  if (parts.size() > 1 && ParseInt(parts.back())) parts.pop_back();
  std::string gres;
  for (const std::string& p : parts) gres += p + ":";
  return gres + std::to_string(per_node);
}

/// What Slurm's job state means to the queue.
JobPhase PhaseOf(const std::string& state) {
  if (state == "RUNNING" || state == "COMPLETING" || state == "SIGNALING" || state == "STAGE_OUT") {
    return JobPhase::kRunning;
  }
  if (state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT" ||
      state == "NODE_FAIL" || state == "OUT_OF_MEMORY" || state == "BOOT_FAIL" ||
      state == "DEADLINE" || state == "PREEMPTED") {
    return JobPhase::kEnded;
  }
  // PENDING, CONFIGURING, REQUEUED, REQUEUE_HOLD, REQUEUE_FED, RESIZING, SUSPENDED, ...
  return JobPhase::kPending;
}

class SlurmExecutor final : public Executor {
 public:
  SlurmExecutor(std::unique_ptr<SlurmClient> client, std::string binary, std::string db,
                std::filesystem::path dir)
      : client_(std::move(client)),
        binary_(std::move(binary)),
        db_(std::move(db)),
        dir_(std::move(dir)) {}

  Result<int64_t> Start(const ledger::QueueJobRow& row, const Pool& pool,
                        const std::string& /*devices*/, Seconds delay_seconds) override {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) return Fail(ErrorCode::kFailed, dir_.string() + ": " + ec.message());
    std::filesystem::remove(File(row.id, "exit"), ec);
    std::filesystem::remove(File(row.id, "stop"), ec);
    const std::filesystem::path script = File(row.id, "sbatch");
    FRUGAL_TRY(WriteFileAtomically(
        script, fmt::format(fmt::runtime(kScript), fmt::arg("id", row.id),
                            fmt::arg("exit", ShellQuote(File(row.id, "exit").string())),
                            fmt::arg("stop", ShellQuote(File(row.id, "stop").string())))));
    ::chmod(script.c_str(), 0755);
    std::vector<std::string> args = FRUGAL_TRY(SbatchOptions(row, pool, delay_seconds));
    args.push_back(script.string());
    const std::vector<std::string> run = FRUGAL_TRY(FrugalRunArgv(row, pool, binary_, db_));
    args.insert(args.end(), run.begin(), run.end());
    const SlurmOutput out = FRUGAL_TRY(client_->Run("sbatch", args));
    const std::string id(Trim(out.out.substr(0, out.out.find(';'))));
    const Result<int64_t> job = ParseInt(id);
    if (out.exit_code != 0 || !job) {
      return Fail(ErrorCode::kFailed, fmt::format("sbatch (partition {}): {}", pool.partition,
                                                  Trim(out.err + out.out)));
    }
    return *job;
  }

  Result<JobStatus> Status(const ledger::QueueJobRow& row) override {
    JobStatus status;
    std::optional<int64_t> job = row.pid && *row.pid > 0 ? row.pid : std::nullopt;
    if (!job) job = FRUGAL_TRY(FindByName(row.id));
    if (job) {
      const SlurmOutput shown =
          FRUGAL_TRY(client_->Run("scontrol", {"show", "job", "-o", std::to_string(*job)}));
      const auto fields = ParseScontrolFields(shown.out);
      const auto state = fields.find("JobState");
      if (shown.exit_code == 0 && state != fields.end()) return FromFields(*job, fields);
      if (shown.err.find("Invalid job id") == std::string::npos) {
        return Fail(ErrorCode::kUnavailable,
                    fmt::format("scontrol show job {}: {}", *job, Trim(shown.err)));
      }
      status.handle = job;  // Slurm has forgotten it (MinJobAge): its exit file tells the end
    }
    std::ifstream in(File(row.id, "exit"));
    int exit = 0;
    if (in >> exit) {
      status.phase = JobPhase::kEnded;
      status.exit_status = exit;
      status.detail = fmt::format("slurm job {} ended", job.value_or(0));
    }
    return status;
  }

  void Stop(const ledger::QueueJobRow& row) override {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    std::ofstream(File(row.id, "stop")) << "stopped by the queue\n";
    if (row.pid && *row.pid > 0) {
      (void)client_->Run("scancel", {std::to_string(*row.pid)});
    } else {
      (void)client_->Run("scancel", {fmt::format("--name=frugal-queue-{}", row.id)});
    }
  }

 private:
  std::filesystem::path File(int64_t id, const char* ext) const {
    return dir_ / fmt::format("{}.{}", id, ext);
  }

  Result<std::vector<std::string>> SbatchOptions(const ledger::QueueJobRow& row, const Pool& pool,
                                                 Seconds delay_seconds) const {
    std::vector<std::string> args = {"--parsable",
                                     fmt::format("--job-name=frugal-queue-{}", row.id),
                                     "--partition=" + pool.partition,
                                     "--requeue",
                                     "--open-mode=append",
                                     "--output=" + File(row.id, "log").string(),
                                     fmt::format("--signal=B:USR1@{}", kNoticeSeconds)};
    const JobRequest request = FRUGAL_TRY(RequestFromJson(row.request));
    if (!pool.gpu.empty() && pool.gpus_per_node > 0) {
      const int nodes = (request.units + pool.gpus_per_node - 1) / pool.gpus_per_node;
      const int per_node = (request.units + nodes - 1) / nodes;
      args.push_back(fmt::format("--nodes={}", nodes));
      args.push_back("--gres=" + JobGres(pool, per_node));
    }
    // Relative, so that the cluster's time zone does not matter.
    if (delay_seconds > 0) args.push_back(fmt::format("--begin=now+{}", delay_seconds));
    return args;
  }

  /// The newest live Slurm job named for queue job `id` (a start cut short before its id was
  /// recorded); nullopt when none, or when the queue stopped the job's last batch job and has
  /// not started another (a move cut short: that job is on its way out).
  Result<std::optional<int64_t>> FindByName(int64_t id) {
    if (std::filesystem::exists(File(id, "stop"))) return std::optional<int64_t>();
    const SlurmOutput listed = FRUGAL_TRY(
        client_->Run("squeue", {"-h", fmt::format("--name=frugal-queue-{}", id), "-o", "%i"}));
    if (listed.exit_code != 0) {
      return Fail(ErrorCode::kUnavailable, "squeue: " + std::string(Trim(listed.err)));
    }
    std::optional<int64_t> newest;
    for (const std::string& line : Split(listed.out, '\n')) {
      if (const Result<int64_t> n = ParseInt(Trim(line)); n && (!newest || *n > *newest)) {
        newest = *n;
      }
    }
    return newest;
  }

  static JobStatus FromFields(int64_t job, const std::map<std::string, std::string>& fields) {
    const auto get = [&](const char* key) {
      const auto it = fields.find(key);
      return it == fields.end() ? std::string() : it->second;
    };
    JobStatus status;
    status.handle = job;
    const std::string state = get("JobState");
    status.phase = PhaseOf(state);
    status.restarts = static_cast<int>(ParseInt(get("Restarts")).value_or(0));
    status.detail = fmt::format("slurm job {} {} on partition {}", job, state, get("Partition"));
    const std::string reason = get("Reason");
    if (!reason.empty() && reason != "None") status.detail += " (" + reason + ")";
    if (status.phase == JobPhase::kEnded) {
      const std::vector<std::string> code = Split(get("ExitCode"), ':');
      const int exit = code.empty() ? 0 : static_cast<int>(ParseInt(code[0]).value_or(0));
      const int signal = code.size() > 1 ? static_cast<int>(ParseInt(code[1]).value_or(0)) : 0;
      status.exit_status = state == "COMPLETED" ? 0 : exit != 0 ? exit : 128 + signal;
      status.preempted = state == "PREEMPTED";
    }
    return status;
  }

  std::unique_ptr<SlurmClient> client_;
  std::string binary_;
  std::string db_;
  std::filesystem::path dir_;
};

}  // namespace

std::unique_ptr<Executor> MakeSlurmExecutor(std::unique_ptr<SlurmClient> client,
                                            std::string frugal_binary, std::string db_flag,
                                            std::filesystem::path state_dir) {
  return std::make_unique<SlurmExecutor>(std::move(client), std::move(frugal_binary),
                                         std::move(db_flag), std::move(state_dir));
}

}  // namespace frugal::queue

#include "frugal/run/supervisor.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <sys/prctl.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "frugal/core/log.h"
#include "frugal/run/protocol.h"
#include "frugal/run/run_journal.h"
#include "frugal/run/supervisor_internal.h"

namespace frugal::run {

std::string RunOutcomeName(RunOutcome outcome) {
  switch (outcome) {
    case RunOutcome::kFinished:
      return "finished";
    case RunOutcome::kFailed:
      return "failed";
    case RunOutcome::kBudgetStop:
      return "budget_stop";
    case RunOutcome::kPreempted:
      return "preempted";
    case RunOutcome::kInterrupted:
      return "interrupted";
  }
  return "?";
}

namespace {

double Percentile(std::vector<double> values, double p) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<size_t>(std::lround(p * static_cast<double>(values.size() - 1)));
  return values[std::min(index, values.size() - 1)];
}

UtilizationSummary Summarize(const std::vector<monitor::Sample>& samples,
                             const std::vector<double>& training_gpu_util) {
  UtilizationSummary u;
  u.gpu_training_samples = static_cast<int>(training_gpu_util.size());
  if (!training_gpu_util.empty()) {
    double sum = 0;
    for (double v : training_gpu_util) sum += v;
    u.gpu_util_training_mean = sum / static_cast<double>(training_gpu_util.size());
  }
  u.samples = static_cast<int>(samples.size());
  if (samples.empty()) return u;
  std::vector<double> cpu, gpu;
  double io = 0;
  int idle = 0;
  for (const monitor::Sample& s : samples) {
    cpu.push_back(s.cpu_cores);
    io += s.io_wait_fraction;
    u.peak_rss_bytes = std::max(u.peak_rss_bytes, s.rss_bytes);
    if (s.gpu_util_percent) {
      gpu.push_back(*s.gpu_util_percent);
      if (*s.gpu_util_percent < 5) ++idle;
    }
    if (s.gpu_memory_bytes)
      u.gpu_peak_memory_bytes = std::max(u.gpu_peak_memory_bytes.value_or(0), *s.gpu_memory_bytes);
  }
  double sum = 0;
  for (double c : cpu) sum += c;
  u.cpu_cores_mean = sum / static_cast<double>(cpu.size());
  u.cpu_cores_p95 = Percentile(cpu, 0.95);
  u.io_wait_fraction_mean = io / static_cast<double>(samples.size());
  if (!gpu.empty()) {
    double g = 0;
    for (double v : gpu) g += v;
    u.gpu_util_mean = g / static_cast<double>(gpu.size());
    u.gpu_util_p95 = Percentile(gpu, 0.95);
    u.gpu_idle_fraction = static_cast<double>(idle) / static_cast<double>(gpu.size());
  }
  return u;
}

}  // namespace

Supervisor::Supervisor(SupervisorConfig config, RunRecorder& recorder, const Clock& clock)
    : config_(std::move(config)),
      recorder_(recorder),
      clock_(clock),
      store_(config_.run_dir / "checkpoints", config_.keep_checkpoints) {}

Supervisor::~Supervisor() = default;

void Supervisor::AddPreemptionSource(std::unique_ptr<PreemptionSource> source) {
  sources_.push_back(std::move(source));
}
void Supervisor::SetSampler(std::unique_ptr<monitor::Sampler> sampler) {
  sampler_ = std::move(sampler);
}
void Supervisor::SetStatusCallback(std::function<void(const RunStatus&)> callback) {
  status_callback_ = std::move(callback);
}

void Supervisor::Record(EventKind kind, int segment, std::string detail, Loop& /*loop*/) {
  RunEvent e;
  e.kind = kind;
  e.segment = segment;
  e.at = clock_.Wall();
  e.detail = std::move(detail);
  recorder_.Event(e);
}

std::optional<WallTime> Supervisor::MarkLostAttempt() {
  const JournalHistory h = ReadJournalHistory(config_.run_dir / "journal.jsonl");
  if (!h.unfinished_attempt) return std::nullopt;
  const WallTime lost_at = h.last_seen.value_or(clock_.Wall());
  CloseLostAttempt(h, lost_at, recorder_);
  log::Warning(
      "run {}: the previous attempt ended without a word (supervisor killed?); marked lost",
      config_.run_id);
  return lost_at;
}

void Supervisor::AdviseAfterPreemption(int segment, Loop& loop) {
  if (!config_.deadline_advice) return;
  Result<DeadlineAdvice> advice = run::AdviseAfterPreemption(
      *config_.deadline_advice, ReadJournal(config_.run_dir / "journal.jsonl"), clock_.Wall());
  if (!advice) {
    log::Warning("no deadline advice: {}", advice.error().message);
    return;
  }
  result_.recommended_tier = advice->tier;
  result_.advice = advice->detail;
  log::Info("deadline advice: {}", advice->detail);
  Record(EventKind::kSpotAdvice, segment, advice->detail, loop);
}

namespace {
constexpr const char* kCommandGroupFile = "command.pgid";
}  // namespace

void Supervisor::RecordCommandGroup(pid_t leader) {
  // The group's id and its leader's start time: a later supervisor finds what this one's command
  // left even when its environment does not say so (a worker started with a clean environment).
  const std::optional<uint64_t> start = ProcessStartTime(leader);
  if (!start) return;  // gone already: it left nothing running
  const Result<void> written = WriteFileAtomically(config_.run_dir / kCommandGroupFile,
                                                   fmt::format("{} {}\n", leader, *start));
  if (!written) log::Warning("run {}: {}", config_.run_id, written.error().message);
}

void Supervisor::StopStragglers(std::optional<WallTime> lost_at) {
  // A killed supervisor's command got SIGTERM from the kernel (PR_SET_PDEATHSIG), but that
  // reaches only the direct child: a trainer started through a shell, or its data loaders, may
  // still be running and writing to this run's checkpoint folder. This supervisor holds the
  // run's lock, so whatever still carries the run's environment belongs to no one.
  // So do the members of the command group the earlier supervisor noted, whatever their
  // environment.
  std::vector<pid_t> left = ProcessesWithEnvironment(
      {fmt::format("{}={}", kEnvRunId, config_.run_id),
       fmt::format("{}={}", kEnvCheckpointDir, store_.staging_dir().string())});
  std::ifstream noted(config_.run_dir / kCommandGroupFile);
  pid_t group = 0;
  uint64_t leader_start = 0;
  if (lost_at && noted >> group >> leader_start) {
    // The lost supervisor wrote a record at least every heartbeat interval: it was gone within
    // one of its last, and its command soon after (a worker may start in the meantime).
    const WallTime gone_by = *lost_at + config_.heartbeat_interval + std::chrono::seconds(5);
    for (pid_t pid : LeftGroupMembers(group, leader_start, gone_by)) {
      if (std::find(left.begin(), left.end(), pid) == left.end()) left.push_back(pid);
    }
  }
  if (left.empty()) return;
  const std::string pids = fmt::format("{}", fmt::join(left, ", "));
  log::Warning("run {}: stopping {} process(es) left by an earlier supervisor: {}", config_.run_id,
               left.size(), pids);
  StopProcessGroups(left,
                    std::chrono::duration_cast<std::chrono::milliseconds>(config_.stop_grace));
  result_.warnings.push_back(fmt::format(
      "stopped {} process(es) an earlier, killed supervisor left running: {}", left.size(), pids));
}

bool Supervisor::Backoff(Duration wait, Loop& loop) {
  const SteadyTime until = clock_.Steady() + wait;
  while (true) {
    const SteadyTime now = clock_.Steady();
    if (now >= until) return true;
    loop.signals.WaitFor(
        std::min(Duration(100), std::chrono::duration_cast<Duration>(until - now)));
    if (loop.signals.TakeInterrupt() || loop.signals.TakePreemptionSignal() != 0) return false;
    const BudgetCheck check = loop.guard.Accrue(loop.Elapsed(clock_.Steady()));
    if (check.exceeded) {
      loop.cap_hit = check.exceeded;
      return false;
    }
  }
}

JournalHistory Supervisor::BeginAttempt() {
  const std::optional<WallTime> lost_at = MarkLostAttempt();
  JournalHistory history = ReadJournalHistory(config_.run_dir / "journal.jsonl");
  result_ = RunResult{};
  // Only a run that was started before can have a killed supervisor's leftovers.
  if (history.attempts > 0) StopStragglers(lost_at);
  result_.attempt = history.attempts + 1;
  return history;
}

Result<RunResult> Supervisor::Run() {
  FRUGAL_TRY(store_.Prepare());
  // Orphans of the command (a forked worker whose parent exited) are re-parented to us, so we
  // can reap them and they never linger as zombies in the command's process group.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  const JournalHistory history = BeginAttempt();
  Loop loop(BudgetGuard(config_.caps, config_.price, config_.gpus, history.usage), clock_.Steady());
  if (const BudgetCheck c = loop.guard.Accrue(Duration(0)); c.exceeded) {
    return Fail(
        ErrorCode::kBudget,
        fmt::format("run {}: earlier attempts already reached the {} cap ({})", config_.run_id,
                    CapKindName(*c.exceeded), loop.guard.CapText(*c.exceeded)));
  }
  RunStart start{config_.run_id, result_.attempt, clock_.Wall(), config_.command, config_.tags,
                 config_.offer,  config_.tier,    config_.price, config_.gpus,    config_.caps};
  recorder_.RunStarted(start);

  const SegmentEnd end = FRUGAL_TRY(RunSegments(history, loop));
  loop.guard.Accrue(loop.Elapsed(clock_.Steady()));
  result_.usage = UsageOfThisAttempt(history, loop);
  result_.total = loop.guard.usage();
  result_.recorded = loop.recorded;
  result_.recorded_total = {history.recorded.spent + loop.recorded.spent,
                            history.recorded.gpu_hours + loop.recorded.gpu_hours,
                            history.recorded.wall + loop.recorded.wall};
  result_.utilization = Summarize(loop.samples, loop.training_gpu_util);
  result_.last_step = loop.last_step;
  SetOutcome(end, loop);
  const bool paused = result_.outcome == RunOutcome::kInterrupted && config_.interrupt_pauses;
  RunFinish finish{clock_.Wall(), paused ? "paused" : RunOutcomeName(result_.outcome),
                   result_.exit_code, result_.usage, result_.preemptions};
  recorder_.RunFinished(finish);
  // An orderly end left no command running: nothing for a later supervisor to look for.
  std::error_code ec;
  std::filesystem::remove(config_.run_dir / kCommandGroupFile, ec);
  return result_;
}

BudgetUsage Supervisor::UsageOfThisAttempt(const JournalHistory& history, const Loop& loop) {
  BudgetUsage usage = loop.guard.usage();
  usage.spent -= history.usage.spent;
  usage.gpu_hours -= history.usage.gpu_hours;
  usage.wall -= history.usage.wall;
  return usage;
}

Result<SegmentEnd> Supervisor::RunSegments(const JournalHistory& history, Loop& loop) {
  int segment = history.segments;
  Duration backoff = config_.restart_backoff;
  while (true) {
    std::vector<std::string> problems;
    const std::optional<CommittedCheckpoint> resume = store_.LatestValid(&problems);
    for (const std::string& p : problems) {
      log::Warning("skipping a damaged checkpoint: {}", p);
      Record(EventKind::kWarning, segment + 1, "damaged checkpoint skipped: " + p, loop);
    }
    Result<SegmentEnd> r = RunSegment(++segment, resume, loop);
    if (!r) {
      // The attempt is over: say so, or the next one would take it for a killed supervisor.
      loop.guard.Accrue(loop.Elapsed(clock_.Steady()));
      recorder_.RunFinished({clock_.Wall(), "failed", static_cast<int>(r.error().code),
                             UsageOfThisAttempt(history, loop), result_.preemptions});
      return Fail(r.error());
    }
    if (*r != SegmentEnd::kPreempted) return *r;
    AdviseAfterPreemption(segment, loop);
    if (config_.restart != RestartPolicy::kLocal || loop.self_signalled) return *r;
    if (result_.restarts >= config_.max_restarts) {
      result_.warnings.push_back(
          fmt::format("gave up after {} restarts (--max-restarts)", result_.restarts));
      return *r;
    }
    log::Info("preempted; restarting in {} (restart {} of {})", FormatDuration(backoff),
              result_.restarts + 1, config_.max_restarts);
    if (!Backoff(backoff, loop)) {
      return loop.cap_hit ? SegmentEnd::kBudgetStop : SegmentEnd::kInterrupted;
    }
    ++result_.restarts;
    // The capacity was held through the backoff: the next segment starts where this one ended.
    loop.next_segment_opens = loop.last_segment_closed;
    backoff = std::min<Duration>(backoff * 2, std::chrono::seconds(60));
  }
}

void Supervisor::SetOutcome(SegmentEnd end, const Loop& loop) {
  switch (end) {
    case SegmentEnd::kFinished:
      result_.outcome = RunOutcome::kFinished;
      result_.exit_code = 0;
      result_.message = "the command finished";
      break;
    case SegmentEnd::kFailed:
    case SegmentEnd::kLost:
      result_.outcome = RunOutcome::kFailed;
      result_.exit_code = 1;
      result_.message =
          "the command failed: " + (result_.child_exit ? result_.child_exit->Describe() : "?");
      break;
    case SegmentEnd::kBudgetStop:
      result_.outcome = RunOutcome::kBudgetStop;
      result_.exit_code = static_cast<int>(ErrorCode::kBudget);
      result_.cap = loop.cap_hit;
      if (loop.cap_hit) {
        result_.overshoot = loop.guard.Overshoot(*loop.cap_hit);
        result_.message =
            fmt::format("stopped at the {} cap ({}); overshoot {}", CapKindName(*loop.cap_hit),
                        loop.guard.CapText(*loop.cap_hit), result_.overshoot);
      }
      break;
    case SegmentEnd::kPreempted:
      result_.outcome = RunOutcome::kPreempted;
      result_.exit_code = kRequeueExitCode;
      result_.message = fmt::format("preempted; requeue to resume (run id {})", config_.run_id);
      if (result_.recommended_tier)
        result_.message += fmt::format(" on {}", CapacityTierName(*result_.recommended_tier));
      break;
    case SegmentEnd::kInterrupted:
      result_.outcome = RunOutcome::kInterrupted;
      result_.exit_code = static_cast<int>(ErrorCode::kInterrupted);
      result_.message = "interrupted";
      break;
  }
}

}  // namespace frugal::run

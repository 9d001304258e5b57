#include "frugal/run/profile.h"

#include <fmt/format.h>
#include <sched.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "frugal/core/file_name.h"
#include "frugal/core/text.h"
#include "frugal/ledger/ledger.h"
#include "frugal/monitor/proc_sampler.h"
#include "frugal/plan/measured_transfer.h"
#include "frugal/run/run_journal.h"
#include "frugal/run/run_session.h"
#include "frugal/run/run_text.h"
#include "frugal/run/supervisor.h"

namespace frugal::run {

void ProfileMeter::SegmentStarted(SteadyTime now) {
  if (!started_) started_ = now;
  ++segment_;
}

std::optional<PreemptionNotice> ProfileMeter::Poll(SteadyTime now) {
  if (!stopped_by_.empty()) return std::nullopt;
  if (limits_.steps && !points_.empty() && points_.back().step >= *limits_.steps) {
    stopped_by_ = "steps";
    return PreemptionNotice{"profile", fmt::format("{} steps measured", *limits_.steps), true};
  }
  if (limits_.duration && started_ && now - *started_ >= *limits_.duration) {
    stopped_by_ = "time";
    return PreemptionNotice{
        "profile", fmt::format("profiled for {}", FormatDuration(*limits_.duration)), true};
  }
  return std::nullopt;
}

void ProfileMeter::ProgressReported(const ProgressReport& report, SteadyTime at) {
  // The window ends where the profile asked the command to stop: what it trains on its way
  // out (a command that ignores the request trains on until it is killed) is not measured.
  if (!stopped_by_.empty()) return;
  points_.push_back(
      {at, report.step, report.tokens, report.samples, report.time_seconds, std::max(segment_, 0)});
}

namespace {

/// One segment's stretch from its first report to its last.
struct Stretch {
  double seconds = 0;
  int64_t steps = 0;
  std::optional<double> tokens, samples;
};

Stretch StretchOf(const ProgressPoint& first, const ProgressPoint& last) {
  Stretch s;
  s.seconds = ToSeconds(std::chrono::duration_cast<Duration>(last.at - first.at));
  if (first.child_seconds && last.child_seconds)
    s.seconds = *last.child_seconds - *first.child_seconds;
  s.steps = last.step - first.step;
  auto grown = [&](std::optional<double> ProgressPoint::*count) -> std::optional<double> {
    if (!(first.*count) || !(last.*count) || *(last.*count) <= *(first.*count)) return std::nullopt;
    return *(last.*count) - *(first.*count);
  };
  s.tokens = grown(&ProgressPoint::tokens);
  s.samples = grown(&ProgressPoint::samples);
  return s;
}

}  // namespace

Result<Throughput> MeasureThroughput(const std::vector<ProgressPoint>& points) {
  if (points.size() < 2) {
    return Fail(ErrorCode::kFailed,
                fmt::format("the command reported progress {} time(s); a profile needs at least "
                            "two progress reports (docs/protocol.md): profile longer (--for, "
                            "--steps) or report progress from the command",
                            points.size()));
  }
  Throughput t;
  double seconds = 0;
  std::optional<double> tokens = 0.0, samples = 0.0;
  for (size_t begin = 0; begin < points.size();) {
    size_t end = begin + 1;
    while (end < points.size() && points[end].segment == points[begin].segment) ++end;
    if (end - begin >= 2) {
      const Stretch s = StretchOf(points[begin], points[end - 1]);
      if (s.seconds > 0 && s.steps > 0) {
        seconds += s.seconds;
        t.steps += s.steps;
        tokens = tokens && s.tokens ? std::optional<double>(*tokens + *s.tokens) : std::nullopt;
        samples =
            samples && s.samples ? std::optional<double>(*samples + *s.samples) : std::nullopt;
      }
    }
    begin = end;
  }
  t.measured = FromSeconds(seconds);
  if (!(seconds > 0) || t.steps <= 0) {
    return Fail(ErrorCode::kFailed,
                fmt::format("no measurable progress between the first and last reports ({} "
                            "steps in {} ms); profile longer (--for, --steps)",
                            t.steps, t.measured.count()));
  }
  t.steps_per_second = static_cast<double>(t.steps) / seconds;
  if (tokens && *tokens > 0) t.tokens_per_second = *tokens / seconds;
  if (samples && *samples > 0) t.samples_per_second = *samples / seconds;
  return t;
}

std::optional<std::string> ShortWindowWarning(const ledger::NewProfile& p) {
  if (p.measured >= kShortestTrustedWindow) return std::nullopt;
  return fmt::format(
      "the measured window is {:.2f}s ({} steps): too short to trust its rate (the clock, the "
      "reading of the reports and the first steps weigh more than the steps); profile longer "
      "(--steps, --for) so that it measures at least {}s",
      ToSeconds(p.measured), p.steps, ToSeconds(kShortestTrustedWindow));
}

std::string CpuModelName(std::string_view cpuinfo) {
  std::string fallback;
  for (const std::string& line : Split(cpuinfo, '\n')) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string_view key = Trim(std::string_view(line).substr(0, colon));
    const std::string_view value = Trim(std::string_view(line).substr(colon + 1));
    if (value.empty()) continue;
    if (key == "model name") return std::string(value);
    if (fallback.empty() && (key == "Hardware" || key == "cpu model")) fallback = value;
  }
  return fallback.empty() ? "unknown CPU" : fallback;
}

int UsableCpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof(set), &set) == 0) return std::max(CPU_COUNT(&set), 1);
  return std::max(static_cast<int>(std::thread::hardware_concurrency()), 1);
}

std::vector<std::string> VisibleGpuNames(const std::vector<std::string>& nvml,
                                         std::optional<std::string_view> cuda_visible) {
  if (!cuda_visible) return nvml;
  std::vector<std::string> out;
  if (nvml.empty()) return out;
  for (const std::string& entry : Split(*cuda_visible, ',')) {
    const std::string_view e = Trim(entry);
    const Result<int64_t> index = ParseInt(e);
    if (index) {
      if (*index < 0 || static_cast<uint64_t>(*index) >= nvml.size()) break;
      out.push_back(nvml[static_cast<size_t>(*index)]);
    } else if (e.starts_with("GPU-") || e.starts_with("MIG-")) {
      out.push_back(nvml.front());
    } else {
      break;
    }
  }
  return out;
}

DeviceInfo DetectDevice(const monitor::NvmlProbe& gpus) {
  DeviceInfo d;
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::vector<std::string> names =
      VisibleGpuNames(gpus.DeviceNames(),
                      visible == nullptr ? std::nullopt : std::optional<std::string_view>(visible));
  if (!names.empty()) {
    d.kind = "gpu";
    d.count = static_cast<int>(names.size());
    std::map<std::string, int> models;
    for (const std::string& n : names) ++models[n];
    d.name = models.size() == 1 ? names.front() : fmt::format("{} (mixed)", names.front());
    return d;
  }
  std::ifstream in("/proc/cpuinfo");
  std::stringstream text;
  text << in.rdbuf();
  d.name = CpuModelName(text.str());
  d.count = UsableCpus();
  return d;
}

namespace {

struct ChildUsage {
  double cpu_seconds = 0;
  uint64_t max_rss_bytes = 0;
};

/// CPU time and the largest resident set of the children this process has waited for.
ChildUsage ChildrenUsage() {
  rusage u{};
  ::getrusage(RUSAGE_CHILDREN, &u);
  auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  // ru_maxrss is in KiB on Linux.
  return {seconds(u.ru_utime) + seconds(u.ru_stime), static_cast<uint64_t>(u.ru_maxrss) * 1024};
}

SupervisorConfig ConfigFor(const ProfileRequest& r, int gpus) {
  SupervisorConfig c;
  c.command = r.command;
  c.run_id = r.work_dir.filename().string();
  c.run_dir = r.work_dir;
  c.tags = {{"profile", r.name}};
  c.gpus = gpus;
  c.checkpoint_grace = r.checkpoint_grace;
  c.stop_grace = r.stop_grace;
  // Short runs need dense samples for a peak memory figure.
  c.sample_interval = std::chrono::milliseconds(500);
  c.keep_checkpoints = 1;
  c.child_stdout = r.child_stdout;
  return c;
}

/// kFailed/kInterrupted for an end that is not the measurement's.
Result<void> CheckOutcome(const RunResult& result, const ProfileMeter& meter) {
  switch (result.outcome) {
    case RunOutcome::kFinished:
      return {};
    case RunOutcome::kPreempted:
      if (!meter.stopped_by().empty()) return {};
      return Fail(ErrorCode::kFailed, "the profile was stopped from outside: " + result.message);
    case RunOutcome::kInterrupted:
      return Fail(ErrorCode::kInterrupted, "profile interrupted");
    case RunOutcome::kFailed:
    case RunOutcome::kBudgetStop:
      break;
  }
  return Fail(ErrorCode::kFailed, "the command failed before the profile ended: " + result.message);
}

}  // namespace

RunProfiler::RunProfiler(std::string name, std::vector<std::string> command, ProfileLimits limits)
    : name_(std::move(name)),
      command_(std::move(command)),
      owned_meter_(std::make_unique<ProfileMeter>(limits)),
      meter_(owned_meter_.get()),
      cpu_seconds_before_(ChildrenUsage().cpu_seconds),
      started_(std::chrono::steady_clock::now()) {
  const monitor::NvmlProbe probe;
  device_ = DetectDevice(probe);
}

std::unique_ptr<PreemptionSource> RunProfiler::TakeMeter() {
  FRUGAL_CHECK(owned_meter_ != nullptr);
  return std::move(owned_meter_);
}

Result<ledger::NewProfile> RunProfiler::Finish(const RunResult& result,
                                               const std::string& ended) const {
  const ChildUsage after = ChildrenUsage();
  const Throughput t = FRUGAL_TRY(MeasureThroughput(meter_->points()));
  ledger::NewProfile p;
  p.name = name_;
  p.time = ledger::Now();
  p.command = fmt::format("{}", fmt::join(command_, " "));
  p.device = device_.name;
  p.device_kind = device_.kind;
  p.device_count = device_.count;
  // The whole run by this clock: the budget's wall counts what the segments were charged for,
  // which a restart here can leave short of the run's own time.
  p.wall =
      std::max(result.usage.wall,
               std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started_));
  p.measured = t.measured;
  p.steps = t.steps;
  p.steps_per_second = t.steps_per_second;
  p.tokens_per_second = t.tokens_per_second;
  p.samples_per_second = t.samples_per_second;
  p.peak_gpu_memory_bytes = result.utilization.gpu_peak_memory_bytes;
  // The sampler sees the whole process tree; rusage sees every waited-for process, even one
  // too short-lived to be sampled.
  p.peak_rss_bytes = std::max(result.utilization.peak_rss_bytes, after.max_rss_bytes);
  const double wall_seconds = ToSeconds(p.wall);
  p.cpu_cores = wall_seconds > 0 ? (after.cpu_seconds - cpu_seconds_before_) / wall_seconds
                                 : result.utilization.cpu_cores_mean;
  p.ended = ended;
  return p;
}

std::string RunEnded(const RunResult& result) {
  switch (result.outcome) {
    case RunOutcome::kFinished:
      return "finished";
    case RunOutcome::kPreempted:
      return "preempted";
    case RunOutcome::kFailed:
      return "failed";
    case RunOutcome::kBudgetStop:
      return "budget_stop";
    case RunOutcome::kInterrupted:
      return "interrupted";
  }
  return "finished";
}

Result<std::vector<plan::RecordedMeasurement>> RecordedMeasurementsFor(ledger::Ledger& ledger,
                                                                       const std::string& name) {
  const std::vector<ledger::Profile> profiles = FRUGAL_TRY(ledger::ListProfiles(ledger, name));
  std::vector<plan::RecordedMeasurement> out;
  for (const ledger::Profile& p : profiles) {
    const ledger::NewProfile& r = p.record;
    plan::RecordedMeasurement m;
    m.profile_id = p.id;
    if (r.run_id) {
      const Result<ledger::Run> run = ledger.GetRun(*r.run_id);
      m.run_id = run ? run->name : std::to_string(*r.run_id);
    }
    m.recorded_at = ledger::FormatTimestamp(r.time);
    m.device = r.device;
    m.device_kind = r.device_kind;
    m.device_count = r.device_count;
    m.steps_per_second = r.steps_per_second;
    m.tokens_per_second = r.tokens_per_second;
    m.samples_per_second = r.samples_per_second;
    m.peak_gpu_memory_bytes = r.peak_gpu_memory_bytes;
    m.peak_rss_bytes = r.peak_rss_bytes;
    m.cpu_cores = r.cpu_cores;
    m.wall_seconds = ToSeconds(r.wall);
    m.ended = r.ended;
    out.push_back(std::move(m));
  }
  return out;
}

Result<void> AddLedgerMeasurements(ledger::Ledger& ledger, plan::JobSpec& spec,
                                   const catalog::Catalog& catalog) {
  if (spec.measurement_name.empty()) return {};
  const std::vector<plan::RecordedMeasurement> recorded =
      FRUGAL_TRY(RecordedMeasurementsFor(ledger, spec.measurement_name));
  plan::AddRecordedMeasurements(spec, catalog, recorded);
  return {};
}

Result<ledger::Profile> RecordRunProfile(ledger::Ledger& ledger, const RunProfiler& profiler,
                                         const RunResult& result,
                                         std::optional<ledger::RunId> run_id,
                                         const std::filesystem::path& profiles_dir) {
  Result<ledger::NewProfile> finished = profiler.Finish(result, RunEnded(result));
  if (!finished) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{} progress report(s), no throughput to measure (a command reports "
                            "progress with the protocol: docs/protocol.md)",
                            profiler.meter().points().size()));
  }
  finished->run_id = run_id;
  return StoreProfile(ledger, std::move(*finished), profiles_dir);
}

Result<ledger::Profile> StoreProfile(ledger::Ledger& ledger, ledger::NewProfile measured,
                                     const std::filesystem::path& profiles_dir) {
  const ledger::ProfileId id = FRUGAL_TRY(ledger::RecordProfile(ledger, measured));
  ledger::Profile stored{id, std::move(measured)};
  FRUGAL_TRY(WritePlanProfile(stored, profiles_dir));
  return stored;
}

Result<std::string> ProfileName(const std::string& flag_name,
                                const std::vector<std::string>& command) {
  FRUGAL_TRY(CheckFlagText("--name", flag_name));
  std::string name = flag_name;
  if (name.empty() && !command.empty()) {
    auto stem = [](const std::string& arg) { return std::filesystem::path(arg).stem().string(); };
    name = stem(command.front());
    const bool interpreter = name.rfind("python", 0) == 0 || name == "bash" || name == "sh" ||
                             name == "torchrun" || name == "accelerate";
    for (size_t i = 1; interpreter && i < command.size(); ++i) {
      if (!command[i].empty() && command[i][0] != '-') {
        name = stem(command[i]);
        break;
      }
    }
  }
  FRUGAL_TRY(CheckFileName(name, "option --name"));
  return name;
}

std::string ProfileWorkDirName(const std::string& name, ledger::Timestamp now) {
  std::string safe;
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.';
    safe.push_back(ok ? c : '_');
  }
  if (safe.size() > 64) safe.resize(64);
  return fmt::format("profile-{}-{}", safe, ledger::ToMillis(now));
}

Result<ledger::NewProfile> ProfileCommand(const ProfileRequest& request) {
  if (request.command.empty()) return Fail(ErrorCode::kBadInput, "no command to profile");
  RunProfiler profiler(request.name, request.command, request.limits);
  const DeviceInfo& device = profiler.device();

  // A fresh folder of its own, journaled only: the caller stores the profile it measures.
  RunSessionOptions options;
  options.hold = RunHold::kCallerHolds;
  const std::unique_ptr<RunSession> session = FRUGAL_TRY(RunSession::Open(
      ConfigFor(request, device.kind == "gpu" ? device.count : 0), nullptr, std::move(options)));
  Supervisor& supervisor = session->NewSupervisor();
  supervisor.AddPreemptionSource(profiler.TakeMeter());

  const RunResult result = FRUGAL_TRY(supervisor.Run());
  const ProfileMeter& meter = profiler.meter();
  FRUGAL_TRY(CheckOutcome(result, meter));
  ledger::NewProfile p = FRUGAL_TRY(
      profiler.Finish(result, meter.stopped_by().empty() ? "finished" : meter.stopped_by()));
  // The checkpoints were for stopping cleanly, not for resuming: the journal stays.
  std::error_code ignored;
  std::filesystem::remove_all(request.work_dir / "checkpoints", ignored);
  return p;
}

Result<void> WritePlanProfile(const ledger::Profile& profile, const std::filesystem::path& dir) {
  const ledger::NewProfile& r = profile.record;
  std::string units = "steps";
  double rate = r.steps_per_second;
  if (r.tokens_per_second) {
    units = "tokens";
    rate = *r.tokens_per_second;
  } else if (r.samples_per_second) {
    units = "samples";
    rate = *r.samples_per_second;
  }
  const nlohmann::json doc = {
      {"format_version", 1},
      {"name", r.name},
      {"measured_at", ledger::FormatTimestamp(r.time)},
      {"device", r.device},
      {"units", units},
      {"units_per_second", rate},
      {"profile_id", profile.id},
      {"run_id", r.run_id ? nlohmann::json(*r.run_id) : nlohmann::json(nullptr)}};
  FRUGAL_TRY(CheckFileName(r.name, "the profile's name"));
  return WriteFileAtomically(dir / (r.name + ".json"), doc.dump(2) + "\n");
}

}  // namespace frugal::run

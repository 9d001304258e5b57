#include "frugal/run/profile.h"

#include <fmt/format.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "frugal/monitor/nvml_probe.h"
#include "frugal/monitor/proc_sampler.h"
#include "frugal/run/child_process.h"
#include "frugal/run/run_journal.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

constexpr auto kPoll = std::chrono::milliseconds(100);
constexpr auto kStopGrace = std::chrono::milliseconds(5000);

struct Progress {
  Clock::time_point at;
  int64_t step = 0;
  std::optional<double> units;  ///< a cumulative samples/tokens metric, when reported
};

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      if (colon != std::string::npos) return line.substr(colon + 2);
    }
  }
  return "unknown";
}

/// Reads the report lines appended since `offset`; keeps the progress ones.
void ReadProgress(const fs::path& report, std::streamoff& offset, std::string& units_name,
                  std::vector<Progress>& out) {
  std::ifstream in(report, std::ios::binary);
  if (!in) return;
  in.seekg(offset);
  std::string line;
  while (std::getline(in, line)) {
    if (in.eof()) break;  // a line still being written: read it next time
    offset = in.tellg();
    auto doc = nlohmann::json::parse(line, nullptr, false);
    if (!doc.is_object() || doc.value("type", "") != "progress" || !doc.contains("step") ||
        !doc["step"].is_number_integer())
      continue;
    Progress p{Clock::now(), doc["step"].get<int64_t>(), std::nullopt};
    if (doc.contains("metrics") && doc["metrics"].is_object()) {
      for (const char* key : {"samples", "tokens"}) {
        if (doc["metrics"].contains(key) && doc["metrics"][key].is_number()) {
          p.units = doc["metrics"][key].get<double>();
          units_name = key;
          break;
        }
      }
    }
    out.push_back(p);
  }
}

}  // namespace

Result<ProfileRecord> RunProfile(const ProfileRequest& request) {
  if (request.argv.empty()) return Fail(ErrorCode::kBadInput, "profile: no command given");
  std::error_code ec;
  fs::create_directories(request.scratch_dir / "checkpoints", ec);
  const fs::path report = request.scratch_dir / "report.jsonl";
  { std::ofstream(report, std::ios::trunc); }
  SpawnOptions spawn;
  spawn.argv = request.argv;
  spawn.env = {{"FRUGAL_PROTOCOL", "1"},
               {"FRUGAL_RUN_ID", "profile-" + request.name},
               {"FRUGAL_SEGMENT", "1"},
               {"FRUGAL_CHECKPOINT_DIR", (request.scratch_dir / "checkpoints").string()},
               {"FRUGAL_RESUME_FROM", ""},
               {"FRUGAL_REPORT", report.string()}};
  spawn.stdout_to = ChildStdout::kToStderr;
  auto child = FRUGAL_TRY(ChildProcess::Spawn(spawn));
  auto nvml = std::make_unique<monitor::NvmlProbe>();
  const bool gpu = nvml->available();
  monitor::ProcSampler sampler(std::move(nvml));
  ProfileRecord r;
  r.name = request.name;
  r.measured_at = FormatWallTime(std::chrono::system_clock::now());
  for (const std::string& a : request.argv) r.command += (r.command.empty() ? "" : " ") + a;
  std::vector<Progress> progress;
  std::streamoff offset = 0;
  std::string units_name;
  double cpu_sum = 0;
  int samples = 0;
  const auto start = Clock::now();
  while (true) {
    std::this_thread::sleep_for(kPoll);
    const monitor::Sample s = sampler.Take(child->pid());
    r.peak_rss_bytes = std::max(r.peak_rss_bytes, s.rss_bytes);
    if (s.processes > 0) {
      cpu_sum += s.cpu_cores;
      ++samples;
    }
    if (s.gpu_memory_bytes) {
      r.peak_gpu_memory_bytes = std::max(r.peak_gpu_memory_bytes.value_or(0), *s.gpu_memory_bytes);
    }
    ReadProgress(report, offset, units_name, progress);
    const bool exited = child->Poll().has_value();
    const bool enough_steps = request.steps && progress.size() >= 2 &&
                              progress.back().step - progress.front().step >= *request.steps;
    if (exited || enough_steps || Clock::now() - start >= request.duration) break;
  }
  if (child->SignalGroup(SIGTERM)) child->WaitFor(kStopGrace);
  ReadProgress(report, offset, units_name, progress);
  if (progress.size() < 2) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("profile: the command reported {} progress line(s) in {:.0f} s; at "
                    "least two are needed to measure its throughput (it must append "
                    "{{\"type\":\"progress\",\"step\":N}} lines to $FRUGAL_REPORT, "
                    "docs/protocol.md)",
                    progress.size(), std::chrono::duration<double>(Clock::now() - start).count()));
  }
  const Progress& first = progress.front();
  const Progress& last = progress.back();
  r.steps = last.step - first.step;
  r.seconds = std::chrono::duration<double>(last.at - first.at).count();
  if (!(r.seconds > 0) || r.steps <= 0) {
    return Fail(ErrorCode::kBadInput, "profile: no progress between the first and last report");
  }
  r.steps_per_second = static_cast<double>(r.steps) / r.seconds;
  if (first.units && last.units) {
    r.units = units_name;
    r.units_per_second = (*last.units - *first.units) / r.seconds;
  } else if (request.units_per_step > 0) {
    r.units = "samples";
    r.units_per_second = r.steps_per_second * request.units_per_step;
  } else {
    r.units = "steps";
    r.units_per_second = r.steps_per_second;
  }
  r.mean_cpu_cores = samples > 0 ? cpu_sum / samples : 0;
  r.gpus = gpu ? 1 : 0;
  r.device = gpu ? "NVIDIA GPU (NVML)" : "CPU: " + CpuModel();
  return r;
}

Result<void> SaveProfile(const ProfileRecord& r, const fs::path& dir) {
  nlohmann::json doc = {
      {"format_version", 1},
      {"name", r.name},
      {"measured_at", r.measured_at},
      {"command", r.command},
      {"device", r.device},
      {"gpus", r.gpus},
      {"steps", r.steps},
      {"seconds", r.seconds},
      {"steps_per_second", r.steps_per_second},
      {"units", r.units},
      {"units_per_second", r.units_per_second},
      {"peak_rss_bytes", r.peak_rss_bytes},
      {"mean_cpu_cores", r.mean_cpu_cores},
      {"peak_gpu_memory_bytes",
       r.peak_gpu_memory_bytes ? nlohmann::json(*r.peak_gpu_memory_bytes) : nlohmann::json()}};
  return WriteFileAtomically(dir / (r.name + ".json"), doc.dump(2) + "\n");
}

Result<ProfileRecord> LoadProfile(const fs::path& dir, const std::string& name) {
  const fs::path path = dir / (name + ".json");
  std::ifstream in(path);
  if (!in) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("no profile '{}' ({} does not exist; record one with `frugal profile "
                            "--name {} -- COMMAND`)",
                            name, path.string(), name));
  }
  auto doc = nlohmann::json::parse(in, nullptr, false);
  if (!doc.is_object() || doc.value("format_version", 0) != 1 ||
      !doc.contains("units_per_second") || !doc["units_per_second"].is_number()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: not a frugal profile (format version 1)", path.string()));
  }
  ProfileRecord r;
  r.name = doc.value("name", name);
  r.measured_at = doc.value("measured_at", "");
  r.command = doc.value("command", "");
  r.device = doc.value("device", "");
  r.units = doc.value("units", "steps");
  r.gpus = doc.value("gpus", 0);
  r.steps = doc.value("steps", int64_t{0});
  r.seconds = doc.value("seconds", 0.0);
  r.steps_per_second = doc.value("steps_per_second", 0.0);
  r.units_per_second = doc["units_per_second"].get<double>();
  r.peak_rss_bytes = doc.value("peak_rss_bytes", uint64_t{0});
  r.mean_cpu_cores = doc.value("mean_cpu_cores", 0.0);
  if (doc.contains("peak_gpu_memory_bytes") && doc["peak_gpu_memory_bytes"].is_number()) {
    r.peak_gpu_memory_bytes = doc["peak_gpu_memory_bytes"].get<uint64_t>();
  }
  return r;
}

}  // namespace frugal::run

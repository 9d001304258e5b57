#include "frugal/monitor/proc_sampler.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace frugal::monitor {

std::optional<ProcStat> ParseProcStat(std::string_view line, long page_bytes) {
  const size_t close = line.rfind(')');
  if (close == std::string_view::npos) return std::nullopt;
  ProcStat s;
  s.pid = static_cast<pid_t>(std::atol(std::string(line.substr(0, line.find(' '))).c_str()));
  // Fields after the command name, numbered as in proc(5): field 3 (state) is index 0.
  std::vector<std::string_view> f;
  std::string_view rest = line.substr(close + 2);
  while (!rest.empty()) {
    const size_t space = rest.find(' ');
    f.push_back(rest.substr(0, space));
    if (space == std::string_view::npos) break;
    rest.remove_prefix(space + 1);
  }
  auto field = [&](size_t number) -> uint64_t {
    if (number - 3 >= f.size()) return 0;
    return std::strtoull(std::string(f[number - 3]).c_str(), nullptr, 10);
  };
  if (f.size() < 22) return std::nullopt;
  s.pgrp = static_cast<pid_t>(field(5));
  s.cpu_ticks = field(14) + field(15);
  s.rss_bytes = field(24) * static_cast<uint64_t>(page_bytes);
  s.blkio_ticks = field(42);
  return s;
}

std::vector<ProcStat> ReadAllProcStats() {
  std::vector<ProcStat> out;
  const long page = ::sysconf(_SC_PAGESIZE);
  DIR* dir = ::opendir("/proc");
  if (dir == nullptr) return out;
  while (const dirent* entry = ::readdir(dir)) {
    if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
    std::ifstream in(std::string("/proc/") + entry->d_name + "/stat");
    std::string line;
    if (!std::getline(in, line)) continue;
    if (auto s = ParseProcStat(line, page)) out.push_back(*s);
  }
  ::closedir(dir);
  return out;
}

ProcSampler::ProcSampler(std::unique_ptr<NvmlProbe> gpus) : gpus_(std::move(gpus)) {}

Sample ProcSampler::Take(pid_t pgid) {
  const auto now = std::chrono::steady_clock::now();
  if (pgid != pgid_) {
    pgid_ = pgid;
    previous_.clear();
    last_ = now;
  }
  const double wall_seconds = std::chrono::duration<double>(now - last_).count();
  const double hz = static_cast<double>(::sysconf(_SC_CLK_TCK));
  Sample s;
  s.at = std::chrono::system_clock::now();
  uint64_t cpu = 0, blkio = 0;
  std::map<pid_t, ProcStat> current;
  for (const ProcStat& p : ReadAllProcStats()) {
    if (p.pgrp != pgid) continue;
    ++s.processes;
    s.rss_bytes += p.rss_bytes;
    const auto prev = previous_.find(p.pid);
    // A process new since the last sample counts all of its time (it started after then).
    cpu +=
        p.cpu_ticks - (prev != previous_.end() ? std::min(prev->second.cpu_ticks, p.cpu_ticks) : 0);
    blkio += p.blkio_ticks -
             (prev != previous_.end() ? std::min(prev->second.blkio_ticks, p.blkio_ticks) : 0);
    current[p.pid] = p;
  }
  if (wall_seconds > 0 && !previous_.empty()) {
    s.cpu_cores = static_cast<double>(cpu) / hz / wall_seconds;
    s.io_wait_fraction = static_cast<double>(blkio) / hz / wall_seconds;
  }
  previous_ = std::move(current);
  last_ = now;
  if (gpus_) {
    if (auto g = gpus_->Read()) {
      s.gpu_util_percent = g->util_percent;
      s.gpu_memory_bytes = g->memory_used_bytes;
      s.gpu_power_watts = g->power_watts;
      s.sm_clock_mhz = g->sm_clock_mhz;
    }
  }
  return s;
}

}  // namespace frugal::monitor

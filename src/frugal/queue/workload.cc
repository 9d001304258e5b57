#include "frugal/queue/workload.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

#include "frugal/core/yaml.h"

namespace frugal::queue {
namespace {

Seconds ToSecondsFloor(Duration d) { return static_cast<Seconds>(d.count() / 1000); }

Result<int> Count(const YamlDoc& doc, const YAML::Node& node, std::string_view key, int fallback,
                  int min, int max) {
  const std::optional<int64_t> v = FRUGAL_TRY(doc.OptionalInt(node, key));
  if (!v) return fallback;
  if (*v < min || *v > max) {
    return doc.FailAt(node[std::string(key)], key,
                      fmt::format("must be a whole number from {} to {}", min, max));
  }
  return static_cast<int>(*v);
}

Result<double> Hours(const YamlDoc& doc, const YAML::Node& node, std::string_view key) {
  const std::optional<Duration> d = FRUGAL_TRY(doc.OptionalDuration(node, key));
  if (!d) return 0.0;
  if (d->count() <= 0) return doc.FailAt(node[std::string(key)], key, "must be positive");
  return ToHours(*d);
}

struct Group {
  std::string name;
  int count = 1;
  std::vector<std::string> depends_on;
  const YAML::Node node;
};

/// What one job of the group asks for: GPUs or CPU slots, the GPU model (as a pool names it)
/// and its runtime, on any GPU or per model.
Result<void> ReadResources(const YamlDoc& doc, const YAML::Node& node, const Capacity& capacity,
                           JobRequest& base) {
  const int gpus = FRUGAL_TRY(Count(doc, node, "gpus", 0, 1, 100000));
  const int slots = FRUGAL_TRY(Count(doc, node, "cpu_slots", 0, 1, 100000));
  if (gpus > 0 && slots > 0)
    return doc.FailAt(node["cpu_slots"], "cpu_slots", "a job asks for gpus or cpu_slots, not both");
  base.cpu_only = slots > 0;
  base.units = base.cpu_only ? slots : std::max(1, gpus);
  base.gpu = FRUGAL_TRY(doc.OptionalString(node, "gpu")).value_or("");
  if (!base.gpu.empty()) {
    const Result<std::string> pool_gpu = capacity.PoolGpuFor(base.gpu);
    if (!pool_gpu) return doc.FailAt(node["gpu"], "gpu", pool_gpu.error().message);
    base.gpu = *pool_gpu;
  }
  base.runtime_hours = FRUGAL_TRY(Hours(doc, node, "runtime"));
  if (const YAML::Node by = node["runtime_by_gpu"]) {
    if (!by.IsMap()) return doc.FailAt(by, "runtime_by_gpu", "must map GPU models to runtimes");
    for (const auto& entry : by) {
      const std::string model = entry.first.as<std::string>();
      const Result<std::string> pool_gpu = capacity.PoolGpuFor(model);
      if (!pool_gpu) return doc.FailAt(entry.first, "runtime_by_gpu", pool_gpu.error().message);
      base.runtime_by_gpu[*pool_gpu] = FRUGAL_TRY(Hours(doc, by, model));
    }
  }
  if (base.runtime_hours <= 0 && base.runtime_by_gpu.empty()) {
    return doc.FailAt(node, "runtime", "missing: how long the job runs");
  }
  return {};
}

Result<void> ParseGroup(const YamlDoc& doc, const YAML::Node& node, const Capacity& capacity,
                        Seconds start, std::vector<JobRequest>& jobs, std::vector<Group>& groups) {
  FRUGAL_TRY(doc.CheckKeys(node, "job",
                           {"name", "at", "count", "every", "gpus", "cpu_slots", "gpu", "runtime",
                            "runtime_by_gpu", "checkpoints", "checkpoint_every", "restart",
                            "deadline", "not_before", "window", "priority", "tags", "depends_on"}));
  JobRequest base;
  base.name = FRUGAL_TRY(doc.RequiredString(node, "name"));
  const Seconds at =
      ToSecondsFloor(FRUGAL_TRY(doc.OptionalDuration(node, "at")).value_or(Duration{}));
  const int count = FRUGAL_TRY(Count(doc, node, "count", 1, 1, 100000));
  const Seconds every =
      ToSecondsFloor(FRUGAL_TRY(doc.OptionalDuration(node, "every")).value_or(Duration{}));
  FRUGAL_TRY(ReadResources(doc, node, capacity, base));
  base.checkpoints = FRUGAL_TRY(doc.OptionalBool(node, "checkpoints")).value_or(false);
  if (const double every_h = FRUGAL_TRY(Hours(doc, node, "checkpoint_every")); every_h > 0) {
    base.checkpoint_every_hours = every_h;
  }
  if (const double restart = FRUGAL_TRY(Hours(doc, node, "restart")); restart > 0) {
    base.restart_hours = restart;
  }
  const std::optional<Duration> deadline = FRUGAL_TRY(doc.OptionalDuration(node, "deadline"));
  const Seconds not_before =
      ToSecondsFloor(FRUGAL_TRY(doc.OptionalDuration(node, "not_before")).value_or(Duration{}));
  if (const std::optional<std::string> window = FRUGAL_TRY(doc.OptionalString(node, "window"))) {
    auto set = capacity.FindWindow(*window);
    if (!set) return doc.FailAt(node["window"], "window", set.error().message);
    base.window = *set;
    base.window_name = *window;
  }
  base.priority = FRUGAL_TRY(Count(doc, node, "priority", 0, -1000, 1000));
  base.tags = FRUGAL_TRY(doc.StringMap(node, "tags"));
  const std::vector<std::string> deps = FRUGAL_TRY(doc.StringList(node, "depends_on"));
  for (int i = 0; i < count; ++i) {
    JobRequest job = base;
    if (count > 1) job.name = fmt::format("{}-{}", base.name, i + 1);
    job.arrival = start + at + every * i;
    if (deadline) job.deadline = job.arrival + ToSecondsFloor(*deadline);
    job.not_before = job.arrival + not_before;
    jobs.push_back(std::move(job));
  }
  groups.push_back({base.name, count, deps, node});
  return {};
}

/// Resolves depends_on from group names to job names: copy i on copy i when the counts
/// match, else on every copy.
Result<void> ResolveDependencies(const YamlDoc& doc, std::vector<JobRequest>& jobs,
                                 const std::vector<Group>& groups) {
  std::map<std::string, const Group*> by_name;
  for (const Group& g : groups) by_name[g.name] = &g;
  size_t first = 0;
  for (const Group& g : groups) {
    for (const std::string& dep : g.depends_on) {
      const auto it = by_name.find(dep);
      if (it == by_name.end() || it->second == &g) {
        return doc.FailAt(g.node["depends_on"], "depends_on",
                          fmt::format("'{}' is not another job of this workload", dep));
      }
      const Group& d = *it->second;
      for (int i = 0; i < g.count; ++i) {
        JobRequest& job = jobs[first + static_cast<size_t>(i)];
        if (d.count == 1) {
          job.depends_on.push_back(d.name);
        } else if (d.count == g.count) {
          job.depends_on.push_back(fmt::format("{}-{}", d.name, i + 1));
        } else {
          for (int k = 0; k < d.count; ++k)
            job.depends_on.push_back(fmt::format("{}-{}", d.name, k + 1));
        }
      }
    }
    first += static_cast<size_t>(g.count);
  }
  return {};
}

/// Refuses a cycle of depends_on between groups: none of its jobs could ever start, and the
/// simulation would count them all as misses. Reported at the first group on the cycle.
Result<void> CheckNoCycle(const YamlDoc& doc, const std::vector<Group>& groups) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < groups.size(); ++i) index[groups[i].name] = i;
  enum class Mark { kNew, kOnPath, kDone };
  std::vector<Mark> mark(groups.size(), Mark::kNew);
  std::vector<size_t> path;
  // Depth-first with an explicit stack of (group, next dependency to follow).
  for (size_t root = 0; root < groups.size(); ++root) {
    if (mark[root] != Mark::kNew) continue;
    std::vector<std::pair<size_t, size_t>> stack = {{root, 0}};
    mark[root] = Mark::kOnPath;
    path = {root};
    while (!stack.empty()) {
      auto& [g, next] = stack.back();
      if (next == groups[g].depends_on.size()) {
        mark[g] = Mark::kDone;
        stack.pop_back();
        path.pop_back();
        continue;
      }
      const size_t d = index.at(groups[g].depends_on[next++]);
      if (mark[d] == Mark::kOnPath) {
        const auto from = std::find(path.begin(), path.end(), d);
        std::string cycle;
        for (auto it = from; it != path.end(); ++it) cycle += groups[*it].name + " -> ";
        cycle += groups[d].name;
        const Group& first = groups[d];
        return doc.FailAt(first.node["depends_on"], "depends_on",
                          fmt::format("a cycle: {} (none of its jobs could ever start)", cycle));
      }
      if (mark[d] == Mark::kNew) {
        mark[d] = Mark::kOnPath;
        path.push_back(d);
        stack.emplace_back(d, 0);
      }
    }
  }
  return {};
}

/// With a horizon, every copy of every group must arrive before its end: a later one is never
/// simulated and would count as a miss.
Result<void> CheckArrivals(const YamlDoc& doc, const Workload& w,
                           const std::vector<Group>& groups) {
  size_t first = 0;
  for (const Group& g : groups) {
    for (int i = 0; i < g.count; ++i) {
      const JobRequest& job = w.jobs[first + static_cast<size_t>(i)];
      if (job.arrival < w.horizon_end) continue;
      const YAML::Node where = g.count > 1 && g.node["every"] ? g.node["every"] : g.node["at"];
      return doc.FailAt(
          where ? where : g.node, where && g.count > 1 ? "every" : "at",
          fmt::format("{} arrives {} after the start, at or past the horizon ({})", job.name,
                      FormatDuration(Duration((job.arrival - w.start) * 1000)),
                      FormatDuration(Duration((w.horizon_end - w.start) * 1000))));
    }
    first += static_cast<size_t>(g.count);
  }
  return {};
}

Result<Workload> FromDoc(const YamlDoc& doc, const Capacity& capacity) {
  const YAML::Node& root = doc.root();
  FRUGAL_TRY(
      doc.CheckKeys(root, "workload", {"apiVersion", "kind", "name", "start", "horizon", "jobs"}));
  if (FRUGAL_TRY(doc.RequiredString(root, "apiVersion")) != "frugal/v1") {
    return doc.FailAt(root["apiVersion"], "apiVersion", "must be frugal/v1");
  }
  if (FRUGAL_TRY(doc.RequiredString(root, "kind")) != "Workload") {
    return doc.FailAt(root["kind"], "kind", "must be Workload");
  }
  Workload w;
  w.source = doc.source();
  w.name = FRUGAL_TRY(doc.OptionalString(root, "name")).value_or("workload");
  const std::string start =
      FRUGAL_TRY(doc.OptionalString(root, "start")).value_or("2026-11-30T00:00Z");
  auto t = ParseUtcTime(start);
  if (!t) return doc.FailAt(root["start"], "start", t.error().message);
  w.start = *t;
  const YAML::Node jobs = root["jobs"];
  if (!jobs || !jobs.IsSequence() || jobs.size() == 0) {
    return doc.FailAt(jobs ? jobs : root, "jobs", "must be a non-empty list of jobs");
  }
  std::vector<Group> groups;
  std::set<std::string> names;
  for (const YAML::Node& node : jobs) {
    FRUGAL_TRY(ParseGroup(doc, node, capacity, w.start, w.jobs, groups));
    if (!names.insert(groups.back().name).second) {
      return doc.FailAt(node["name"], "name",
                        fmt::format("job '{}' is named twice", groups.back().name));
    }
    if (w.jobs.size() > 200000) return doc.FailAt(node, "count", "more than 200000 jobs in all");
  }
  FRUGAL_TRY(ResolveDependencies(doc, w.jobs, groups));
  FRUGAL_TRY(CheckNoCycle(doc, groups));
  Seconds last = w.start;
  for (const JobRequest& j : w.jobs) {
    last = std::max(last, j.deadline != kNever ? j.deadline : j.arrival);
  }
  const std::optional<Duration> horizon = FRUGAL_TRY(doc.OptionalDuration(root, "horizon"));
  if (horizon && horizon->count() <= 0)
    return doc.FailAt(root["horizon"], "horizon", "must be positive");
  w.horizon_end = horizon ? w.start + ToSecondsFloor(*horizon) : last;
  if (horizon) FRUGAL_TRY(CheckArrivals(doc, w, groups));
  std::stable_sort(w.jobs.begin(), w.jobs.end(),
                   [](const JobRequest& a, const JobRequest& b) { return a.arrival < b.arrival; });
  return w;
}

}  // namespace

Result<Workload> LoadWorkload(const std::filesystem::path& path, const Capacity& capacity) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  return FromDoc(doc, capacity);
}

Result<Workload> ParseWorkload(std::string_view text, const std::string& source,
                               const Capacity& capacity) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, source));
  return FromDoc(doc, capacity);
}

}  // namespace frugal::queue

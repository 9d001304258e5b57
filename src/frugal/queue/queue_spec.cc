// The queued job spec (kind QueueJob), the --deadline/--not-before forms, and the job's JSON
// form in the ledger's queue_jobs.request column.
//
// request JSON (version 1): {"version": 1, "name", "units", "cpu_only", "gpu",
// "runtime_hours", "runtime_by_gpu": {model: hours}, "checkpoints", "checkpoint_every_hours",
// "restart_hours", "arrival", "deadline" (unix seconds or null), "not_before", "window":
// [168 booleans as a string of 0/1] or null, "window_name", "priority", "tags", "budget_micros"
// or null, "override_reason", "depends_on": [names], "cache_key", "cache_output",
// "warm_start" (a run id or ""), "spot": {"preemptions", "spot_allowed", "paid_allowed",
// "first_start", "stint_start", "preempted_at", "recheck_at", "work_done_hours",
// "spans": [[on_spot, seconds]]}, "steps", "executor" ("local", "slurm" or "")}. Keys after
// cache_key were added later and may be absent.

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "frugal/core/yaml.h"
#include "frugal/queue/queue_service.h"

namespace frugal::queue {
namespace {

Result<std::optional<Seconds>> When(const YamlDoc& doc, const YAML::Node& root, const char* key,
                                    Seconds now) {
  const std::optional<std::string> text = FRUGAL_TRY(doc.OptionalString(root, key));
  if (!text) return std::optional<Seconds>();
  auto t = ParseWhen(key, *text, now);
  if (!t)
    return doc.FailAt(root[key], key,
                      "expected a duration (36h) or a UTC time (2026-12-01T08:00Z)");
  return std::optional<Seconds>(*t);
}

Result<int> Whole(const YamlDoc& doc, const YAML::Node& root, const char* key, int fallback,
                  int min, int max) {
  const std::optional<int64_t> v = FRUGAL_TRY(doc.OptionalInt(root, key));
  if (!v) return fallback;
  if (*v < min || *v > max) {
    return doc.FailAt(root[key], key,
                      fmt::format("must be a whole number from {} to {}", min, max));
  }
  return static_cast<int>(*v);
}

nlohmann::json SpotToJson(const SpotHistory& s) {
  return {{"preemptions", s.preemptions},
          {"spot_allowed", s.spot_allowed},
          {"paid_allowed", s.paid_allowed},
          {"first_start", s.first_start},
          {"stint_start", s.stint_start},
          {"preempted_at", s.preempted_at},
          {"recheck_at", s.recheck_at},
          {"work_done_hours", s.work_done_hours},
          {"spans", s.spans}};
}

SpotHistory SpotFromJson(const nlohmann::json& doc) {
  SpotHistory s;
  s.preemptions = doc.at("preemptions").get<int>();
  s.spot_allowed = doc.at("spot_allowed").get<bool>();
  s.paid_allowed = doc.at("paid_allowed").get<bool>();
  s.first_start = doc.at("first_start").get<Seconds>();
  s.stint_start = doc.at("stint_start").get<Seconds>();
  s.preempted_at = doc.at("preempted_at").get<Seconds>();
  s.recheck_at = doc.at("recheck_at").get<Seconds>();
  s.work_done_hours = doc.at("work_done_hours").get<double>();
  s.spans = doc.at("spans").get<std::vector<std::pair<bool, Seconds>>>();
  return s;
}

}  // namespace

Result<Seconds> ParseWhen(const std::string& flag, const std::string& text, Seconds now) {
  if (auto d = ParseDuration(text)) return now + static_cast<Seconds>(d->count() / 1000);
  if (auto t = ParseUtcTime(text)) return *t;
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}: '{}' is neither a duration (36h) nor a UTC time "
                          "(2026-12-01T08:00Z)",
                          flag, text));
}

namespace {

/// The spec's keys, apiVersion and kind.
Result<void> CheckQueueJobHeader(const YamlDoc& doc, const YAML::Node& root) {
  FRUGAL_TRY(
      doc.CheckKeys(root, "queued job",
                    {"apiVersion", "kind",     "name",           "gpus",        "cpu_slots",
                     "gpu",        "runtime",  "runtime_by_gpu", "checkpoints", "checkpoint_every",
                     "restart",    "deadline", "not_before",     "window",      "priority",
                     "tags",       "budget",   "depends_on",     "cache",       "warm_start",
                     "command",    "steps"}));
  if (FRUGAL_TRY(doc.RequiredString(root, "apiVersion")) != "frugal/v1") {
    return doc.FailAt(root["apiVersion"], "apiVersion", "must be frugal/v1");
  }
  if (FRUGAL_TRY(doc.OptionalString(root, "kind")).value_or("QueueJob") != "QueueJob") {
    return doc.FailAt(root["kind"], "kind", "must be QueueJob");
  }
  return {};
}

/// The job's name (the file's stem without a name key) and what it asks for: GPUs of a pool's
/// model, or CPU slots.
Result<void> ReadNameAndUnits(const YamlDoc& doc, const YAML::Node& root,
                              const std::filesystem::path& path, const Capacity& capacity,
                              JobRequest& job) {
  job.name = FRUGAL_TRY(doc.OptionalString(root, "name")).value_or(path.stem().string());
  if (job.name.empty()) return doc.FailAt(root["name"], "name", "must not be empty");
  if (job.name.size() > 200) {
    // Without a name key the file's name is the job's: located at the document then.
    return doc.FailAt(root["name"] ? root["name"] : root, "name",
                      fmt::format("{} bytes is too long (at most 200)", job.name.size()));
  }
  const int gpus = FRUGAL_TRY(Whole(doc, root, "gpus", 0, 1, 100000));
  const int slots = FRUGAL_TRY(Whole(doc, root, "cpu_slots", 0, 1, 100000));
  if (gpus > 0 && slots > 0) {
    return doc.FailAt(root["cpu_slots"], "cpu_slots", "a job asks for gpus or cpu_slots, not both");
  }
  job.cpu_only = slots > 0;
  job.units = job.cpu_only ? slots : std::max(1, gpus);
  job.gpu = FRUGAL_TRY(doc.OptionalString(root, "gpu")).value_or("");
  if (!job.gpu.empty()) {
    const Result<std::string> pool_gpu = capacity.PoolGpuFor(job.gpu);
    if (!pool_gpu) return doc.FailAt(root["gpu"], "gpu", pool_gpu.error().message);
    job.gpu = *pool_gpu;
  }
  return {};
}

/// How long the job runs (on each GPU model where runtime_by_gpu says), and how it checkpoints
/// and restarts.
Result<void> ReadRuntimes(const YamlDoc& doc, const YAML::Node& root, const Capacity& capacity,
                          JobRequest& job) {
  const std::optional<Duration> runtime = FRUGAL_TRY(doc.OptionalDuration(root, "runtime"));
  if (!runtime || runtime->count() <= 0) {
    return doc.FailAt(runtime ? root["runtime"] : root, "runtime",
                      "missing or not positive: how long the job runs (from plan's estimate or a "
                      "measured profile)");
  }
  job.runtime_hours = ToHours(*runtime);
  if (const YAML::Node by = root["runtime_by_gpu"]) {
    if (!by.IsMap()) return doc.FailAt(by, "runtime_by_gpu", "must map GPU models to runtimes");
    for (const auto& entry : by) {
      const std::string model = entry.first.as<std::string>();
      const std::optional<Duration> d = FRUGAL_TRY(doc.OptionalDuration(by, model));
      if (!d || d->count() <= 0)
        return doc.FailAt(entry.second, "runtime_by_gpu." + model, "must be positive");
      const Result<std::string> pool_gpu = capacity.PoolGpuFor(model);
      if (!pool_gpu) return doc.FailAt(entry.first, "runtime_by_gpu", pool_gpu.error().message);
      job.runtime_by_gpu[*pool_gpu] = ToHours(*d);
    }
  }
  job.checkpoints = FRUGAL_TRY(doc.OptionalBool(root, "checkpoints")).value_or(false);
  for (const auto& [key, hours] :
       {std::pair<const char*, double*>{"checkpoint_every", &job.checkpoint_every_hours},
        std::pair<const char*, double*>{"restart", &job.restart_hours}}) {
    const std::optional<Duration> d = FRUGAL_TRY(doc.OptionalDuration(root, key));
    if (d && d->count() <= 0) return doc.FailAt(root[key], key, "must be positive");
    if (d) *hours = ToHours(*d);
  }
  return {};
}

/// When the job may run: its arrival, deadline, not_before and window.
Result<void> ReadTiming(const YamlDoc& doc, const YAML::Node& root, const Capacity& capacity,
                        Seconds now, JobRequest& job) {
  job.arrival = now;
  job.deadline = FRUGAL_TRY(When(doc, root, "deadline", now)).value_or(kNever);
  if (job.deadline != kNever && job.deadline <= now) {
    return doc.FailAt(root["deadline"], "deadline", "already past");
  }
  job.not_before = FRUGAL_TRY(When(doc, root, "not_before", now)).value_or(now);
  if (const std::optional<std::string> w = FRUGAL_TRY(doc.OptionalString(root, "window"))) {
    auto set = capacity.FindWindow(*w);
    if (!set) return doc.FailAt(root["window"], "window", set.error().message);
    job.window = *set;
    job.window_name = *w;
  }
  return {};
}

/// Priority, steps, tags, budget and dependencies.
Result<void> ReadPriorityAndBudget(const YamlDoc& doc, const YAML::Node& root, JobRequest& job) {
  job.priority = FRUGAL_TRY(Whole(doc, root, "priority", 0, -1000, 1000));
  job.steps = FRUGAL_TRY(Whole(doc, root, "steps", 0, 1, 2'000'000'000));
  job.tags = FRUGAL_TRY(doc.StringMap(root, "tags"));
  job.budget = FRUGAL_TRY(doc.OptionalMoney(root, "budget"));
  if (job.budget && *job.budget <= Money()) {
    return doc.FailAt(root["budget"], "budget", "must be a positive amount");
  }
  job.depends_on = FRUGAL_TRY(doc.StringList(root, "depends_on"));
  if (root["depends_on"]) {
    job.depends_on_where = fmt::format("{}: field 'depends_on'", doc.Where(root["depends_on"]));
  }
  return {};
}

/// The cache entry the job fills and the run it warm-starts from.
Result<void> ReadCacheAndWarmStart(const YamlDoc& doc, const YAML::Node& root,
                                   const std::filesystem::path& path, JobRequest& job) {
  if (const YAML::Node cache = root["cache"]) {
    FRUGAL_TRY(doc.CheckKeys(cache, "cache", {"key", "output"}));
    job.cache_key = FRUGAL_TRY(doc.RequiredString(cache, "key"));
    std::filesystem::path output = FRUGAL_TRY(doc.RequiredString(cache, "output"));
    // Relative to the spec's folder, like every path a spec names.
    if (output.is_relative()) output = path.parent_path() / output;
    job.cache_output = output.string();
  }
  if (const std::optional<std::string> w = FRUGAL_TRY(doc.OptionalString(root, "warm_start"))) {
    if (w->empty()) return doc.FailAt(root["warm_start"], "warm_start", "expected a run id");
    job.warm_start = *w;
    job.warm_start_where = fmt::format("{}: field 'warm_start'", doc.Where(root["warm_start"]));
  }
  return {};
}

}  // namespace

Result<JobRequest> LoadQueueJobSpec(const std::filesystem::path& path, const Capacity& capacity,
                                    Seconds now, std::vector<std::string>* command) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  const YAML::Node& root = doc.root();
  FRUGAL_TRY(CheckQueueJobHeader(doc, root));
  JobRequest job;
  FRUGAL_TRY(ReadNameAndUnits(doc, root, path, capacity, job));
  FRUGAL_TRY(ReadRuntimes(doc, root, capacity, job));
  FRUGAL_TRY(ReadTiming(doc, root, capacity, now, job));
  FRUGAL_TRY(ReadPriorityAndBudget(doc, root, job));
  FRUGAL_TRY(ReadCacheAndWarmStart(doc, root, path, job));
  if (command != nullptr) *command = FRUGAL_TRY(doc.StringList(root, "command"));
  return job;
}

std::string RequestToJson(const JobRequest& j) {
  nlohmann::json doc = {
      {"version", 1},
      {"name", j.name},
      {"units", j.units},
      {"cpu_only", j.cpu_only},
      {"gpu", j.gpu},
      {"runtime_hours", j.runtime_hours},
      {"runtime_by_gpu", j.runtime_by_gpu},
      {"checkpoints", j.checkpoints},
      {"checkpoint_every_hours", j.checkpoint_every_hours},
      {"restart_hours", j.restart_hours},
      {"arrival", j.arrival},
      {"deadline", j.deadline == kNever ? nlohmann::json() : nlohmann::json(j.deadline)},
      {"not_before", j.not_before},
      {"window", j.window ? nlohmann::json(j.window->to_string()) : nlohmann::json()},
      {"window_name", j.window_name},
      {"priority", j.priority},
      {"tags", j.tags},
      {"budget_micros", j.budget ? nlohmann::json(j.budget->micros()) : nlohmann::json()},
      {"override_reason", j.override_reason},
      {"depends_on", j.depends_on},
      {"cache_key", j.cache_key},
      {"cache_output", j.cache_output},
      {"warm_start", j.warm_start},
      {"spot", SpotToJson(j.spot)},
      {"steps", j.steps},
      {"executor", j.executor}};
  return doc.dump();
}

Result<JobRequest> RequestFromJson(const std::string& text) {
  try {
    const nlohmann::json doc = nlohmann::json::parse(text);
    if (doc.at("version").get<int>() != 1) {
      return Fail(ErrorCode::kFailed, "queue job request: unknown version");
    }
    JobRequest j;
    j.name = doc.at("name").get<std::string>();
    j.units = doc.at("units").get<int>();
    j.cpu_only = doc.at("cpu_only").get<bool>();
    j.gpu = doc.at("gpu").get<std::string>();
    j.runtime_hours = doc.at("runtime_hours").get<double>();
    j.runtime_by_gpu = doc.at("runtime_by_gpu").get<std::map<std::string, double>>();
    j.checkpoints = doc.at("checkpoints").get<bool>();
    j.checkpoint_every_hours = doc.at("checkpoint_every_hours").get<double>();
    j.restart_hours = doc.at("restart_hours").get<double>();
    j.arrival = doc.at("arrival").get<Seconds>();
    j.deadline = doc.at("deadline").is_null() ? kNever : doc.at("deadline").get<Seconds>();
    j.not_before = doc.at("not_before").get<Seconds>();
    if (!doc.at("window").is_null()) j.window = HourSet(doc.at("window").get<std::string>());
    j.window_name = doc.at("window_name").get<std::string>();
    j.priority = doc.at("priority").get<int>();
    j.tags = doc.at("tags").get<std::map<std::string, std::string>>();
    if (!doc.at("budget_micros").is_null()) {
      j.budget = Money::FromMicros(doc.at("budget_micros").get<int64_t>());
    }
    j.override_reason = doc.at("override_reason").get<std::string>();
    j.depends_on = doc.at("depends_on").get<std::vector<std::string>>();
    j.cache_key = doc.value("cache_key", std::string());
    j.cache_output = doc.value("cache_output", std::string());
    j.warm_start = doc.value("warm_start", std::string());
    if (doc.contains("spot")) j.spot = SpotFromJson(doc.at("spot"));
    j.steps = doc.value("steps", int64_t{0});
    j.executor = doc.value("executor", std::string());
    return j;
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kFailed, std::string("queue job request in the ledger: ") + e.what());
  }
}

}  // namespace frugal::queue

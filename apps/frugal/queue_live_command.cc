// `frugal queue submit|list|show|cancel|hold|release|run`: the live queue in the ledger.

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/types.h"
#include "frugal/queue/queue_service.h"
#include "frugal/queue/queue_view.h"
#include "frugal/run/run_text.h"

namespace frugal::cli {
namespace {

/// A queue job id is a ledger row id: a positive 64-bit number. A larger one is refused, never
/// clamped onto another job.
constexpr int64_t kMaxJobId = std::numeric_limits<int64_t>::max();

using queue::Seconds;

Seconds Now() { return queue::SecondsAt(RealClock().Wall()); }

/// --capacity, else $FRUGAL_CAPACITY, else <config dir>/capacity.yaml.
Result<queue::Capacity> LoadQueueCapacity(const std::string& flag, const GlobalOptions& global) {
  std::filesystem::path path = flag;
  if (path.empty()) {
    const char* env = std::getenv("FRUGAL_CAPACITY");
    path = env != nullptr && *env != '\0' ? std::filesystem::path(env)
                                          : UserConfigDir() / "capacity.yaml";
  }
  if (flag.empty() && !std::filesystem::exists(path)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("no capacity file: pass --capacity FILE, set FRUGAL_CAPACITY, or "
                            "write {} (docs/queue.md)",
                            path.string()));
  }
  const catalog::Catalog catalog = FRUGAL_TRY(LoadCatalog(global));
  return queue::LoadCapacity(path, catalog.gpu_names());
}

std::string SelfBinary() {
  std::error_code ec;
  const auto p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("frugal") : p.string();
}

/// Local pools' jobs as processes here, Slurm pools' as batch jobs (the Slurm client commands
/// on PATH, SLURM_CONF as the environment gives it).
std::unique_ptr<queue::Executor> Executor(const GlobalOptions& global, const queue::Capacity& cap) {
  const std::filesystem::path dir = UserDataDir() / "queue";
  return queue::MakePoolExecutor(
      cap, queue::MakeLocalExecutor(SelfBinary(), global.db, dir),
      queue::MakeSlurmExecutor(queue::MakeSystemSlurmClient(), SelfBinary(), global.db, dir));
}

struct SubmitOptions {
  std::string spec;
  std::string capacity;
  std::string deadline;
  std::string budget;
  int priority = 0;
  bool priority_set = false;
  std::string not_before;
  std::string window;
  std::vector<std::string> tags;
  std::string override_reason;
  std::string warm_start;
  std::vector<std::string> command;
};

Result<void> ApplyFlags(const SubmitOptions& o, const queue::Capacity& cap, Seconds now,
                        queue::JobRequest& job) {
  if (!o.deadline.empty())
    job.deadline = FRUGAL_TRY(queue::ParseWhen("--deadline", o.deadline, now));
  if (!o.not_before.empty())
    job.not_before = FRUGAL_TRY(queue::ParseWhen("--not-before", o.not_before, now));
  if (!o.budget.empty()) {
    auto m = Money::Parse(o.budget);
    if (!m || *m <= Money())
      return Fail(ErrorCode::kBadInput,
                  "--budget: expected a positive amount, got '" + o.budget + "'");
    job.budget = *m;
  }
  if (o.priority_set) job.priority = o.priority;
  if (!o.window.empty()) {
    auto w = cap.FindWindow(o.window);
    if (!w) return Fail(w.error().Wrap("--window"));
    job.window = *w;
    job.window_name = o.window;
  }
  for (const std::string& t : o.tags) {
    const ledger::Tag tag = FRUGAL_TRY(
        ledger::ParseTag(t).map_error([](const Error& e) { return e.Wrap("option --tag"); }));
    FRUGAL_TRY(run::CheckTagText(tag.key, tag.value, "--tag"));
    job.tags[tag.key] = tag.value;
  }
  FRUGAL_TRY(run::CheckFlagText("--override", o.override_reason));
  FRUGAL_TRY(run::CheckFlagText("--warm-start", o.warm_start));
  job.override_reason = o.override_reason;
  if (!o.warm_start.empty()) {
    job.warm_start = o.warm_start;
    job.warm_start_where = "--warm-start";
  }
  if (job.deadline != queue::kNever && job.deadline <= now) {
    return Fail(ErrorCode::kBadInput, "--deadline: already past");
  }
  return {};
}

Result<void> RunSubmit(const SubmitOptions& o, const GlobalOptions& global, Streams& s) {
  const queue::Capacity cap = FRUGAL_TRY(LoadQueueCapacity(o.capacity, global));
  const Seconds now = Now();
  std::vector<std::string> spec_command;
  queue::JobRequest job = FRUGAL_TRY(queue::LoadQueueJobSpec(o.spec, cap, now, &spec_command));
  FRUGAL_TRY(ApplyFlags(o, cap, now, job));
  const std::vector<std::string>& command = o.command.empty() ? spec_command : o.command;
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
  const queue::Submitted sub =
      FRUGAL_TRY(queue::SubmitJob(db->connection(), cap, job, command, now));
  const queue::Placement& p = sub.placement;
  if (global.json) {
    WriteJson(
        s, {{"id", sub.id},
            {"name", job.name},
            {"verdict", queue::VerdictName(p.verdict)},
            {"pool", p.pool >= 0 ? nlohmann::json(cap.pools[static_cast<size_t>(p.pool)].name)
                                 : nlohmann::json()},
            {"expected_start",
             p.pool >= 0 ? nlohmann::json(queue::FormatUtcTime(p.start)) : nlohmann::json()},
            {"expected_finish",
             p.pool >= 0 ? nlohmann::json(queue::FormatUtcTime(p.finish)) : nlohmann::json()},
            {"expected_cost_usd", p.cost_usd},
            {"on_demand_cost_usd",
             p.on_demand_cost_usd >= 0 ? nlohmann::json(p.on_demand_cost_usd) : nlohmann::json()},
            {"reason", p.reason}});
    return {};
  }
  s.out << fmt::format("queued job {} ({}): {}: {}\n", sub.id, job.name,
                       queue::VerdictName(p.verdict), p.reason);
  return {};
}

Result<void> RunList(const std::string& state, const GlobalOptions& global, Streams& s) {
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  std::vector<std::string> states;
  if (!state.empty()) states = Split(state, ',');
  Result<std::vector<queue::JobView>> listed = queue::ListJobs(*db, states, Now());
  if (!listed) {
    return Fail(listed.error().code == ErrorCode::kBadInput ? listed.error().Wrap("--state")
                                                            : listed.error());
  }
  const std::vector<queue::JobView>& jobs = *listed;
  if (global.json) {
    WriteJson(s, queue::ListJson(jobs));
  } else {
    queue::PrintJobTable(jobs, s.out);
  }
  return {};
}

Result<void> RunShow(int64_t id, const GlobalOptions& global, Streams& s) {
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const queue::JobView job = FRUGAL_TRY(queue::ShowJob(*db, id, Now()));
  if (global.json) {
    WriteJson(s, queue::ShowJson(job));
  } else {
    queue::PrintJob(job, s.out);
  }
  return {};
}

Result<void> RunSteer(int64_t id, queue::Steer steer, const std::string& capacity,
                      const GlobalOptions& global, Streams& s) {
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  // Cancelling a job on a Slurm pool needs the pool's kind; without a capacity file every job
  // is taken for local.
  queue::Capacity cap;
  if (Result<queue::Capacity> loaded = LoadQueueCapacity(capacity, global)) {
    cap = std::move(*loaded);
  } else if (!capacity.empty()) {
    return Fail(loaded.error());
  }
  auto executor = Executor(global, cap);
  const auto row = FRUGAL_TRY(queue::SteerJob(db->connection(), *executor, id, steer, Now()));
  if (steer == queue::Steer::kCancel && row.pid && cap.FindPool(row.pool) == nullptr) {
    s.err << fmt::format(
        "frugal: warning: no capacity file names pool '{}': if it is a Slurm "
        "pool, job {}'s batch job was not cancelled (pass --capacity)\n",
        row.pool, row.id);
  }
  if (global.json) {
    WriteJson(s, queue::JobViewJson(FRUGAL_TRY(queue::ShowJob(*db, id, Now()))));
  } else {
    s.out << fmt::format("job {} ({}): {}\n", row.id, row.name,
                         ledger::QueueJobStateName(row.state));
  }
  return {};
}

struct RunLoopOptions {
  std::string capacity;
  bool once = false;
  std::string interval = "10s";
};

Result<void> RunLoop(const RunLoopOptions& o, const GlobalOptions& global, Streams& s) {
  const queue::Capacity cap = FRUGAL_TRY(LoadQueueCapacity(o.capacity, global));
  auto interval = ParseDuration(o.interval);
  if (!interval || interval->count() <= 0)
    return Fail(ErrorCode::kBadInput, "--interval: expected a positive duration");
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
  auto executor = Executor(global, cap);
  queue::RequestCache requests;
  for (;;) {
    const queue::PassReport r =
        FRUGAL_TRY(queue::RunPass(db->connection(), cap, *executor, Now(), &requests));
    for (const std::string& line : r.lines)
      s.out << queue::FormatUtcTime(Now()) << "  " << line << '\n';
    s.out.flush();
    if (o.once) {
      if (global.json) {
        WriteJson(s, {{"started", r.started},
                      {"finished", r.finished},
                      {"waiting", r.waiting},
                      {"running", r.running}});
      }
      return {};
    }
    std::this_thread::sleep_for(*interval);
  }
}

void RegisterSubmit(CLI::App& queue_cmd, GlobalOptions& global, Action& action) {
  auto sub = std::make_shared<SubmitOptions>();
  CLI::App* submit = queue_cmd.add_subcommand(
      "submit", "Queue a job: frugal queue submit JOB.yaml [options] -- COMMAND");
  submit->add_option("spec", sub->spec, "Queued job spec (kind: QueueJob)")->required();
  submit->add_option(
      "--capacity", sub->capacity,
      "Capacity YAML (default $FRUGAL_CAPACITY, then the config dir's capacity.yaml)");
  submit->add_option("--deadline", sub->deadline, "36h from now, or 2026-12-01T08:00Z");
  submit->add_option("--budget", sub->budget, "The job's dollar cap");
  submit->add_option("--priority", sub->priority, "Higher first among equal deadlines")
      ->check(WholeNumber(-1000, 1000))
      ->each([sub](const std::string&) { sub->priority_set = true; });
  submit->add_option("--not-before", sub->not_before,
                     "Earliest start: a duration from now or a UTC time");
  submit->add_option(
      "--window", sub->window,
      "Start only in this window (nights, weekends, off_peak, or the capacity file's)");
  submit->add_option("--tag", sub->tags, "Tag k=v (repeatable)")->allow_extra_args(false);
  submit->add_option("--override", sub->override_reason,
                     "Submit over the team budget, for this reason");
  submit->add_option("--warm-start", sub->warm_start,
                     "Start from this run's newest committed checkpoint (the spec's warm_start)");
  submit->add_option("command", sub->command, "The training command, after --");
  submit->callback([sub, &global, &action] {
    action = [sub, &global](Streams& s) { return RunSubmit(*sub, global, s); };
  });
}

/// list, show, and the steering commands (cancel, hold, release): one job or all, by id.
void RegisterInspectAndSteer(CLI::App& queue_cmd, GlobalOptions& global, Action& action) {
  auto state = std::make_shared<std::string>();
  CLI::App* list = queue_cmd.add_subcommand(
      "list", "Queued jobs: state, where and why, ETA against the deadline, spend");
  list->add_option("--state", *state, "Only these states (comma list)");
  list->callback([state, &global, &action] {
    action = [state, &global](Streams& s) { return RunList(*state, global, s); };
  });

  auto id = std::make_shared<int64_t>(0);
  CLI::App* show = queue_cmd.add_subcommand("show", "One queued job and its placement decisions");
  show->add_option("id", *id, "Queue job id")->required()->check(WholeNumber(1, kMaxJobId));
  show->callback([id, &global, &action] {
    action = [id, &global](Streams& s) { return RunShow(*id, global, s); };
  });
  const std::pair<const char*, queue::Steer> steers[] = {{"cancel", queue::Steer::kCancel},
                                                         {"hold", queue::Steer::kHold},
                                                         {"release", queue::Steer::kRelease}};
  for (const auto& [name, steer] : steers) {
    auto steer_id = std::make_shared<int64_t>(0);
    auto steer_cap = std::make_shared<std::string>();
    CLI::App* cmd = queue_cmd.add_subcommand(name, fmt::format("{} a queued job", name));
    cmd->add_option("id", *steer_id, "Queue job id")->required()->check(WholeNumber(1, kMaxJobId));
    cmd->add_option("--capacity", *steer_cap, "Capacity YAML (to reach a job on a Slurm pool)");
    cmd->callback([steer_id, steer_cap, steer = steer, &global, &action] {
      action = [steer_id, steer_cap, steer, &global](Streams& s) {
        return RunSteer(*steer_id, steer, *steer_cap, global, s);
      };
    });
  }
}

void RegisterRunLoop(CLI::App& queue_cmd, GlobalOptions& global, Action& action) {
  auto loop = std::make_shared<RunLoopOptions>();
  CLI::App* run = queue_cmd.add_subcommand(
      "run", "The scheduling loop: place waiting jobs and start them (local and Slurm pools)");
  run->add_option("--capacity", loop->capacity, "Capacity YAML");
  run->add_flag("--once", loop->once, "One pass, then exit (cron, systemd timers)");
  run->add_option("--interval", loop->interval, "Time between passes")->capture_default_str();
  run->callback([loop, &global, &action] {
    action = [loop, &global](Streams& s) { return RunLoop(*loop, global, s); };
  });
}

}  // namespace

void RegisterQueueLive(CLI::App& queue_cmd, GlobalOptions& global, Action& action) {
  RegisterSubmit(queue_cmd, global, action);
  RegisterInspectAndSteer(queue_cmd, global, action);
  RegisterRunLoop(queue_cmd, global, action);
}

}  // namespace frugal::cli

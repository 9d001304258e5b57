// `frugal queue`: the job queue. `simulate` replays a workload against a capacity file through
// the scheduler and the baselines.

#include <fmt/format.h>

#include <limits>
#include <memory>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/money.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/queue/capacity.h"
#include "frugal/queue/simulation.h"
#include "frugal/queue/workload.h"
#include "frugal/spot/trace.h"

namespace frugal::cli {
namespace {

struct SimulateQueueOptions {
  std::string workload;
  std::string capacity;
  std::vector<std::string> traces;
  uint64_t seed = 1;
  std::string policy = "all";
};

nlohmann::json ResultJson(const queue::PolicyResult& r) {
  const auto hours = [](double h) { return std::round(h * 1000) / 1000; };
  return {{"cost_usd", r.cost_usd},
          {"deadline_misses", r.deadline_misses},
          {"jobs_completed", r.jobs_completed},
          {"jobs", r.jobs},
          {"idle_owned_gpu_hours", hours(r.idle_owned_gpu_hours)},
          {"owned_gpu_hours", hours(r.owned_gpu_hours)},
          {"on_demand_gpu_hours", hours(r.on_demand_gpu_hours)},
          {"spot_gpu_hours", hours(r.spot_gpu_hours)},
          {"preemptions", r.preemptions},
          {"moved_to_on_demand", r.moved_to_on_demand},
          {"flagged_late", r.flagged_late},
          {"mean_wait_hours", hours(r.mean_wait_hours)},
          {"makespan_hours", hours(r.makespan_hours)},
          {"missed_jobs", r.missed}};
}

void PrintResults(const std::vector<queue::PolicyResult>& results, std::ostream& out) {
  Table table({{"policy"},
               {"cost", Align::kRight},
               {"misses", Align::kRight},
               {"completed", Align::kRight},
               {"idle owned GPU-h", Align::kRight},
               {"on-demand GPU-h", Align::kRight},
               {"spot GPU-h", Align::kRight},
               {"preemptions", Align::kRight},
               {"mean wait", Align::kRight}});
  for (const queue::PolicyResult& r : results) {
    table.AddRow({r.name, Money::FromDollars(r.cost_usd).ToString(),
                  std::to_string(r.deadline_misses), fmt::format("{}/{}", r.jobs_completed, r.jobs),
                  fmt::format("{:.1f}", r.idle_owned_gpu_hours),
                  fmt::format("{:.1f}", r.on_demand_gpu_hours),
                  fmt::format("{:.1f}", r.spot_gpu_hours), std::to_string(r.preemptions),
                  fmt::format("{:.2f}h", r.mean_wait_hours)});
  }
  table.Render(out);
}

Result<void> RunSimulateQueue(const SimulateQueueOptions& opts, const GlobalOptions& global,
                              Streams& streams) {
  const catalog::Catalog catalog = FRUGAL_TRY(LoadCatalog(global));
  const queue::Capacity capacity =
      FRUGAL_TRY(queue::LoadCapacity(opts.capacity, catalog.gpu_names()));
  const queue::Workload workload = FRUGAL_TRY(queue::LoadWorkload(opts.workload, capacity));
  queue::SimulationConfig config;
  config.seed = opts.seed;
  for (const std::string& path : opts.traces)
    config.traces.push_back(FRUGAL_TRY(spot::LoadTrace(path)));
  if (opts.policy != "all") {
    for (const std::string& name : Split(opts.policy, ',')) {
      FRUGAL_TRY(
          queue::PolicyOptions(name).map_error([](const Error& e) { return e.Wrap("--policy"); }));
      config.policies.push_back(name);
    }
  }
  const std::vector<queue::PolicyResult> results =
      FRUGAL_TRY(queue::SimulateWorkload(workload, capacity, config));
  const queue::PolicyResult* fifo = nullptr;
  const queue::PolicyResult* frugal = nullptr;
  for (const queue::PolicyResult& r : results) {
    if (r.name == "fifo_on_demand") fifo = &r;
    if (r.name == "frugal") frugal = &r;
  }
  if (global.json) {
    nlohmann::json doc;
    doc["workload"] = workload.name;
    doc["jobs"] = workload.jobs.size();
    doc["seed"] = opts.seed;
    doc["step_seconds"] = config.step_seconds;
    doc["horizon_hours"] = static_cast<double>(workload.horizon_end - workload.start) / 3600.0;
    nlohmann::json policies = nlohmann::json::object();
    for (const queue::PolicyResult& r : results) policies[r.name] = ResultJson(r);
    doc["policies"] = std::move(policies);
    if (fifo != nullptr && frugal != nullptr && fifo->cost_usd > 0) {
      doc["frugal_saving_vs_fifo_on_demand"] = 1 - frugal->cost_usd / fifo->cost_usd;
    }
    WriteJson(streams, std::move(doc));
    return {};
  }
  streams.out << fmt::format(
      "{}: {} jobs over {:.0f}h, seed {}\n\n", workload.name, workload.jobs.size(),
      static_cast<double>(workload.horizon_end - workload.start) / 3600.0, opts.seed);
  PrintResults(results, streams.out);
  if (fifo != nullptr && frugal != nullptr && fifo->cost_usd > 0) {
    streams.out << fmt::format("\nfrugal costs {:.1f}% less than FIFO on on-demand.\n",
                               100 * (1 - frugal->cost_usd / fifo->cost_usd));
  }
  return {};
}

void RegisterSimulateQueue(CLI::App& queue_cmd, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<SimulateQueueOptions>();
  CLI::App* cmd = queue_cmd.add_subcommand(
      "simulate", "Replay a workload against a capacity file: the scheduler and the baselines");
  cmd->add_option("--workload", opts->workload, "Workload YAML (jobs with arrivals)")->required();
  cmd->add_option("--capacity", opts->capacity, "Capacity YAML (pools, windows, budgets)")
      ->required();
  cmd->add_option("--trace", opts->traces,
                  "Spot availability traces, one per spot pool in order (default: each pool's "
                  "own trace)");
  cmd->add_option("--seed", opts->seed, "Picks where in each trace the simulation starts")
      ->check(WholeNumber(0, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--policy", opts->policy,
                  "frugal, fifo_on_demand, edf_on_demand, greedy_spot, a comma list, or all");
  cmd->callback([opts, &global, &action] {
    action = [opts, &global](Streams& s) -> Result<void> {
      return RunSimulateQueue(*opts, global, s);
    };
  });
}

}  // namespace

void RegisterQueue(CLI::App& app, GlobalOptions& global, Action& action) {
  CLI::App* cmd = app.add_subcommand("queue", "Job queue: deadlines, budgets, cheaper windows");
  cmd->require_subcommand(1);
  RegisterSimulateQueue(*cmd, global, action);
  RegisterQueueLive(*cmd, global, action);
}

}  // namespace frugal::cli

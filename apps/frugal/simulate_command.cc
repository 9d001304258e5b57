// `frugal simulate`: runs deadline policies over spot traces and compares them with the
// offline optimum.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <sstream>

#include "commands.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/duration.h"
#include "frugal/core/money.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/spot/evaluation.h"
#include "frugal/spot/evaluation_json.h"
#include "frugal/spot/policy.h"
#include "frugal/spot/run_plot.h"
#include "frugal/spot/trace_synthetic.h"

namespace frugal::cli {
namespace {

struct SimulateOptions {
  std::vector<std::string> traces;
  std::string policy = "all";
  std::string compute;
  std::string deadline;
  std::string changeover;
  std::string checkpoint_cost = "0s";
  std::string checkpoint_every = "auto";
  std::string notice = "0s";
  double price_ratio = 3;
  std::string prices;
  std::string on_demand_rate = "3.06";
  std::string tick = "10m";
  int starts = 300;
  uint64_t seed = 1;
  int gang = 1;
  bool optimum = false;
  bool per_run = false;
  std::string plot;
  std::string plot_policy;
  std::string trace_format = "auto";
};

Result<Duration> FlagDuration(const std::string& flag, const std::string& text) {
  auto d = ParseDuration(text);
  if (!d) return Fail(ErrorCode::kBadInput, flag + ": " + d.error().message);
  return *d;
}

Result<std::vector<spot::Trace>> LoadTraces(const SimulateOptions& opts) {
  const Duration tick = FRUGAL_TRY(FlagDuration("--tick", opts.tick));
  if (tick.count() < 1000 || tick.count() > spot::kMaxTickSeconds * 1000) {
    return Fail(ErrorCode::kBadInput, "--tick: must be from 1s to 24h");
  }
  const int tick_seconds = static_cast<int>(tick.count() / 1000);
  const spot::TraceFormat format = FRUGAL_TRY(spot::ParseTraceFormat(opts.trace_format));
  std::vector<spot::Trace> traces;
  for (size_t i = 0; i < opts.traces.size(); ++i) {
    const std::string& name = opts.traces[i];
    if (spot::IsSyntheticSpec(name)) {
      spot::SyntheticSpec spec = FRUGAL_TRY(spot::ParseSyntheticSpec(name, opts.seed + i));
      spec.gap_seconds = tick_seconds;
      traces.push_back(spot::MakeSyntheticTrace(spec));
      traces.back().name = name;
    } else {
      traces.push_back(FRUGAL_TRY(spot::LoadTrace(name, tick_seconds, format)));
    }
    if (!opts.prices.empty()) FRUGAL_TRY(spot::AttachPriceSeries(opts.prices, traces.back()));
    const int most =
        *std::max_element(traces.back().launchable.begin(), traces.back().launchable.end());
    if (most > 0 && most < opts.gang) {
      return Fail(ErrorCode::kBadInput, name + ": never more than " + std::to_string(most) +
                                            " instances launchable, so a gang of " +
                                            std::to_string(opts.gang) + " is never available");
    }
  }
  return traces;
}

Result<spot::EvaluationConfig> MakeConfig(const SimulateOptions& opts) {
  spot::EvaluationConfig config;
  config.job.compute = FRUGAL_TRY(FlagDuration("--compute", opts.compute));
  config.job.deadline = FRUGAL_TRY(FlagDuration("--deadline", opts.deadline));
  config.job.changeover = FRUGAL_TRY(FlagDuration("--changeover", opts.changeover));
  config.job.checkpoint_cost = FRUGAL_TRY(FlagDuration("--checkpoint-cost", opts.checkpoint_cost));
  if (opts.checkpoint_every != "auto") {
    config.job.checkpoint_every =
        FRUGAL_TRY(FlagDuration("--checkpoint-every", opts.checkpoint_every));
    if (config.job.checkpoint_every.count() <= 0) {
      return Fail(ErrorCode::kBadInput, "--checkpoint-every: must be positive or 'auto'");
    }
  }
  config.job.notice = FRUGAL_TRY(FlagDuration("--notice", opts.notice));
  if (config.job.compute.count() <= 0)
    return Fail(ErrorCode::kBadInput, "--compute: must be positive");
  if (config.job.deadline < config.job.compute) {
    return Fail(ErrorCode::kBadInput, "--deadline: shorter than --compute");
  }
  // Even on-demand from the start pays one changeover before any work.
  if (config.job.deadline < config.job.compute + config.job.changeover) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("--deadline: {} is shorter than --compute plus --changeover ({}), so "
                            "not even on-demand from the start can meet it",
                            FormatDuration(config.job.deadline),
                            FormatDuration(config.job.compute + config.job.changeover)));
  }
  auto rate = Rate::Parse(opts.on_demand_rate);
  if (!rate || rate->per_hour.micros() <= 0) {
    return Fail(ErrorCode::kBadInput,
                "--on-demand-rate: expected a positive $/h, got '" + opts.on_demand_rate + "'");
  }
  config.flat.on_demand_per_hour = rate->per_hour.dollars();
  if (!(opts.price_ratio >= 1)) return Fail(ErrorCode::kBadInput, "--price-ratio: must be ≥ 1");
  config.flat.ratio = opts.price_ratio;
  config.gang = opts.gang;
  config.starts = opts.starts;
  config.seed = opts.seed;
  config.optimum = opts.optimum;
  if (opts.policy == "all") {
    config.policies = spot::PolicyNames();
  } else {
    for (const std::string& name : Split(opts.policy, ',')) {
      FRUGAL_TRY(spot::MakePolicy(name));
      config.policies.push_back(name);
    }
  }
  return config;
}

/// A cost ratio of `s`, or "-" when no run has one.
std::string Ratio(const spot::RatioStats& s, double x) {
  return s.ratio_runs > 0 ? fmt::format("{:.3f}", x) : "-";
}
// Start times humanized ("20d6h"); run quantities in decimal hours so nothing is rounded
// away ("24.60h").
std::string When(int steps, double step_hours) {
  return FormatDuration(FromHours(steps * step_hours));
}
std::string Hours(int steps, double step_hours) {
  return fmt::format("{:.2f}h", steps * step_hours);
}

void PrintPerRun(const spot::Evaluation& eval, const spot::EvaluationConfig& config,
                 std::ostream& out) {
  const double step_hours = eval.step_seconds / 3600.0;
  Table table({{"trace"},
               {"start"},
               {"policy"},
               {"cost", Align::kRight},
               {"spot", Align::kRight},
               {"on-demand", Align::kRight},
               {"changeovers", Align::kRight},
               {"lost", Align::kRight},
               {"finish", Align::kRight},
               {"deadline"}});
  for (const spot::RunRow& row : eval.rows) {
    for (size_t i = 0; i < row.runs.size(); ++i) {
      const spot::RunResult& r = row.runs[i];
      table.AddRow({row.trace, When(row.start_step, step_hours), config.policies[i],
                    Money::FromDollars(r.cost_usd).ToString(), Hours(r.spot_steps, step_hours),
                    Hours(r.on_demand_steps, step_hours), std::to_string(r.changeovers),
                    Hours(r.lost_steps, step_hours), Hours(r.finish_step, step_hours),
                    r.deadline_met ? "met" : "MISSED"});
    }
    if (config.optimum) {
      table.AddRow({row.trace, When(row.start_step, step_hours), "optimum",
                    row.optimum_feasible ? Money::FromDollars(row.optimum_cost_usd).ToString()
                                         : "infeasible",
                    "", "", "", "", "", ""});
    }
  }
  table.Render(out);
  out << '\n';
}

void PrintSummary(const spot::Evaluation& eval, const spot::EvaluationConfig& config,
                  std::ostream& out) {
  out << fmt::format(
      "{} runs, step {}s{}\n\n", eval.rows.size(), eval.step_seconds,
      config.optimum ? fmt::format(", {} infeasible for every plan", eval.infeasible) : "");
  std::vector<Table::Column> columns = {{"policy"},
                                        {"runs", Align::kRight},
                                        {"misses", Align::kRight},
                                        {"mean cost", Align::kRight},
                                        {"spot share", Align::kRight}};
  if (config.optimum) {
    for (const char* title : {"mean ÷ opt", "median ÷ opt", "p90 ÷ opt", "greedy gap closed"}) {
      columns.push_back({title, Align::kRight});
    }
  }
  Table table(columns);
  for (const spot::PolicySummary& s : eval.summaries) {
    std::vector<std::string> row = {s.name, std::to_string(s.all.runs),
                                    std::to_string(s.all.deadline_misses),
                                    Money::FromDollars(s.all.mean_cost_usd).ToString(),
                                    fmt::format("{:.1f}%", 100 * s.all.spot_share)};
    if (config.optimum) {
      row.insert(row.end(), {Ratio(s.all, s.all.mean_ratio), Ratio(s.all, s.all.median_ratio),
                             Ratio(s.all, s.all.p90_ratio),
                             s.has_gap_closed ? fmt::format("{:.0f}%", 100 * s.gap_closed) : "-"});
    }
    table.AddRow(std::move(row));
  }
  table.Render(out);
  if (!config.optimum) return;
  out << "\nBy stratum (availability in the job's window; tight = compute/deadline > 0.75):\n";
  Table strata({{"policy"},
                {"stratum"},
                {"runs", Align::kRight},
                {"misses", Align::kRight},
                {"mean ÷ opt", Align::kRight},
                {"p90 ÷ opt", Align::kRight}});
  for (const spot::PolicySummary& s : eval.summaries) {
    for (const auto& [name, stats] : s.strata) {
      strata.AddRow({s.name, name, std::to_string(stats.runs),
                     std::to_string(stats.deadline_misses), Ratio(stats, stats.mean_ratio),
                     Ratio(stats, stats.p90_ratio)});
    }
  }
  strata.Render(out);
}

Result<void> WritePlot(const SimulateOptions& opts, const std::vector<spot::Trace>& traces,
                       const spot::EvaluationConfig& config, const spot::Evaluation& eval) {
  std::string name = opts.plot_policy;
  if (name.empty()) {
    auto f = std::find(config.policies.begin(), config.policies.end(), "frugal");
    name = f != config.policies.end() ? *f : config.policies.front();
  }
  std::unique_ptr<spot::Policy> policy = FRUGAL_TRY(spot::MakePolicy(name));
  const spot::RunRow& row = eval.rows.front();
  const spot::Trace& trace = *std::find_if(
      traces.begin(), traces.end(), [&](const spot::Trace& t) { return t.name == row.trace; });
  const spot::StepTrace st = spot::ToStepTrace(trace, eval.step_seconds, config.gang, config.flat);
  std::vector<spot::StepRecord> record;
  const spot::RunResult r = spot::Simulate(st, row.start_step, eval.first_job, *policy, &record);
  const std::string title =
      fmt::format("{} on {} from {}: {}, deadline {}", name, row.trace,
                  When(row.start_step, eval.step_seconds / 3600.0),
                  Money::FromDollars(r.cost_usd).ToString(), r.deadline_met ? "met" : "missed");
  return WriteFileAtomically(opts.plot, spot::RenderRunSvg(title, eval.first_job, record));
}

// `frugal --policy up simulate` puts simulate's policy where the global option (the team GPU
// policy file) goes, and would silently simulate every policy instead.
Result<void> CheckPolicyPlacement(const GlobalOptions& global) {
  if (global.policy.empty()) return {};
  const auto& names = spot::PolicyNames();
  for (const std::string& name : Split(global.policy, ',')) {
    if (name != "all" && std::find(names.begin(), names.end(), name) == names.end()) return {};
  }
  return Fail(ErrorCode::kBadInput,
              "--policy " + global.policy +
                  " before 'simulate' names the team GPU policy file; the spot policies to "
                  "simulate go after it: frugal simulate --policy " +
                  global.policy + " ...");
}

Result<void> RunSimulate(const SimulateOptions& opts, const GlobalOptions& global,
                         Streams& streams) {
  FRUGAL_TRY(CheckPolicyPlacement(global));
  const spot::EvaluationConfig config = FRUGAL_TRY(MakeConfig(opts));
  const std::vector<spot::Trace> traces = FRUGAL_TRY(LoadTraces(opts));
  const spot::Evaluation eval = FRUGAL_TRY(spot::Evaluate(traces, config));
  const bool per_run = opts.per_run || eval.rows.size() == 1;
  if (!opts.plot.empty()) FRUGAL_TRY(WritePlot(opts, traces, config, eval));
  if (global.json) {
    WriteJson(streams, spot::EvaluationJson(eval, config, per_run));
    return {};
  }
  if (per_run) PrintPerRun(eval, config, streams.out);
  PrintSummary(eval, config, streams.out);
  if (!opts.plot.empty()) streams.out << "\nPlot written to " << opts.plot << '\n';
  return {};
}

}  // namespace

void RegisterSimulate(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate", "Replay spot traces: deadline policies against the offline optimum");
  cmd->add_option("--trace", opts->traces,
                  "Trace files (.json spot-traces format, .csv) or synthetic families "
                  "poisson:UP:DOWN[:DAYS], bathtub:UP:DOWN[:DAYS], lognormal:UP:DOWN[:DAYS]")
      ->required();
  cmd->add_option("--policy", opts->policy, "od, greedy, up, frugal, a comma list, or all");
  cmd->add_option("--compute", opts->compute, "Work the job needs, e.g. 48h")->required();
  cmd->add_option("--deadline", opts->deadline, "Deadline from the start, e.g. 60h")->required();
  cmd->add_option("--changeover", opts->changeover, "Launch + setup + restore, e.g. 12m")
      ->required();
  cmd->add_option("--checkpoint-cost", opts->checkpoint_cost, "Time to write a checkpoint");
  cmd->add_option("--checkpoint-every", opts->checkpoint_every,
                  "Work between checkpoints on spot, or auto (Young's rule)");
  cmd->add_option("--notice", opts->notice, "Warning before a preemption, e.g. 120s");
  auto* ratio = cmd->add_option("--price-ratio", opts->price_ratio, "On-demand ÷ spot price");
  auto* prices =
      cmd->add_option("--prices", opts->prices, "CSV of spot_price,on_demand_price per tick ($/h)");
  ratio->excludes(prices);
  cmd->add_option("--on-demand-rate", opts->on_demand_rate,
                  "On-demand $/h per instance when no price series is given");
  cmd->add_option("--tick", opts->tick, "Tick length of CSV traces numbered by tick");
  cmd->add_option("--trace-format", opts->trace_format,
                  "What 1 means in a JSON trace's data: auto (default), launchable "
                  "(spot-traces counts) or unavailable (SkyNomad flags)");
  cmd->add_option("--starts", opts->starts, "Runs (start times spread over the traces)")
      ->check(CLI::Range(1, 1000000));
  cmd->add_option("--seed", opts->seed, "Seed for start times and synthetic traces")
      ->check(WholeNumber(0, std::numeric_limits<int64_t>::max()));
  cmd->add_option("--gang", opts->gang, "Instances that must all be available")
      ->check(CLI::Range(1, 4096));
  cmd->add_flag("--optimum", opts->optimum, "Solve the offline optimum and report cost ratios");
  cmd->add_flag("--per-run", opts->per_run, "Print every run");
  cmd->add_option("--plot", opts->plot, "Write an SVG of the first run");
  cmd->add_option("--plot-policy", opts->plot_policy, "Policy drawn by --plot (default frugal)");
  cmd->callback([opts, &global, &action] {
    action = [opts, &global](Streams& s) -> Result<void> { return RunSimulate(*opts, global, s); };
  });
}

}  // namespace frugal::cli

// frugal plan JOB.yaml: every offer × GPU count × knobs for a job, ranked by expected cost or
// time with spot risk and the deadline priced in.

#include <fmt/format.h>

#include <algorithm>

#include "commands.h"
#include "frugal/app/plan.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/paths.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/plan/knob_search.h"
#include "frugal/plan/plan_json.h"
#include "frugal/plan/planner.h"
#include "frugal/serving/inference_spec.h"
#include "inference_command.h"
#include "policy_gate.h"
#include "run_support.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;
using plan::Option;
using plan::RunKind;

struct PlanOptions {
  std::string job;
  std::string deadline;
  std::string budget;
  std::string objective = "cost";
  std::string memory_headroom;
  size_t top = 10;
  std::optional<std::string> override_reason;
};

std::string DeadlineCell(const plan::Plan& p, const Option& o) {
  if (!p.deadline_hours) return "-";
  if (!o.meets_deadline) return "no";
  return o.deadline_miss_probability >= 0.005
             ? fmt::format("yes ({:.0f}% risk)", 100 * o.deadline_miss_probability)
             : "yes";
}

/// Data cost and time are shown when the spec says where its data is or how big it is.
bool ShowsData(const plan::Plan& p) {
  return p.data.Priced() || p.data.gb || p.data.preprocess_hours > 0;
}

/// Peak / usable GiB per GPU; "?" for a peak nothing gives; "tight" inside the headroom.
std::string MemoryCell(const Option& o) {
  if (o.offer->gpu.empty()) return "-";
  if (!o.peak_known) return fmt::format("?/{:.1f}", o.capacity_gib);
  return fmt::format("{:.1f}/{:.1f}{}", o.peak_gib, o.capacity_gib,
                     o.inside_headroom ? " tight" : "");
}

void PrintOptions(const plan::Plan& p, std::ostream& out) {
  std::vector<Table::Column> columns = {{"#", Align::kRight},
                                        {"OFFER"},
                                        {"RUN"},
                                        {"GPUS"},
                                        {"KNOBS"},
                                        {"MEM GiB", Align::kRight},
                                        {"WALL", Align::kRight},
                                        {"GPU-H", Align::kRight}};
  const bool data = ShowsData(p);
  if (data) {
    columns.push_back({"DATA COST", Align::kRight});
    columns.push_back({"DATA TIME", Align::kRight});
  }
  columns.push_back({"COST", Align::kRight});
  columns.push_back({"DEADLINE"});
  Table t(columns);
  for (size_t i = 0; i < p.options.size(); ++i) {
    const Option& o = p.options[i];
    const std::string mem = MemoryCell(o);
    const std::string knobs =
        o.measured ? "as measured" : plan::DescribeKnobs(o.knobs, o.knobs, plan::Describe::kAll);
    std::vector<std::string> row = {
        std::to_string(i + 1),
        o.offer->Id(),
        app::RunLabel(o),
        o.offer->gpu.empty() ? "cpu" : fmt::format("{} x{}", o.offer->gpu, o.gpus),
        knobs,
        mem,
        FormatDuration(FromHours(o.wall_hours)),
        o.offer->gpu.empty() ? std::string("-") : fmt::format("{:.1f}", o.gpu_hours)};
    if (data) {
      const std::string cost = o.data.cost == Money() ? "$0.00" : o.data.cost.ToString();
      row.push_back(o.data.route == plan::DataRoute::kCopy ? cost + " (copy)" : cost);
      row.push_back(FormatDuration(FromHours(o.data.Hours())));
    }
    row.push_back(o.expected_cost.ToString() + (o.estimated_price ? " (est.)" : ""));
    row.push_back(DeadlineCell(p, o));
    t.AddRow(row);
  }
  t.Render(out);
  const bool gpus = std::any_of(p.options.begin(), p.options.end(),
                                [](const Option& o) { return !o.offer->gpu.empty(); });
  if (gpus) {
    out << fmt::format(
        "MEM GiB: peak / usable per GPU (the nameplate less the driver's reservation and ECC); "
        "{:.0f}% of usable is kept free as headroom, 'tight' marks a peak inside it\n",
        100 * p.memory_headroom);
  }
}

void PrintDataSource(const plan::Plan& p, std::ostream& out) {
  const plan::DataSource& d = p.data;
  if (!ShowsData(p)) return;
  std::string line = "Data: ";
  line += d.gb ? fmt::format("{:g} GB read per run", *d.gb) : std::string("size not given");
  if (d.Priced()) {
    line +=
        fmt::format(" from {}{}", d.from_cache ? "the preprocessed cache in " : "", d.from.Label());
  }
  if (d.runs > 1) {
    line += fmt::format("; {} runs (a copy near the compute is kept {})", d.runs,
                        FormatDuration(FromHours(d.keep_hours)));
  }
  if (d.preprocess_hours > 0) {
    line += fmt::format("; preprocessing {} every run (no cache)",
                        FormatDuration(FromHours(d.preprocess_hours)));
  }
  out << line << "; data cost and time are in COST and WALL\n";
}

/// What an option's spot figure rests on: the price (an outlier's planned price), the
/// preemption rate and how obtainable capacity is.
std::string SpotBasis(const Option& o) {
  const catalog::Offer& offer = *o.offer;
  std::string price =
      fmt::format("priced at {}/h", offer.PlannedRate().per_hour.Scaled(o.instances).ToString());
  if (const auto& check = offer.spot_outlier) {
    price += fmt::format(
        " (listed {}/h is {:.2f}x the median {}/h of {} {} spot offers: an outlier, planned at "
        "their lower quartile)",
        offer.price.per_hour.Scaled(o.instances).ToString(),
        offer.price.per_hour.dollars() / check->median.dollars(),
        check->median.Scaled(o.instances).ToString(), check->peers,
        check->same_instance_type ? offer.instance_type
                                  : fmt::format("{} x{}", offer.gpu, offer.gpu_count));
  }
  const catalog::SpotRisk& risk = offer.spot_risk;
  return fmt::format(
      "      {}; {:.2f} preemptions/h; capacity there {:.0f}% of the time, {} "
      "mean wait when it is not ({} expected at the start)",
      price, offer.preemptions_per_hour * o.instances, 100 * risk.available_share,
      FormatDuration(FromHours(risk.mean_outage_hours)),
      FormatDuration(FromHours(o.capacity_wait_hours)));
}

void PrintSpotDetails(const plan::Plan& p, std::ostream& out) {
  std::vector<std::string> bases;
  for (const Option& o : p.options) {
    if (o.kind != RunKind::kSpot && o.kind != RunKind::kFallback) continue;
    const std::string& basis = o.offer->spot_risk.basis();
    if (!basis.empty() && std::find(bases.begin(), bases.end(), basis) == bases.end())
      bases.push_back(basis);
  }
  for (const std::string& b : bases) out << "Spot risk from " << b << "\n";
  for (const Option& o : p.options) {
    if (o.kind != RunKind::kSpot && o.kind != RunKind::kFallback) continue;
    const plan::SpotRun& sp = o.spot;
    out << fmt::format(
        "  {} {}: {}; {:.2f} preemptions expected, {} lost work, {} restarts, {} checkpoints, "
        "{} waiting for capacity (unbilled): time x{:.2f}",
        o.offer->Id(), app::RunLabel(o),
        sp.strategy == plan::CheckpointStrategy::kOnNotice ? "checkpoint on notice"
        : sp.strategy == plan::CheckpointStrategy::kFromScratch
            ? std::string("no checkpoints: restarts from scratch")
            : fmt::format("checkpoint every {}", FormatDuration(FromHours(sp.interval_hours))),
        sp.expected_preemptions, FormatDuration(FromHours(sp.lost_work_hours)),
        FormatDuration(FromHours(sp.restart_hours)), FormatDuration(FromHours(sp.checkpoint_hours)),
        FormatDuration(FromHours(sp.capacity_wait_hours)), sp.Inflation(o.work_hours));
    if (o.kind == RunKind::kFallback) {
      const plan::FallbackRun& fb = o.fallback;
      const std::string then =
          fmt::format("then {} on demand", FormatDuration(FromHours(fb.on_demand_hours)));
      out << (fb.planned_switch
                  ? fmt::format("; moves to {} at about {} as planned, {}", o.fallback_offer->Id(),
                                FormatDuration(FromHours(fb.switch_at_hours)), then)
                  : fmt::format("; falls back to {} with probability {:.0f}% (at preemption {:g}, "
                                "about {}, {})",
                                o.fallback_offer->Id(), 100 * fb.switch_probability,
                                fb.absorbed_preemptions + 1,
                                FormatDuration(FromHours(fb.switch_at_hours)), then));
    }
    out << "\n" << SpotBasis(o) << "\n";
  }
}

void PrintPolicy(const plan::Plan& p, const app::PolicyVerdict& pp, std::ostream& out) {
  if (!pp.policy || pp.entries.empty()) return;
  if (pp.override_reason) {
    out << fmt::format("\nOptions above that violate policy {} (overridden: {}):\n",
                       pp.policy->policy.Label(), *pp.override_reason);
  } else {
    out << fmt::format(
        "\nRefused by policy {} ({} option{} in all; those ranked above the "
        "last option shown):\n",
        pp.policy->policy.Label(), p.refused_count, p.refused_count == 1 ? "" : "s");
  }
  for (const app::PolicyVerdict::Entry& e : pp.entries) {
    out << fmt::format("  #{} {} {} {}: {}\n", e.rank, e.option->offer->Id(),
                       app::RunLabel(*e.option), e.option->expected_cost.ToString(),
                       fmt::join(policy::RuleNames(e.violations), ", "));
    for (const policy::Violation& v : e.violations) {
      out << fmt::format("      {}: {} (fix: {})\n", v.rule, v.message, v.fix);
    }
  }
}

void PrintPlan(const plan::JobSpec& spec, const plan::Plan& p, const app::PolicyVerdict& pp,
               Streams& s) {
  const std::string work =
      spec.modelled || p.tokens > 0
          ? fmt::format("{:.4g} tokens", p.tokens)
          : fmt::format("{} model, from measured profiles", estimate::ModelFamilyName(spec.family));
  s.out << fmt::format("Job {}: {}; deadline {}; budget {}\n", spec.name, work,
                       p.deadline_hours ? FormatDuration(FromHours(*p.deadline_hours)) : "none",
                       p.budget ? p.budget->ToString() : "none");
  for (const plan::MeasuredProfile& m : spec.measured) {
    if (!m.source.empty()) s.out << "Measured: " << m.source << "\n";
  }
  for (const plan::RecordedUse& u : spec.recorded_measurements) {
    if (u.used) continue;
    const plan::RecordedMeasurement& m = u.measurement;
    s.out << fmt::format(
        "Not used: {} measured {} on {}: {}\n",
        m.run_id.empty() ? fmt::format("profile {}", m.profile_id) : "run " + m.run_id,
        m.recorded_at, m.device, u.note);
  }
  if (const plan::FaultTolerance& ft = spec.fault_tolerance; !ft.drill.empty()) {
    s.out << fmt::format(
        "Fault tolerance from drill '{}' ({}): checkpoint write {}, restart {} (boot included), "
        "checkpoint on notice: {}{}\n",
        ft.drill, ft.drill_measured_at.empty() ? "undated" : ft.drill_measured_at,
        FormatDuration(FromHours(ft.checkpoint_write_hours)),
        FormatDuration(FromHours(ft.restart_hours)), ft.checkpoint_on_notice ? "yes" : "no",
        ft.not_spot_ready ? "; not spot-ready: " + *ft.not_spot_ready : "");
  }
  s.out << "Checkpoints: " << plan::CheckpointAssumption(spec.fault_tolerance) << "\n";
  if (!p.prices_as_of.empty()) {
    const std::optional<int> age = plan::DaysSince(p.prices_as_of);
    s.out << fmt::format("Prices as of {}{}\n", p.prices_as_of,
                         age ? fmt::format(" ({} days old)", *age) : std::string());
  }
  PrintDataSource(p, s.out);
  if (p.options.empty()) {
    s.out << "No option meets the constraints.\n";
  } else {
    PrintOptions(p, s.out);
  }
  PrintSpotDetails(p, s.out);
  PrintPolicy(p, pp, s.out);
  if (!p.excluded.empty()) {
    s.out << "\nWhy the others lost:\n";
    for (const auto& e : p.excluded) {
      s.out << fmt::format("  {} [{} option{}]\n", e.reason, e.offers, e.offers == 1 ? "" : "s");
    }
  }
  if (!p.advice.empty()) {
    s.out << "\nAdvice:\n";
    for (const auto& a : p.advice) s.out << "  " << a << "\n";
  }
}

/// The catalog, ledger and policy `frugal plan` plans with: the flags' (app/plan.h).
app::PlanContext ContextFor(const GlobalOptions& global, catalog::Catalog& c) {
  app::PlanContext ctx;
  ctx.catalog = &c;
  // A spec's `catalog:` files join the catalog already loaded: the offer table is not read
  // again, and its rows move into the spec's catalog (nothing plans on `c` after it).
  ctx.catalog_with = [&c](const std::vector<fs::path>& files) {
    return std::move(c).WithCustomFiles(files);
  };
  ctx.ledger = app::LedgerAt(global.db);
  ctx.policy_flag = global.policy;
  return ctx;
}

Result<void> RunPlan(const PlanOptions& o, const GlobalOptions& global, Streams& s) {
  app::PlanInput in;
  in.spec_path = o.job;
  in.deadline = o.deadline;
  in.budget = o.budget;
  in.objective = o.objective;
  in.memory_headroom = o.memory_headroom;
  in.top = o.top;
  in.override_reason = o.override_reason;
  FRUGAL_TRY(app::CheckOverrideReason(in.override_reason));
  catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const app::PlanResult r = FRUGAL_TRY(app::Plan(in, ContextFor(global, c)));
  for (const std::string& w : r.warnings) s.err << "frugal: warning: " << w << "\n";
  if (r.refusal) {
    if (!global.json) s.err << r.refusal->lead << "\n";
    ShowRefusal(r.refusal->enforcement, *std::get<app::JobPlan>(r.planned).policy.policy, global,
                s);
    return tl::unexpected(r.refusal->error);
  }
  if (global.json) {
    WriteJson(s, r.document);
  } else if (const auto* job = std::get_if<app::JobPlan>(&r.planned)) {
    PrintPlan(job->spec, job->plan, job->policy, s);
  } else {
    const auto& deployment = std::get<app::DeploymentPlan>(r.planned);
    PrintServingPlan(deployment.spec, deployment.plan, s);
  }
  return {};
}

}  // namespace

void RegisterPlan(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<PlanOptions>();
  CLI::App* cmd =
      app.add_subcommand("plan",
                         "Rank every offer, GPU count and knob setting for a job spec, or the "
                         "serving options for an inference spec");
  cmd->add_option("job", o->job, "Job spec (YAML, apiVersion frugal/v1; see docs/job-spec.md)")
      ->required();
  cmd->add_option("--deadline", o->deadline,
                  "Finish within this long (overrides the spec): 36h, 1.5h");
  cmd->add_option("--budget", o->budget, "Spend at most this many dollars (overrides the spec)");
  cmd->add_option("--objective", o->objective, "cost or time")
      ->check(CLI::IsMember({"cost", "time"}))
      ->capture_default_str();
  cmd->add_option("--memory-headroom", o->memory_headroom,
                  "Share of usable GPU memory to keep free (overrides the spec's "
                  "training.memory_headroom; default 0.1)");
  cmd->add_option("--top", o->top, "Show the best N options")
      ->check(WholeNumber(1, 1'000'000))
      ->capture_default_str();
  AddOverrideOption(cmd, o->override_reason);
  cmd->callback([&, o] { action = [&global, o](Streams& s) { return RunPlan(*o, global, s); }; });
}

}  // namespace frugal::cli

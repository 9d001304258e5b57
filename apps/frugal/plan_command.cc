// frugal plan JOB.yaml: every offer × GPU count × knobs for a job, ranked by expected cost or
// time with spot risk and the deadline priced in.

#include <fmt/format.h>

#include <algorithm>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/paths.h"
#include "frugal/core/table.h"
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
  size_t top = 10;
  std::optional<std::string> override_reason;
};

/// The policy's verdict on a plan: the options it refused (taken out of the ranking) or, with
/// --override, the shown options that violate it.
struct PlanPolicy {
  const policy::ConfiguredPolicy* policy = nullptr;  ///< null: no policy configured
  policy::Subject job;
  std::optional<std::string> override_reason;
  std::optional<ledger::OverrideId> override_id;
  /// Shown (override) or refused options with their violations: (rank, option, violations).
  struct Entry {
    size_t rank = 0;
    const Option* option = nullptr;
    std::vector<policy::Violation> violations;
  };
  std::vector<Entry> entries;

  [[nodiscard]] std::vector<policy::Violation> Check(const Option& o) const {
    return policy::Check(policy->policy, policy::ForOption(job, o));
  }
};

Result<plan::PlanRequest> RequestFrom(const PlanOptions& o) {
  plan::PlanRequest r;
  if (!o.deadline.empty()) {
    const Duration d = FRUGAL_TRY(
        ParseDuration(o.deadline).map_error([](Error e) { return e.Wrap("--deadline"); }));
    if (d.count() <= 0) return Fail(ErrorCode::kBadInput, "--deadline: must be positive");
    r.deadline_hours = ToHours(d);
  }
  if (!o.budget.empty()) {
    r.budget =
        FRUGAL_TRY(Money::Parse(o.budget).map_error([](Error e) { return e.Wrap("--budget"); }));
    if (*r.budget <= Money()) return Fail(ErrorCode::kBadInput, "--budget: must be positive");
  }
  r.objective = o.objective == "time" ? plan::Objective::kTime : plan::Objective::kCost;
  r.top = o.top;
  return r;
}

nlohmann::json PolicyJson(const plan::Plan& p, const PlanPolicy& pp) {
  if (pp.policy == nullptr) return nullptr;
  nlohmann::json entries = nlohmann::json::array();
  for (const PlanPolicy::Entry& e : pp.entries) {
    entries.push_back({{"rank", e.rank},
                       {"offer", e.option->offer->Id()},
                       {"run", plan::RunKindName(e.option->kind)},
                       {"gpu", e.option->offer->gpu},
                       {"gpu_count", e.option->gpus},
                       {"expected_cost_usd", e.option->expected_cost.dollars()},
                       {"violations", ViolationsJson(e.violations)}});
  }
  nlohmann::json doc = {{"name", pp.policy->policy.name},
                        {"version", pp.policy->policy.version},
                        {"file", pp.policy->location.path.string()},
                        {"refused_count", p.refused_count}};
  if (pp.override_reason) {
    doc["override"] = {{"reason", *pp.override_reason},
                       {"id", pp.override_id ? nlohmann::json(*pp.override_id) : nlohmann::json()}};
    doc["violating_options"] = entries;
  } else {
    doc["override"] = nullptr;
    doc["refused"] = entries;
  }
  return doc;
}

void WritePlanJson(const plan::JobSpec& spec, const plan::Plan& p, const PlanOptions& opts,
                   const PlanPolicy& pp, Streams& s) {
  nlohmann::json doc = plan::PlanJson(spec, p, opts.objective);
  doc["policy"] = PolicyJson(p, pp);
  WriteJson(s, std::move(doc));
}

std::string RunLabel(const Option& o) {
  switch (o.kind) {
    case RunKind::kPlain:
      return std::string(catalog::TierName(o.offer->tier));
    case RunKind::kSpot:
      return "spot";
    case RunKind::kFallback:
      return "spot+fallback";
    case RunKind::kReserved:
      return std::string(catalog::TierName(o.offer->tier)) + " (est.)";
  }
  return "?";
}

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
    const std::string mem =
        o.offer->gpu.empty() ? "-" : fmt::format("{:.1f}/{:g}", o.peak_gib, o.capacity_gib);
    const std::string knobs =
        o.measured ? "as measured" : plan::DescribeKnobs(o.knobs, o.knobs, plan::Describe::kAll);
    std::vector<std::string> row = {
        std::to_string(i + 1),
        o.offer->Id(),
        RunLabel(o),
        o.offer->gpu.empty() ? "cpu" : fmt::format("{} x{}", o.offer->gpu, o.gpus),
        knobs,
        mem,
        FormatDuration(FromHours(o.wall_hours)),
        fmt::format("{:.1f}", o.gpu_hours)};
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

void PrintSpotDetails(const plan::Plan& p, std::ostream& out) {
  for (const Option& o : p.options) {
    if (o.kind != RunKind::kSpot && o.kind != RunKind::kFallback) continue;
    const plan::SpotRun& sp = o.spot;
    out << fmt::format(
        "  {} {}: {}; {:.2f} preemptions expected, {} lost work, {} restarts, {} checkpoints: "
        "time x{:.2f}",
        o.offer->Id(), RunLabel(o),
        sp.strategy == plan::CheckpointStrategy::kOnNotice
            ? "checkpoint on notice"
            : fmt::format("checkpoint every {}", FormatDuration(FromHours(sp.interval_hours))),
        sp.expected_preemptions, FormatDuration(FromHours(sp.lost_work_hours)),
        FormatDuration(FromHours(sp.restart_hours)), FormatDuration(FromHours(sp.checkpoint_hours)),
        sp.Inflation(o.work_hours));
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
    out << "\n";
  }
}

void PrintPolicy(const plan::Plan& p, const PlanPolicy& pp, std::ostream& out) {
  if (pp.policy == nullptr || pp.entries.empty()) return;
  if (pp.override_reason) {
    out << fmt::format("\nOptions above that violate policy {} (overridden: {}):\n",
                       pp.policy->policy.Label(), *pp.override_reason);
  } else {
    out << fmt::format(
        "\nRefused by policy {} ({} option{} in all; those ranked above the "
        "last option shown):\n",
        pp.policy->policy.Label(), p.refused_count, p.refused_count == 1 ? "" : "s");
  }
  for (const PlanPolicy::Entry& e : pp.entries) {
    out << fmt::format("  #{} {} {} {}: {}\n", e.rank, e.option->offer->Id(), RunLabel(*e.option),
                       e.option->expected_cost.ToString(),
                       fmt::join(policy::RuleNames(e.violations), ", "));
    for (const policy::Violation& v : e.violations) {
      out << fmt::format("      {}: {} (fix: {})\n", v.rule, v.message, v.fix);
    }
  }
}

void PrintPlan(const plan::JobSpec& spec, const plan::Plan& p, const PlanPolicy& pp, Streams& s) {
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

/// Screens the plan's options through the policy (refused ones leave the ranking) unless
/// --override asks to see them all.
Result<std::optional<policy::ConfiguredPolicy>> SetUpPolicy(const PlanOptions& o,
                                                            const GlobalOptions& global,
                                                            const catalog::Catalog& c,
                                                            PlanPolicy& pp) {
  std::optional<policy::ConfiguredPolicy> configured = FRUGAL_TRY(PolicyInEffect(global, c));
  if (!configured) return configured;
  pp.job = FRUGAL_TRY(policy::LoadSubject(o.job, c));
  pp.override_reason = o.override_reason;
  return configured;
}

/// After planning: refuses when every ranked option is refused (exit 3) unless overridden;
/// with --override, finds the shown options that violate and records the override.
Result<void> ApplyPolicy(const plan::JobSpec& spec, const plan::Plan& p,
                         const GlobalOptions& global, PlanPolicy& pp, Streams& s) {
  Enforcement e{"plan", "job " + spec.name, pp.job.tags, {}, pp.override_reason};
  if (!pp.override_reason) {
    for (const plan::RefusedOption& r : p.refused) {
      pp.entries.push_back({r.rank, &r.option, pp.Check(r.option)});
    }
    if (!p.options.empty() || pp.entries.empty()) return {};
    // Nothing the policy allows: refuse with the violations of the best option.
    s.err << fmt::format("every one of the {} ranked options violates policy {}; the best:\n",
                         p.refused_count, pp.policy->policy.Label());
    e.subject_label =
        fmt::format("job {} on {} {}", spec.name, pp.entries.front().option->offer->Id(),
                    RunLabel(*pp.entries.front().option));
    e.violations = pp.entries.front().violations;
    return RefuseUnlessOverridden(e, *pp.policy, global, s);
  }
  for (size_t i = 0; i < p.options.size(); ++i) {
    std::vector<policy::Violation> found = pp.Check(p.options[i]);
    if (found.empty()) continue;
    for (const policy::Violation& v : found) {
      const bool seen = std::any_of(e.violations.begin(), e.violations.end(), [&](const auto& x) {
        return x.rule == v.rule && x.message == v.message;
      });
      if (!seen) e.violations.push_back(v);
    }
    pp.entries.push_back({i + 1, &p.options[i], std::move(found)});
  }
  if (e.violations.empty()) return {};
  FRUGAL_TRY(RefuseUnlessOverridden(e, *pp.policy, global, s));
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kCreateIfMissing));
  pp.override_id = FRUGAL_TRY(RecordOverride(*db, e, *pp.policy));
  return {};
}

Result<void> RunPlan(const PlanOptions& o, const GlobalOptions& global, Streams& s) {
  FRUGAL_TRY(CheckOverrideReason(o.override_reason));
  // An inference spec is planned as a deployment; anything else (errors included) as a job.
  if (const auto inference = serving::IsInferenceSpec(o.job); inference && *inference) {
    // A job's deadline, budget and objective mean nothing to a serving plan: refused rather
    // than ignored, so a cap the user asked for is never silently dropped.
    for (const auto& [flag, given] :
         {std::pair<const char*, bool>{"--deadline", !o.deadline.empty()},
          {"--budget", !o.budget.empty()},
          {"--objective", o.objective != "cost"}}) {
      if (given) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{}: an inference spec is planned by its workload, latency and "
                                "lifetime; only --top applies (a job's {} does not)",
                                flag, std::string_view(flag).substr(2)));
      }
    }
    return RunInferencePlan(o.job, o.top, global, s);
  }
  plan::PlanRequest request = FRUGAL_TRY(RequestFrom(o));
  const std::vector<std::string> gpu_names = FRUGAL_TRY(LoadGpuNames());
  plan::JobSpec spec = FRUGAL_TRY(plan::LoadJobSpec(o.job, gpu_names, UserDataDir() / "drills"));
  catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global, spec.catalog_files));
  // What earlier runs of this job measured: the newest of each GPU model, without `measured:`.
  AddRecordedMeasurements(spec, c, global);
  PlanPolicy pp;
  const std::optional<policy::ConfiguredPolicy> configured =
      FRUGAL_TRY(SetUpPolicy(o, global, c, pp));
  if (configured) {
    pp.policy = &*configured;
    if (!o.override_reason) {
      request.refuse = [&pp](const Option& option) { return !pp.Check(option).empty(); };
    }
  }
  const plan::Plan p = FRUGAL_TRY(plan::MakePlan(spec, c, request));
  if (configured) FRUGAL_TRY(ApplyPolicy(spec, p, global, pp, s));
  if (global.json) {
    WritePlanJson(spec, p, o, pp, s);
  } else {
    PrintPlan(spec, p, pp, s);
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
  cmd->add_option("--top", o->top, "Show the best N options")
      ->check(WholeNumber(1, 1'000'000))
      ->capture_default_str();
  AddOverrideOption(cmd, o->override_reason);
  cmd->callback([&, o] { action = [&global, o](Streams& s) { return RunPlan(*o, global, s); }; });
}

}  // namespace frugal::cli

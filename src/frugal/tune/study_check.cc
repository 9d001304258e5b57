#include "frugal/tune/study_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "frugal/tune/budget_gate.h"

namespace frugal::tune {

namespace {

// Spot capacity is reclaimed with 30 s to 2 min notice; work since the last checkpoint is lost,
// so the interval bounds the loss per preemption. Beyond 30 minutes the expected loss on spot
// eats the discount on typical preemption rates.
constexpr Duration kSpotMaxCheckpointInterval = std::chrono::minutes(30);

CheckItem Item(std::string name, bool ok, std::string detail, std::string fix) {
  return CheckItem{std::move(name), ok, std::move(detail), ok ? "" : std::move(fix)};
}

// Programs that run a script named by their first argument: `python3 train.py`.
bool IsInterpreter(const std::string& program) {
  const std::string name = std::filesystem::path(program).filename().string();
  for (std::string_view family : {"python", "pypy"}) {
    // python, python3, python3.11, pypy3
    if (name.starts_with(family) &&
        name.find_first_not_of("0123456789.", family.size()) == std::string::npos) {
      return true;
    }
  }
  constexpr std::string_view kShells[] = {"bash", "sh",   "zsh",     "dash",  "ksh",
                                          "perl", "ruby", "Rscript", "julia", "node"};
  return std::find(std::begin(kShells), std::end(kShells), name) != std::end(kShells);
}

}  // namespace

// The trial's script, when the command runs one through an interpreter, must be there: the
// program itself is found on the PATH, but a missing script fails every trial the study pays
// to start. Trials run in the spec's directory, so a relative script is looked up there.
std::optional<CheckItem> TrialScriptItem(const StudySpec& spec) {
  if (spec.command.size() < 2 || !IsInterpreter(spec.command[0])) return std::nullopt;
  const std::string& script = spec.command[1];
  if (script.empty() || script.front() == '-') return std::nullopt;  // an option: `python3 -m`
  const std::filesystem::path path = std::filesystem::path(script).is_absolute()
                                         ? std::filesystem::path(script)
                                         : spec.base_dir / script;
  std::error_code error;
  const bool found = std::filesystem::is_regular_file(path, error);
  const std::string dir = std::filesystem::absolute(spec.base_dir, error).string();
  return Item("trial_script", found,
              found ? fmt::format("{} runs {}", spec.command[0], path.string())
                    : fmt::format("{} would run '{}', which is not in {} (trials run there)",
                                  spec.command[0], script, dir),
              fmt::format("put {} in {}, or point 'trial.command' at the script (relative to "
                          "the spec's directory, or absolute)",
                          std::filesystem::path(script).filename().string(), dir));
}

namespace {

/// The hard stops on money: the dollar budget and the GPU-hour cap.
void AddSpendCapItems(const Gates& g, std::vector<CheckItem>& items) {
  items.push_back(Item("budget_usd", g.budget.has_value(),
                       g.budget ? "hard stop at " + g.budget->ToString() : "no dollar budget",
                       "add 'gates: {budget_usd: 100}' so the study cannot spend past a cap"));
  items.push_back(Item("max_gpu_hours", g.max_gpu_hours.has_value(),
                       g.max_gpu_hours ? fmt::format("hard stop at {} GPU-hours", *g.max_gpu_hours)
                                       : "no GPU-hour cap",
                       "add 'gates: {max_gpu_hours: 20}' (a cap that holds when prices change)"));
}

/// What the trials' capacity costs, and on spot how often they checkpoint (else which tier).
void AddCapacityItems(const Resources& r, std::vector<CheckItem>& items) {
  const bool priced = r.price_per_gpu_hour.has_value() || !r.offer.empty();
  items.push_back(Item("price", priced,
                       r.price_per_gpu_hour
                           ? "priced at " + r.price_per_gpu_hour->ToString() + " per GPU"
                       : !r.offer.empty() ? "priced by offer '" + r.offer + "'"
                                          : "no price: dollars cannot be counted",
                       "add 'resources: {price_per_hour: 2.50}' or name an offer"));
  if (r.tier == CapacityTier::kSpot) {
    const bool ok = r.checkpoint_max && *r.checkpoint_max <= kSpotMaxCheckpointInterval;
    items.push_back(
        Item("checkpoint_interval", ok,
             r.checkpoint_max ? "checkpoints every " + FormatDuration(*r.checkpoint_min) + "–" +
                                    FormatDuration(*r.checkpoint_max) + " on spot"
                              : "spot capacity without a checkpoint interval",
             "set 'resources: {checkpoint_interval: {min: 15m, max: 30m}}': spot is reclaimed with "
             "30 s–2 min notice and everything since the last checkpoint is lost"));
  } else {
    items.push_back(
        Item("tier", r.tier.has_value(),
             r.tier ? "tier " + std::string(CapacityTierName(*r.tier)) : "pricing tier not stated",
             "state 'resources: {tier: spot}' (with 15–30 min checkpoints) or on_demand"));
  }
}

/// A searched schedule length (`epochs` when the fidelity is `epoch`) with rungs at absolute
/// fidelity compares trials at different points of their learning-rate schedules: the first
/// such parameter, if any.
std::optional<CheckItem> ScheduleLengthItem(const StudySpec& spec) {
  const std::string& unit = spec.fidelity.name;
  for (const Param& p : spec.space.params()) {
    const bool length = p.name == unit || p.name == unit + "s" || p.name == "num_" + unit + "s";
    const bool searched = p.kind == ParamKind::kFloat || p.kind == ParamKind::kInt ||
                          (p.kind == ParamKind::kCategorical && p.choices.size() > 1);
    if (!length || !searched) continue;
    const bool scaled = spec.fidelity.scale_by == p.name;
    return Item("schedule_length", scaled,
                scaled ? fmt::format("rungs are shares of each trial's '{}'", p.name)
                       : fmt::format("'{}' is searched, but rungs compare trials at the same {}",
                                     p.name, unit),
                fmt::format("set 'fidelity: {{scale_by: {}}}' so a trial with a short schedule is "
                            "compared at the same share of it as a long one",
                            p.name));
  }
  return std::nullopt;
}

/// Whether weak trials stop early, and not so early that winners are dropped.
void AddPruningItems(const StudySpec& spec, std::vector<CheckItem>& items) {
  const bool prunes = spec.scheduler != SchedulerKind::kNone;
  items.push_back(Item("prune_rule", prunes,
                       prunes ? fmt::format("{} prunes with η={}", SchedulerName(spec.scheduler),
                                            spec.fidelity.reduction_factor)
                              : "every trial runs to full fidelity",
                       std::string("set 'scheduler: asha' so weak configurations stop early") +
                           (spec.sampler == SamplerKind::kGp
                                ? ""
                                : " (if the metric comes only at the end, 'sampler: gp' picks "
                                  "each full trial more carefully)")));
  const bool warm = spec.fidelity.grace > spec.fidelity.min;
  items.push_back(
      Item("warm_up", !prunes || warm,
           fmt::format("first prune after {} {}(s)", spec.fidelity.grace, spec.fidelity.name),
           fmt::format("set 'fidelity: {{grace: 3}}': early ranks correlate weakly with final "
                       "ranks, and pruning after {} {} drops winners",
                       spec.fidelity.min, spec.fidelity.name)));
  if (!prunes) return;
  if (auto length = ScheduleLengthItem(spec)) items.push_back(std::move(*length));
}

/// The stops short of the budget: a trial cap, a trial's wall-clock cap, a plateau.
void AddStopItems(const Gates& g, std::vector<CheckItem>& items) {
  items.push_back(
      Item("max_trials", g.max_trials.has_value(),
           g.max_trials ? fmt::format("at most {} trials", *g.max_trials) : "no trial cap",
           "add 'gates: {max_trials: 40}'"));
  items.push_back(Item("trial_max_wall", g.trial_max_wall.has_value(),
                       g.trial_max_wall ? "a trial stops after " + FormatDuration(*g.trial_max_wall)
                                        : "a hung trial can run forever",
                       "add 'gates: {trial_max_wall: 2h}'"));
  items.push_back(Item(
      "plateau", g.plateau.has_value(),
      g.plateau ? fmt::format("stop when the best improves by less than {}", g.plateau->epsilon)
                : "no plateau stop: the study spends its whole budget",
      "add 'gates: {plateau: {epsilon: 0.001, trials: 15}}'"));
}

}  // namespace

std::vector<CheckItem> CheckStudy(const StudySpec& spec) {
  std::vector<CheckItem> items;
  if (auto script = TrialScriptItem(spec)) items.push_back(std::move(*script));
  AddSpendCapItems(spec.gates, items);
  AddCapacityItems(spec.resources, items);
  AddPruningItems(spec, items);
  AddStopItems(spec.gates, items);
  items.push_back(Item("watch", !spec.objective.watch.empty(),
                       spec.objective.watch.empty()
                           ? "only '" + spec.objective.metric + "' is watched"
                           : fmt::format("watching {}", fmt::join(spec.objective.watch, ", ")),
                       "add 'objective: {watch: [train_loss]}' to see divergence and overfitting"));
  items.push_back(UtilizationItem(spec));
  return items;
}

CheckItem UtilizationItem(const StudySpec& spec) {
  if (spec.replay) {
    return Item("utilization", true,
                "a replay spends no GPU time: nothing to watch (a real study's trials are "
                "sampled by their supervisors)",
                "");
  }
  // Every trial runs under the run supervisor, which samples what the seed's checklist asks
  // to watch; the item says which figures to read and where.
  return Item("utilization", !spec.command.empty(),
              "each trial's supervisor samples GPU utilization and idle time (NVML), CPU cores "
              "in use and I/O wait; watch them with `frugal runs show RUN` per trial, and "
              "`frugal audit` flags a GPU busy under half the time (right-size down)",
              "give 'trial.command' so trials run under the supervisor");
}

std::optional<double> CheapestFullRunSeconds(const StudySpec& spec, const ReplayTable* table) {
  if (table == nullptr) {
    if (!spec.fidelity.cost_per_unit) return std::nullopt;
    return ToSeconds(*spec.fidelity.cost_per_unit) * spec.fidelity.max;
  }
  std::optional<double> cheapest;
  for (const ReplayConfig& row : table->configs()) {
    if (row.fails || row.curve.empty()) continue;
    const double full = spec.fidelity.LengthOf(row.params).value_or(spec.fidelity.max);
    const CurvePoint* p = ReplayTable::FinalPoint(row, full);
    if (p == nullptr) continue;
    if (!cheapest || p->cost_seconds < *cheapest) cheapest = p->cost_seconds;
  }
  return cheapest;
}

std::optional<CheckItem> FullRunItem(const StudySpec& spec, const ReplayTable* table) {
  const auto cheapest = CheapestFullRunSeconds(spec, table);
  const BudgetGate gate(spec.gates, spec.resources.price_per_gpu_hour, spec.resources.gpus);
  if (!cheapest || *cheapest <= 0 || !std::isfinite(gate.cap_gpu_seconds())) return std::nullopt;
  const double runs = gate.cap_gpu_seconds() / gate.GpuSeconds(*cheapest);
  const std::string cost =
      spec.resources.price_per_gpu_hour
          ? gate.SpendFor(*cheapest).ToString()
          : fmt::format("{:.2f} GPU-hours", gate.GpuSeconds(*cheapest) / 3600.0);
  const bool ok = runs >= 1.0;
  return Item(
      "full_run", ok,
      ok ? fmt::format(
               "the caps pay for {:.1f} full runs of the cheapest configuration ({} each){}", runs,
               cost,
               runs < kMinRunsForPruning && !spec.scheduler_stated
                   ? "; too few for pruning to pay, so the default runs every trial to "
                     "full fidelity"
                   : "")
         : fmt::format("the caps are below the cheapest full run ({}): no trial can complete, and "
                       "the study can report only a partial result",
                       cost),
      fmt::format("raise the budget to at least {} (one full run)", cost));
}

}  // namespace frugal::tune

// Tuner quality on tabulated curves: for each method, over many seeds at an equal dollar
// budget, the best final metric found; and, with a budget large enough for random search to
// finish, the spend at which the best completed value first came within ε of the table's best.
// The hindsight optimum is the cost of training only the table's best configuration.
//
// With --grid, it instead searches the tuner's own settings (scheduler × grace × η × sampler)
// for cost to ε on both tables at once, on the real curves and on an oracle copy where every
// point carries its configuration's final value (perfect early ranks), to show how far each
// setting is from the ≤ 0.10× target and why.
//
// The third table, charlm_cpython, is held out: trained after the defaults were fixed and
// never part of the grid, so it shows whether the defaults hold up on data they were not
// chosen on.
//
// Usage: tune_eval [--data DIR] [--seeds N] [--first-seed S] [--python PATH] [--no-optuna]
//                  [--only METHOD] [--table TABLE] [--grid] [--explain [--oracle]]

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/tune/replay_runner.h"
#include "frugal/tune/study.h"

namespace {

using namespace frugal;
using namespace frugal::tune;

struct Dataset {
  std::string name;
  std::string dir;
  std::string metric;
  bool maximize;
  double max_fidelity;
  double epsilon;
  std::string space;     ///< the study's search space (YAML), empty for an opaque table
  std::string scale_by;  ///< the parameter that sets each configuration's schedule length
};

struct Method {
  std::string name;
  std::string yaml;  // scheduler, sampler overrides
  double grace;      ///< 0 = unstated: the spec's default (3, with early rungs under asha)
  double eta = 3;
  int workers = 1;
  bool absolute_rungs = false;  ///< ignore the dataset's scale_by (rungs at the same epoch)
  bool early = false;           ///< early rungs below a stated grace (fidelity.early_rungs)
};

struct Outcome {
  std::optional<double> best;
  std::optional<double> reach_cost;  // dollars
  /// At the moment ε was reached (--explain): trials started, and spend by the deepest rung
  /// each trial had reached (index 0 = no rung yet).
  int started = 0;
  std::vector<double> spend_by_rung;
  std::vector<int> near_best_started;  ///< when each within-ε configuration was started (1 = first)
};

constexpr double kPrice = 2.5;     // per GPU-hour, as in the example
constexpr int kRandomSeeds = 200;  // seeds for the random-search baseline

std::string SpecYaml(const Dataset& d, const Method& m, int seed, double budget) {
  return fmt::format(
      "name: eval\nreplay: {{dir: '{}'}}\nobjective: {{metric: {}, direction: {}}}\n"
      "fidelity: {{name: epoch, min: 1, max: {}{}, reduction_factor: {}{}{}}}\n"
      "seed: {}\nresources: {{price_per_hour: {}, workers: {}}}\ngates: {{budget_usd: "
      "{:.2f}}}\n{}{}",
      d.dir, d.metric, d.maximize ? "maximize" : "minimize", d.max_fidelity,
      m.grace > 0 ? fmt::format(", grace: {}", m.grace) : "", m.eta,
      d.scale_by.empty() || m.absolute_rungs ? "" : ", scale_by: " + d.scale_by,
      m.early ? ", early_rungs: auto" : "", seed, kPrice, m.workers, budget, m.yaml, d.space);
}

Outcome RunFrugal(const Dataset& d, const ReplayTable& table, const Method& m, int seed,
                  double budget, double target) {
  SpecText text{SpecYaml(d, m, seed, budget), "eval", d.dir};
  auto spec = ParseStudySpec(text.yaml, text.source, d.dir);
  if (!spec) {
    std::cerr << spec.error().message << "\n";
    std::exit(2);
  }
  ReplayRunner runner(table, d.max_fidelity);
  MemoryStudyStore store;
  auto study = Study::Create(text, *spec, runner, store, &table);
  if (!study) std::exit(2);
  RunOptions options;
  options.save_every_ms = 1'000'000;
  Outcome snapshot;
  options.on_event = [&](const Study& s) {
    if (snapshot.started > 0 || s.improvements().empty() ||
        std::abs(s.improvements().back().value - target) > d.epsilon)
      return;
    snapshot.started = static_cast<int>(s.trials().size());
    for (const Trial& t : s.trials()) {
      const auto row = table.Find(t.source_id);
      const auto* p =
          row ? ReplayTable::FinalPoint(table.configs()[*row], d.max_fidelity) : nullptr;
      if (p != nullptr && std::abs(p->value - target) <= d.epsilon)
        snapshot.near_best_started.push_back(static_cast<int>(t.id) + 1);
    }
    for (const Trial& t : s.trials()) {
      const size_t at = static_cast<size_t>(t.RungReached() + 1);
      if (snapshot.spend_by_rung.size() <= at) snapshot.spend_by_rung.resize(at + 1, 0.0);
      snapshot.spend_by_rung[at] += t.spend.dollars();
    }
  };
  auto summary = (*study)->Run(options);
  if (!summary) {
    std::cerr << summary.error().message << "\n";
    std::exit(1);
  }
  Outcome o = snapshot;
  o.best = summary->best_value;
  for (const auto& imp : (*study)->improvements()) {
    if (std::abs(imp.value - target) <= d.epsilon) {
      o.reach_cost = imp.spend.dollars();
      break;
    }
  }
  return o;
}

std::vector<std::pair<std::string, Outcome>> RunOptuna(const std::string& python, const Dataset& d,
                                                       int seeds, double budget, double target,
                                                       double grace) {
  const std::string command =
      fmt::format("{} {} '{}' {} {} {} {} {} {} {} {} {} 2>/dev/null", python, FRUGAL_OPTUNA_SCRIPT,
                  d.dir, d.metric, d.maximize ? "maximize" : "minimize", d.max_fidelity, kPrice,
                  budget, seeds, target, d.epsilon, grace);
  std::vector<std::pair<std::string, Outcome>> out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  char line[4096];
  while (std::fgets(line, sizeof line, pipe) != nullptr) {
    auto doc = nlohmann::json::parse(line, nullptr, false);
    if (doc.is_discarded()) continue;
    Outcome o;
    if (!doc["best"].is_null()) o.best = doc["best"].get<double>();
    if (!doc["reach_cost"].is_null()) o.reach_cost = doc["reach_cost"].get<double>();
    out.emplace_back(doc["method"].get<std::string>(), o);
  }
  ::pclose(pipe);
  return out;
}

struct Row {
  std::vector<double> best;   // at the equal budget (missing = no completed trial)
  std::vector<double> reach;  // cost to ε, from the large-budget runs
  int runs_small = 0;
  int runs_large = 0;
};

double Mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? NAN : s / static_cast<double>(v.size());
}
double Median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

std::string Dollars(double x) {
  return x >= 10 ? fmt::format("${:.0f}", x) : fmt::format("${:.3f}", x);
}

void Print(const Dataset& d, double budget, double large, const ReplayTable::Hindsight& h,
           const std::vector<std::pair<std::string, Row>>& rows) {
  std::cout << fmt::format("\n### {} ({} {}, ε = {}, ${}/GPU-h)\n\n", d.name, d.metric,
                           d.maximize ? "max" : "min", d.epsilon, kPrice);
  std::cout << fmt::format(
      "Table best {:.4f}; hindsight optimum (train only it): ${:.2f}. Equal budget "
      "${:.2f}; cost-to-ε runs get ${:.2f}.\n\n",
      h.best_value, h.cost_seconds * kPrice / 3600, budget, large);
  std::cout << "| method | best at equal budget (mean) | mean regret | runs within ε | median cost "
               "to ε | vs random |\n";
  std::cout << "|---|---|---|---|---|---|\n";
  double random_cost = NAN;
  for (const auto& [name, r] : rows) {
    if (name == "random") random_cost = Median(r.reach);
  }
  for (const auto& [name, r] : rows) {
    const double mean = Mean(r.best);
    const double regret = d.maximize ? h.best_value - mean : mean - h.best_value;
    const double cost = Median(r.reach);
    std::cout << fmt::format(
        "| {} | {:.4f} ({}/{} runs) | {:.4f} | {}/{} | {} | {} |\n", name, mean, r.best.size(),
        r.runs_small, regret, r.reach.size(), r.runs_large, std::isnan(cost) ? "-" : Dollars(cost),
        std::isnan(cost) || std::isnan(random_cost) ? "-"
                                                    : fmt::format("{:.2f}×", cost / random_cost));
  }
}

/// The median cost to ε over seeds (large budget) and the mean best at the equal budget.
struct Cell {
  double reach = NAN;
  double best = NAN;
  int reached = 0;
};

Cell Evaluate(const Dataset& d, const ReplayTable& table, const Method& m, int seeds, double budget,
              double large, double target) {
  std::vector<double> reach, best;
  for (int seed = 1; seed <= seeds; ++seed) {
    if (const Outcome big = RunFrugal(d, table, m, seed, large, target); big.reach_cost)
      reach.push_back(*big.reach_cost);
    if (const Outcome small = RunFrugal(d, table, m, seed, budget, target); small.best)
      best.push_back(*small.best);
  }
  return Cell{Median(reach), Mean(best), static_cast<int>(reach.size())};
}

struct Loaded {
  Dataset d;
  ReplayTable table;
  ReplayTable oracle;
  ReplayTable::Hindsight hindsight;
  double target;
  double budget;  ///< the equal budget: 20× the hindsight optimum
  double large;   ///< for cost to ε: enough to train the whole table
};

/// Whole dollars, or cents for a table whose runs cost less than $10 (CPU-second trials).
double RoundBudget(double dollars) {
  return dollars >= 10 ? std::round(dollars) : std::round(dollars * 100) / 100;
}

std::optional<Loaded> LoadDataset(const Dataset& d) {
  auto table = ReplayTable::Load(ReplaySource{d.dir, "config_id", "elapsed_s"}, d.metric, "epoch");
  if (!table) {
    std::cerr << "skipping " << d.name << ": " << table.error().message << "\n";
    return std::nullopt;
  }
  const auto h =
      *table->Best(d.maximize ? Direction::kMaximize : Direction::kMinimize, d.max_fidelity);
  double total_seconds = 0;
  for (const auto& c : table->configs()) {
    if (const auto* p = ReplayTable::FinalPoint(c, d.max_fidelity))
      total_seconds += p->cost_seconds;
  }
  ReplayTable oracle = table->WithFinalValues(d.max_fidelity);
  const double large = total_seconds * kPrice / 3600;
  return Loaded{d,
                std::move(*table),
                std::move(oracle),
                h,
                h.best_value,
                RoundBudget(20 * h.cost_seconds * kPrice / 3600),
                large >= 10 ? std::ceil(large) : std::ceil(large * 100) / 100};
}

/// Where each seed's cost to ε went: trials started by then, and the share of the spend on
/// trials by the deepest rung they had reached (r0 = the lowest rung).
void Explain(const Loaded& l, const std::vector<Method>& methods, const std::string& only,
             int first_seed, int seeds, bool oracle) {
  std::cout << fmt::format("\n### {}: where the cost to ε goes\n", l.d.name);
  for (const Method& m : methods) {
    if (m.name == "random" || m.name.find(only) == std::string::npos) continue;
    std::cout << fmt::format(
        "\n{}\n\n| seed | cost to ε | trials started | within-ε configurations "
        "started as trial # | spend share by deepest rung reached (none, r0, "
        "r1, ...) |\n|---|---|---|---|---|\n",
        m.name);
    std::vector<double> costs, started, first;
    for (int seed = first_seed; seed < first_seed + seeds; ++seed) {
      const Outcome o = RunFrugal(l.d, oracle ? l.oracle : l.table, m, seed, l.large, l.target);
      if (!o.near_best_started.empty()) first.push_back(o.near_best_started.front());
      if (!o.reach_cost) {
        std::cout << fmt::format("| {} | - | - | - | - |\n", seed);
        continue;
      }
      costs.push_back(*o.reach_cost);
      started.push_back(o.started);
      std::string shares;
      for (double x : o.spend_by_rung)
        shares += fmt::format("{}{:.2f}", shares.empty() ? "" : " ", x / *o.reach_cost);
      std::cout << fmt::format("| {} | {} | {} | {} | {} |\n", seed, Dollars(*o.reach_cost),
                               o.started, fmt::join(o.near_best_started, ", "), shares);
    }
    std::cout << fmt::format(
        "\nmedian cost {}, median trials started {}, median first within-ε trial # {}\n",
        Dollars(Median(costs)), Median(started), Median(first));
  }
}

void RunGrid(const std::vector<Loaded>& tables, int seeds) {
  std::vector<Method> grid;
  for (const char* scheduler : {"asha", "asha-stop", "hyperband"}) {
    for (double grace : {1.0, 2.0, 3.0, 5.0}) {
      for (double eta : {2.0, 3.0, 4.0}) {
        for (const char* sampler : {"random", "tpe"}) {
          grid.push_back({fmt::format("{} grace {:g} η {:g} {}", scheduler, grace, eta, sampler),
                          fmt::format("scheduler: {}\nsampler: {}\n", scheduler, sampler), grace,
                          eta});
          // Early rungs below the grace period, judged by their rank agreement.
          if (std::string_view(scheduler) != "hyperband" && grace / eta >= 1) {
            grid.push_back({.name = grid.back().name + " + early rungs",
                            .yaml = grid.back().yaml,
                            .grace = grace,
                            .eta = eta,
                            .early = true});
          }
        }
      }
    }
  }
  const Method random{"random", "scheduler: none\nsampler: random\n", 1};
  std::vector<double> random_cost;
  for (const Loaded& t : tables) {
    random_cost.push_back(
        Evaluate(t.d, t.table, random, std::max(seeds, kRandomSeeds), t.budget, t.large, t.target)
            .reach);
  }
  struct Scored {
    std::string name;
    std::vector<Cell> real, oracle;
    double worst = 0;
  };
  std::vector<Scored> results;
  for (const Method& m : grid) {
    Scored r{m.name, {}, {}, 0};
    for (size_t i = 0; i < tables.size(); ++i) {
      const Loaded& t = tables[i];
      r.real.push_back(Evaluate(t.d, t.table, m, seeds, t.budget, t.large, t.target));
      r.oracle.push_back(Evaluate(t.d, t.oracle, m, seeds, t.budget, t.large, t.target));
      // A setting that misses ε in some seeds is charged the whole table for them.
      const double ratio =
          r.real.back().reached < seeds ? INFINITY : r.real.back().reach / random_cost[i];
      r.worst = std::max(r.worst, ratio);
    }
    results.push_back(std::move(r));
  }
  std::sort(results.begin(), results.end(),
            [](const Scored& a, const Scored& b) { return a.worst < b.worst; });
  std::cout << fmt::format("\n### Settings grid ({} seeds; cost to ε ÷ random search's)\n\n",
                           seeds);
  std::cout << "| setting |";
  for (const Loaded& t : tables) std::cout << " " << t.d.name << " | oracle ranks |";
  std::cout << " worst | best at equal budget |\n|---|";
  for (size_t i = 0; i < tables.size(); ++i) std::cout << "---|---|";
  std::cout << "---|---|\n";
  for (const Scored& r : results) {
    std::cout << "| " << r.name << " |";
    std::string bests;
    for (size_t i = 0; i < tables.size(); ++i) {
      auto ratio = [&](const Cell& c) {
        return fmt::format("{:.2f}×{}", c.reach / random_cost[i],
                           c.reached < seeds ? fmt::format(" ({}/{})", c.reached, seeds) : "");
      };
      std::cout << " " << ratio(r.real[i]) << " | " << ratio(r.oracle[i]) << " |";
      bests += fmt::format("{}{:.4f}", i ? " / " : "", r.real[i].best);
    }
    std::cout << fmt::format(
        " {} | {} |\n", std::isinf(r.worst) ? "misses" : fmt::format("{:.2f}×", r.worst), bests);
  }
}
}  // namespace

int main(int argc, char** argv) {
  std::string data = std::string(FRUGAL_SHARED_DATA_DIR) + "/hpo_curves";
  std::string held_out = std::string(FRUGAL_DATA_DIR) + "/hpo_curves";
  std::string python = "/usr/bin/python3";
  int seeds = 20;
  bool optuna = true;
  bool grid = false;
  std::string only;          // run only the methods whose name contains this (and random search)
  std::string table_filter;  // run only the tables whose name contains this
  bool explain = false;      // where the cost to ε goes, per seed, for the methods --only selects
  bool oracle = false;       // --explain on the oracle copy (every point carries its final value)
  int first_seed = 1;        // the grid chose settings on seeds 1-20; report on fresh ones
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--data" && i + 1 < argc)
      data = argv[++i];
    else if (arg == "--seeds" && i + 1 < argc)
      seeds = std::atoi(argv[++i]);
    else if (arg == "--python" && i + 1 < argc)
      python = argv[++i];
    else if (arg == "--no-optuna")
      optuna = false;
    else if (arg == "--grid")
      grid = true;
    else if (arg == "--first-seed" && i + 1 < argc)
      first_seed = std::atoi(argv[++i]);
    else if (arg == "--only" && i + 1 < argc)
      only = argv[++i];
    else if (arg == "--table" && i + 1 < argc)
      table_filter = argv[++i];
    else if (arg == "--explain")
      explain = true;
    else if (arg == "--oracle")
      oracle = true;
  }
  const std::vector<Dataset> datasets = {
      // The search space of the upstream random search, so samplers and models see the
      // hyperparameters (examples/alexnet-imagenet.yaml).
      {"opda_alexnet_imagenet", data + "/opda_alexnet_imagenet", "val_top1", true, 100, 0.01,
       "space:\n"
       "  batch_size: {type: categorical, choices: [128, 256, 512, 1024]}\n"
       "  lr: {type: float, low: 5.0e-3, high: 50, scale: log}\n"
       "  lr_peak_epoch: {type: int, low: 0, high: 80}\n"
       "  momentum: {type: float, low: 0.7, high: 1.0}\n"
       "  weight_decay: {type: float, low: 1.0e-6, high: 1.0e-3, scale: log}\n"
       "  label_smoothing: {type: float, low: 0, high: 0.5}\n"
       "  epochs: {type: int, low: 20, high: 100}\n",
       // Each configuration anneals its learning rate to its own `epochs`: rungs compare
       // configurations at the same share of their schedules (docs/study-spec.md).
       "epochs"},
      // Architectures are opaque choices: no space, rows offered in a seeded shuffled order.
      {"nasbench_nlp_wikitext2", data + "/nasbench_nlp_wikitext2", "val_loss", false, 50, 0.01, "",
       ""},
      // Held out: trained after the defaults were fixed (bench/tune/make_curves.py), never
      // used to choose a setting. Its space is the one the random search sampled.
      {"charlm_cpython (held out)", held_out + "/charlm_cpython", "val_loss", false, 30, 0.01,
       "space:\n"
       "  optimizer: {type: categorical, choices: [adamw, sgd]}\n"
       "  lr: {type: float, low: 1.0e-4, high: 1, scale: log}\n"
       "  momentum: {type: float, low: 0.8, high: 0.99, when: {optimizer: [sgd]}}\n"
       "  weight_decay: {type: float, low: 1.0e-6, high: 1.0e-2, scale: log}\n"
       "  batch_size: {type: categorical, choices: [32, 64, 128, 256]}\n"
       "  width: {type: categorical, choices: [64, 128, 256]}\n"
       "  layers: {type: categorical, choices: [1, 2]}\n"
       "  embed: {type: categorical, choices: [8, 16, 32]}\n"
       "  context: {type: categorical, choices: [4, 8, 16]}\n"
       "  dropout: {type: float, low: 0, high: 0.5}\n"
       "  warmup_epochs: {type: int, low: 0, high: 3}\n",
       ""},
  };
  // Every method states its sampler: the default changed from random to TPE.
  const std::vector<Method> methods = {
      {"random", "scheduler: none\nsampler: random\n", 1},
      {"sha (grace 3)", "scheduler: sha\nsampler: random\n", 3},
      {"hyperband (min 1)", "scheduler: hyperband\nsampler: random\n", 1},
      {"asha (grace 1)", "scheduler: asha\nsampler: random\n", 1},
      {"asha (grace 3)", "scheduler: asha\nsampler: random\n", 3},
      {"asha (grace 5)", "scheduler: asha\nsampler: random\n", 5},
      {"asha (grace 3, η=2)", "scheduler: asha\nsampler: random\n", 3, 2},
      {"asha-stop (grace 3)", "scheduler: asha-stop\nsampler: random\n", 3},
      {"median (grace 3)", "scheduler: median\nsampler: random\n", 3},
      {"asha + tpe (grace 3, no early rungs)", "scheduler: asha\nsampler: tpe\n", 3},
      {"the default: asha + tpe, grace 3 with an early rung at 1",
       "scheduler: asha\nsampler: tpe\n", 0},
      {"no pruning: none + tpe", "scheduler: none\nsampler: tpe\n", 3},
      {"no pruning: none + gp", "scheduler: none\nsampler: gp\n", 3},
      {"asha + gp, grace 3 with an early rung at 1", "scheduler: asha\nsampler: gp\n", 0},
      {"the default, rungs at absolute epochs (no scale_by)", "scheduler: asha\nsampler: tpe\n", 0,
       3, 1, true},
      {"the default, 8 workers", "scheduler: asha\nsampler: tpe\n", 0, 3, 8},
      {"asha + tpe (grace 1)", "scheduler: asha\nsampler: tpe\n", 1},
      {.name = "asha + tpe (grace 5, early rung at 1)",
       .yaml = "scheduler: asha\nsampler: tpe\n",
       .grace = 5,
       .early = true},
      {"asha-stop + tpe (grace 3)", "scheduler: asha-stop\nsampler: tpe\n", 3},
      {"hyperband + tpe (grace 3, BOHB-like)", "scheduler: hyperband\nsampler: tpe\n", 3},
  };
  if (grid) {
    std::vector<Loaded> loaded;
    for (const Dataset& d : datasets) {
      // The grid chooses settings: a held-out table must play no part in it.
      if (d.name.find("held out") != std::string::npos) continue;
      if (auto l = LoadDataset(d)) loaded.push_back(std::move(*l));
    }
    RunGrid(loaded, seeds);
    return 0;
  }
  for (const Dataset& d : datasets) {
    if (d.name.find(table_filter) == std::string::npos) continue;
    const auto loaded = LoadDataset(d);
    if (!loaded) continue;
    const ReplayTable* table = &loaded->table;
    const ReplayTable::Hindsight& h = loaded->hindsight;
    const double budget = loaded->budget;
    const double large = loaded->large;
    if (explain) {
      Explain(*loaded, methods, only, first_seed, seeds, oracle);
      continue;
    }
    std::vector<std::pair<std::string, Row>> rows;
    for (const Method& m : methods) {
      if (!only.empty() && m.name != "random" && m.name.find(only) == std::string::npos) continue;
      Row r;
      // Random search's cost to ε is geometric-like and its median over 20 seeds moves by
      // ±30%: the baseline every ratio divides by gets many more seeds (replays are cheap).
      const int n = m.name == "random" ? std::max(seeds, kRandomSeeds) : seeds;
      for (int seed = first_seed; seed < first_seed + n; ++seed) {
        const Outcome small = RunFrugal(d, *table, m, seed, budget, h.best_value);
        ++r.runs_small;
        if (small.best) r.best.push_back(*small.best);
        const Outcome big = RunFrugal(d, *table, m, seed, large, h.best_value);
        ++r.runs_large;
        if (big.reach_cost) r.reach.push_back(*big.reach_cost);
      }
      rows.emplace_back(m.name, r);
    }
    if (optuna) {
      std::map<std::string, Row> by_name;
      for (const auto& [name, o] : RunOptuna(python, d, seeds, budget, h.best_value, 3)) {
        ++by_name[name + " (grace 3)"].runs_small;
        if (o.best) by_name[name + " (grace 3)"].best.push_back(*o.best);
      }
      for (const auto& [name, o] : RunOptuna(python, d, seeds, large, h.best_value, 3)) {
        ++by_name[name + " (grace 3)"].runs_large;
        if (o.reach_cost) by_name[name + " (grace 3)"].reach.push_back(*o.reach_cost);
      }
      for (auto& [name, r] : by_name) rows.emplace_back(name, r);
    }
    Print(d, budget, large, h, rows);
  }
  return 0;
}

#include "frugal/tune/study_report.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/table.h"
#include "frugal/tune/study_gates.h"

namespace frugal::tune {

namespace {

constexpr size_t kLeaderboardRows = 10;

std::string Value(std::optional<double> v) { return v ? fmt::format("{:.4f}", *v) : "-"; }

nlohmann::json TrialRow(const Trial& t) {
  return {{"trial", t.id},
          {"config_id", t.source_id.empty() ? std::to_string(t.id) : t.source_id},
          {"state", TrialStateName(t.state)},
          {"fidelity", t.last_fidelity},
          {"value", t.last_value ? nlohmann::json(*t.last_value) : nlohmann::json(nullptr)},
          {"spend_usd", t.spend.dollars()},
          {"config", ConfigToJson(t.config)}};
}

nlohmann::json LeaderboardJson(const std::vector<Trial>& trials, Direction direction) {
  nlohmann::json rows = nlohmann::json::array();
  for (const Trial* t : Leaderboard(trials, direction)) {
    if (rows.size() >= kLeaderboardRows) break;
    rows.push_back(TrialRow(*t));
  }
  return rows;
}

/// A replayed row's id, or the sampled configuration itself ("lr=0.0123 optimizer=adam").
std::string ConfigText(const Trial& t) {
  if (!t.source_id.empty()) return t.source_id;
  std::string text;
  const nlohmann::json config = ConfigToJson(t.config);
  for (const auto& [name, value] : config.items()) {
    const std::string v = value.is_number_float() ? fmt::format("{:.3g}", value.get<double>())
                          : value.is_string()     ? value.get<std::string>()
                                                  : value.dump();
    text += fmt::format("{}{}={}", text.empty() ? "" : " ", name, v);
  }
  return text.empty() ? std::to_string(t.id) : text;
}

void PrintLeaderboard(std::ostream& out, const std::vector<Trial>& trials, const StudySpec& spec) {
  Table table({{"rank", Align::kRight},
               {"trial", Align::kRight},
               {"config"},
               {"state"},
               {spec.fidelity.name, Align::kRight},
               {spec.objective.metric, Align::kRight},
               {"spend", Align::kRight}});
  int rank = 0;
  for (const Trial* t : Leaderboard(trials, spec.objective.direction)) {
    if (static_cast<size_t>(rank) >= kLeaderboardRows) break;
    table.AddRow({std::to_string(++rank), std::to_string(t->id), ConfigText(*t),
                  std::string(TrialStateName(t->state)), fmt::format("{:g}", t->last_fidelity),
                  Value(t->last_value), t->spend.ToString()});
  }
  table.Render(out);
}

std::string Counts(const nlohmann::json& by_state) {
  std::string text;
  for (const auto& [state, count] : by_state.items()) {
    if (count.get<int64_t>() == 0) continue;
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count.get<int64_t>(), state);
  }
  return text.empty() ? "none" : text;
}

}  // namespace

std::vector<const Trial*> Leaderboard(const std::vector<Trial>& trials, Direction direction) {
  std::vector<const Trial*> order;
  for (const Trial& t : trials) {
    if (t.last_value) order.push_back(&t);
  }
  const auto key = [&](const Trial* t) {
    const double loss = direction == Direction::kMaximize ? -*t->last_value : *t->last_value;
    const int tier = t->state == TrialState::kCompleted ? 0 : 1;
    // Completed trials compare by value alone; the rest by how far they got, then value.
    return std::make_tuple(tier, tier == 0 ? 0.0 : -t->last_fidelity, loss, t->id);
  };
  std::sort(order.begin(), order.end(),
            [&](const Trial* a, const Trial* b) { return key(a) < key(b); });
  return order;
}

nlohmann::json RunJson(const Study& study, const StudySummary& summary, const ReplayTable* table) {
  nlohmann::json doc = SummaryToJson(summary);
  const StudySpec& spec = study.spec();
  doc["metric"] = spec.objective.metric;
  doc["scheduler"] = SchedulerName(spec.scheduler);
  doc["workers"] = spec.resources.workers;
  doc["leaderboard"] = LeaderboardJson(study.trials(), spec.objective.direction);
  if (table != nullptr) {
    if (auto best = table->Best(spec.objective.direction, spec.fidelity.max)) {
      doc["table_best_value"] = best->best_value;
      doc["table_best_config_id"] = table->configs()[best->index].id;
      doc["table_best_cost_usd"] = study.gate().SpendFor(best->cost_seconds).dollars();
    }
  }
  return doc;
}

void PrintRun(std::ostream& out, const Study& study, const StudySummary& s,
              const ReplayTable* table) {
  const StudySpec& spec = study.spec();
  const nlohmann::json doc = SummaryToJson(s);
  out << fmt::format("study {}: finished ({})\n", s.name, s.stop_reason);
  out << fmt::format("  best {:<12} {}", spec.objective.metric, Value(s.best_value));
  if (s.best_trial) out << fmt::format("  (config {}, trial {})", s.best_config_id, *s.best_trial);
  if (!s.best_value) out << "  (no trial reached full fidelity)";
  out << "\n";
  if (s.best_partial) {
    out << fmt::format("  best partial      {:.4f} at {} {:g} of {:g} (config {}, trial {})\n",
                       s.best_partial->value, spec.fidelity.name, s.best_partial->fidelity,
                       s.best_partial->full_fidelity, s.best_partial->config_id,
                       s.best_partial->trial);
  }
  out << fmt::format("  spend             {}{} · {} GPU-hours · overshoot {}\n", s.spend.ToString(),
                     spec.gates.budget ? " of " + spec.gates.budget->ToString() : "",
                     GpuHoursText(s.gpu_hours), s.overshoot.ToString());
  out << fmt::format("  trials            {} started: {}; {} promotions\n", s.trials_started,
                     Counts(doc["trials"]), s.promotions);
  out << fmt::format("  pruning saved     {} (every started trial at full fidelity: {})\n",
                     s.pruning_saved.ToString(), s.full_fidelity_cost.ToString());
  if (table != nullptr) {
    if (auto best = table->Best(spec.objective.direction, spec.fidelity.max)) {
      out << fmt::format("  table best        {:.4f} (config {}; training only it: {})\n",
                         best->best_value, table->configs()[best->index].id,
                         study.gate().SpendFor(best->cost_seconds).ToString());
    }
  }
  out << "\n";
  PrintLeaderboard(out, study.trials(), spec);
}

namespace {

/// The best objective value any trial reported at rung `k`, and how many reported one.
std::pair<int64_t, std::optional<double>> RungBest(const StudySpec& spec,
                                                   const std::vector<Trial>& trials, size_t k) {
  const bool maximize = spec.objective.direction == Direction::kMaximize;
  int64_t results = 0;
  std::optional<double> best;
  for (const Trial& t : trials) {
    if (k >= t.rung_losses.size() || std::isnan(t.rung_losses[k])) continue;
    ++results;
    const double value = maximize ? -t.rung_losses[k] : t.rung_losses[k];
    if (!best || (maximize ? value > *best : value < *best)) best = value;
  }
  return {results, best};
}

/// Whether rung `rung` prunes, in words: early rungs prune from the scheduler's judgement on
/// (see scheduler.h).
std::string RungPrunes(const RungLadder& ladder, int rung, const nlohmann::json& scheduler) {
  if (rung >= ladder.early) return rung == ladder.top() ? "top" : "yes";
  const int pruning_from = scheduler.value("pruning_from", ladder.early);
  if (rung >= pruning_from) return "yes: early, its ranks agreed with the next rung's";
  if (rung == pruning_from - 1 && scheduler.value("early_rejected", false)) {
    return "no: early, its ranks disagreed with the next rung's";
  }
  return fmt::format("not yet: early, judged after {} trials reach the next rung", kEarlyRungPairs);
}

nlohmann::json RungsJson(const StudySpec& spec, const nlohmann::json& state,
                         const std::vector<Trial>& trials) {
  const RungLadder ladder = spec.Ladder();
  const nlohmann::json& scheduler = state.contains("scheduler") && state["scheduler"].is_object()
                                        ? state["scheduler"]
                                        : nlohmann::json::object();
  nlohmann::json rungs = nlohmann::json::array();
  for (size_t k = 0; k < ladder.fidelities.size(); ++k) {
    const auto [results, best] = RungBest(spec, trials, k);
    const int rung = static_cast<int>(k);
    rungs.push_back({{"rung", k},
                     {"fidelity", ladder.fidelities[k]},
                     {"results", results},
                     {"best", best ? nlohmann::json(*best) : nlohmann::json(nullptr)},
                     {"early", rung < ladder.early},
                     {"prunes", RungPrunes(ladder, rung, scheduler)}});
  }
  return rungs;
}

}  // namespace

nlohmann::json StatusJson(const StudySpec& spec, const nlohmann::json& state,
                          const std::vector<Trial>& trials) {
  nlohmann::json doc = state.value("summary", nlohmann::json::object());
  doc["status"] = state.value("status", "unknown");
  // A replay's spend is the table's cost at a declared price: nothing was paid.
  doc["replay"] = spec.replay.has_value();
  doc["leaderboard"] = LeaderboardJson(trials, spec.objective.direction);
  // Spend per trial, every trial (the cost of each successful one among them).
  nlohmann::json per_trial = nlohmann::json::array();
  for (const Trial& t : trials) per_trial.push_back(TrialRow(t));
  doc["per_trial"] = per_trial;
  // Caps a resume changed, oldest first (study_caps.h).
  doc["cap_changes"] = state.value("cap_changes", nlohmann::json::array());
  doc["rungs"] = RungsJson(spec, state, trials);
  if (!spec.fidelity.scale_by.empty()) doc["rungs_scaled_by"] = spec.fidelity.scale_by;
  doc["gates"] = GatesJson(spec, state, trials);
  // The study ends at the first gate its burn rate reaches (or earlier, when the scheduler
  // runs out of work or a plateau stops it).
  doc["eta_seconds"] = nullptr;
  doc["eta_gate"] = nullptr;
  if (const auto nearest = NearestGate(doc["gates"])) {
    doc["eta_gate"] = nearest->first;
    doc["eta_seconds"] = nearest->second;
  }
  return doc;
}

namespace {

/// The status's summary lines: status, spend, best, partial, trials, cap changes, overshoot, ETA.
void PrintStatusSummary(std::ostream& out, const StudySpec& spec, const nlohmann::json& doc) {
  out << fmt::format("study {}: {}", spec.name, doc["status"].get<std::string>());
  if (!doc.value("stop_reason", std::string()).empty())
    out << " (" << doc["stop_reason"].get<std::string>() << ")";
  out << "\n";
  out << fmt::format(
      "  spend     {}{} · {} GPU-hours{}\n",
      Money::FromDollars(doc.value("spend_usd", 0.0)).ToString(),
      spec.gates.budget ? " of " + spec.gates.budget->ToString() : "",
      GpuHoursText(doc.value("gpu_hours", 0.0)),
      spec.gates.max_gpu_hours ? " of " + GpuHoursText(*spec.gates.max_gpu_hours) : "");
  const nlohmann::json& best = doc.value("best_value", nlohmann::json());
  out << fmt::format(
      "  best      {}\n",
      best.is_number()
          ? fmt::format("{:.4f} at full fidelity (config {})", best.get<double>(),
                        doc.contains("best_config_id") && doc["best_config_id"].is_string()
                            ? doc["best_config_id"].get<std::string>()
                            : "-")
          : std::string("- (no trial reached full fidelity yet)"));
  if (const auto& p = doc.value("best_partial", nlohmann::json()); p.is_object()) {
    out << fmt::format("  partial   {:.4f} at {} {:g} of {:g} (config {}, trial {})\n",
                       p.value("value", 0.0), spec.fidelity.name, p.value("fidelity", 0.0),
                       p.value("full_fidelity", 0.0), p.value("config_id", ""),
                       p.value("trial", int64_t{0}));
  }
  out << fmt::format("  trials    {} started{}: {}\n", doc.value("trials_started", int64_t{0}),
                     spec.gates.max_trials ? fmt::format(" of {}", *spec.gates.max_trials) : "",
                     doc.contains("trials") ? Counts(doc["trials"]) : "none");
  for (const auto& c : doc["cap_changes"]) {
    out << fmt::format("  cap       {} {} \u2192 {} (on a resume, at {} spent)\n",
                       c.value("field", ""), c.value("from", ""), c.value("to", ""),
                       Money::FromDollars(c.value("at_spend_usd", 0.0)).ToString());
  }
  if (doc.value("overshoot_usd", 0.0) > 0) {
    out << fmt::format("  overshoot {} past the budget\n",
                       Money::FromDollars(doc.value("overshoot_usd", 0.0)).ToString());
  }
  if (doc.value("overshoot_gpu_hours", 0.0) > 0) {
    out << fmt::format("  overshoot {} GPU-hours past the GPU-hour cap\n",
                       GpuHoursText(doc.value("overshoot_gpu_hours", 0.0)));
  }
  if (!doc["eta_seconds"].is_null()) {
    out << fmt::format("  eta       {} of study time at the current burn rate ({} first)\n",
                       FormatDuration(FromSeconds(doc["eta_seconds"].get<double>())),
                       doc["eta_gate"].get<std::string>());
  }
}

/// The rung table: each rung's fidelity, results, best and what it pruned.
void PrintRungs(std::ostream& out, const StudySpec& spec, const nlohmann::json& doc) {
  out << "\nrungs";
  if (!spec.fidelity.scale_by.empty()) {
    out << fmt::format(" (a trial with {} = L reports at the {} shown × L ÷ {:g})",
                       spec.fidelity.scale_by, spec.fidelity.name, spec.fidelity.max);
  }
  out << "\n";
  Table rungs({{"rung", Align::kRight},
               {spec.fidelity.name, Align::kRight},
               {"results", Align::kRight},
               {"best", Align::kRight},
               {"prunes", Align::kLeft}});
  for (const auto& r : doc["rungs"]) {
    rungs.AddRow({std::to_string(r["rung"].get<int>()),
                  fmt::format("{:g}", r["fidelity"].get<double>()),
                  std::to_string(r["results"].get<int64_t>()),
                  r["best"].is_null() ? "-" : fmt::format("{:.4f}", r["best"].get<double>()),
                  r["prunes"].get<std::string>()});
  }
  rungs.Render(out);
}

}  // namespace

void PrintStatus(std::ostream& out, const StudySpec& spec, const nlohmann::json& state,
                 const std::vector<Trial>& trials) {
  const nlohmann::json doc = StatusJson(spec, state, trials);
  PrintStatusSummary(out, spec, doc);
  if (!doc["gates"].empty()) {
    out << "\ngates\n";
    PrintGates(out, doc["gates"]);
  }
  PrintRungs(out, spec, doc);
  out << "\nleaderboard\n";
  PrintLeaderboard(out, trials, spec);
}

}  // namespace frugal::tune

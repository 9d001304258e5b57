#include "frugal/tune/study_caps.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <utility>

#include "frugal/core/log.h"
#include "frugal/core/text.h"
#include "frugal/tune/study.h"

namespace frugal::tune {

namespace {

template <typename T, typename F>
nlohmann::json OrNull(const std::optional<T>& v, F to_json) {
  return v ? nlohmann::json(to_json(*v)) : nlohmann::json(nullptr);
}

template <typename T>
std::optional<T> Optional(const nlohmann::json& doc, const char* key) {
  const nlohmann::json& v = doc.at(key);
  return v.is_null() ? std::nullopt : std::optional<T>(v.get<T>());
}

/// A cap as a resume prints it ("4 GPU-h"), to full precision.
std::string CapHoursText(double h) { return fmt::format("{:g} GPU-h", h); }

Result<Money> PositiveMoney(const std::string& text, const std::string& flag) {
  const Money m =
      FRUGAL_TRY(Money::Parse(text).map_error([&flag](const Error& e) { return e.Wrap(flag); }));
  if (m.micros() <= 0) {
    return Fail(ErrorCode::kBadInput, flag + ": '" + text + "' must be positive");
  }
  return m;
}

Result<int64_t> AtLeastOne(const std::string& text, const std::string& flag) {
  const int64_t n =
      FRUGAL_TRY(ParseInt(text).map_error([&flag](const Error& e) { return e.Wrap(flag); }));
  if (n < 1) return Fail(ErrorCode::kBadInput, flag + ": '" + text + "' must be at least 1");
  return n;
}

nlohmann::json PlateauToJson(const PlateauGate& p) {
  return {{"epsilon", p.epsilon},
          {"trials", OrNull(p.trials, [](int64_t n) { return n; })},
          {"spend_micros", OrNull(p.spend, [](Money m) { return m.micros(); })}};
}

}  // namespace

nlohmann::json CapsToJson(const Gates& gates) {
  return {
      {"budget_micros", OrNull(gates.budget, [](Money m) { return m.micros(); })},
      {"max_gpu_hours", OrNull(gates.max_gpu_hours, [](double h) { return h; })},
      {"max_trials", OrNull(gates.max_trials, [](int64_t n) { return n; })},
      {"trial_max_wall_ms", OrNull(gates.trial_max_wall, [](Duration d) { return d.count(); })},
      {"plateau", OrNull(gates.plateau, PlateauToJson)},
  };
}

Result<void> ApplySavedCaps(StudySpec& spec, const nlohmann::json& state) {
  const auto it = state.find("caps");
  if (it == state.end() || it->is_null()) return {};
  try {
    const nlohmann::json& caps = *it;
    Gates& g = spec.gates;
    const auto budget = Optional<int64_t>(caps, "budget_micros");
    g.budget = budget ? std::optional<Money>(Money::FromMicros(*budget)) : std::nullopt;
    g.max_gpu_hours = Optional<double>(caps, "max_gpu_hours");
    g.max_trials = Optional<int64_t>(caps, "max_trials");
    const auto wall = Optional<int64_t>(caps, "trial_max_wall_ms");
    g.trial_max_wall = wall ? std::optional<Duration>(Duration(*wall)) : std::nullopt;
    if (const auto p = caps.find("plateau"); p != caps.end() && p->is_null()) {
      g.plateau.reset();
    } else if (p != caps.end()) {
      PlateauGate plateau;
      plateau.epsilon = p->at("epsilon").get<double>();
      plateau.trials = Optional<int64_t>(*p, "trials");
      const auto spend = Optional<int64_t>(*p, "spend_micros");
      if (spend) plateau.spend = Money::FromMicros(*spend);
      g.plateau = plateau;
    }
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("study state: caps: ") + e.what());
  }
  return {};
}

Result<CapChange> ParseCapFlags(const CapFlags& flags) {
  CapChange change;
  if (!flags.budget.empty()) change.budget = FRUGAL_TRY(PositiveMoney(flags.budget, "--budget"));
  if (!flags.max_gpu_hours.empty()) {
    const double h = FRUGAL_TRY(ParseDouble(flags.max_gpu_hours).map_error([](const Error& e) {
      return e.Wrap("--max-gpu-hours");
    }));
    if (!(h > 0) || !std::isfinite(h)) {
      return Fail(ErrorCode::kBadInput,
                  "--max-gpu-hours: '" + flags.max_gpu_hours + "' must be positive");
    }
    change.max_gpu_hours = h;
  }
  if (!flags.max_trials.empty())
    change.max_trials = FRUGAL_TRY(AtLeastOne(flags.max_trials, "--max-trials"));
  if (!flags.trial_max_wall.empty()) {
    const Duration d = FRUGAL_TRY(ParseDuration(flags.trial_max_wall).map_error([](const Error& e) {
      return e.Wrap("--trial-max-wall");
    }));
    if (d <= Duration(0)) {
      return Fail(ErrorCode::kBadInput,
                  "--trial-max-wall: '" + flags.trial_max_wall + "' must be positive");
    }
    change.trial_max_wall = d;
  }
  if (!flags.plateau_trials.empty())
    change.plateau_trials = FRUGAL_TRY(AtLeastOne(flags.plateau_trials, "--plateau-trials"));
  if (!flags.plateau_spend.empty())
    change.plateau_spend = FRUGAL_TRY(PositiveMoney(flags.plateau_spend, "--plateau-spend"));
  if (!flags.plateau_epsilon.empty()) {
    const double e = FRUGAL_TRY(ParseDouble(flags.plateau_epsilon).map_error([](const Error& err) {
      return err.Wrap("--plateau-epsilon");
    }));
    if (!(e >= 0) || !std::isfinite(e)) {
      return Fail(ErrorCode::kBadInput,
                  "--plateau-epsilon: '" + flags.plateau_epsilon + "' must not be negative");
    }
    change.plateau_epsilon = e;
  }
  return change;
}

namespace {

// A dollar gate needs a price to turn GPU-hours into dollars.
Result<void> RequirePriceForDollarGates(const StudySpec& spec, const CapChange& change) {
  const auto& price = spec.resources.price_per_gpu_hour;
  const bool priced = price && price->per_hour.micros() > 0;
  for (const auto& [given, flag] :
       {std::pair{change.budget.has_value(), "--budget"},
        std::pair{change.plateau_spend.has_value(), "--plateau-spend"}}) {
    if (given && !priced) {
      return Fail(ErrorCode::kBadInput,
                  std::string(flag) + ": study '" + spec.name +
                      "' has no price per GPU-hour, so a dollar gate would never bind");
    }
  }
  return {};
}

// The budget, GPU-hour, trial-count and wall caps the change sets, each an edit when it differs.
void EditCaps(Gates& g, const CapChange& change, std::vector<CapEdit>& edits) {
  if (change.budget && g.budget != change.budget) {
    edits.push_back(
        {"budget_usd", g.budget ? g.budget->ToString() : "none", change.budget->ToString()});
    g.budget = change.budget;
  }
  if (change.max_gpu_hours && g.max_gpu_hours != change.max_gpu_hours) {
    edits.push_back({"max_gpu_hours", g.max_gpu_hours ? CapHoursText(*g.max_gpu_hours) : "none",
                     CapHoursText(*change.max_gpu_hours)});
    g.max_gpu_hours = change.max_gpu_hours;
  }
  if (change.max_trials && g.max_trials != change.max_trials) {
    edits.push_back({"max_trials", g.max_trials ? std::to_string(*g.max_trials) : "none",
                     std::to_string(*change.max_trials)});
    g.max_trials = change.max_trials;
  }
  if (change.trial_max_wall && g.trial_max_wall != change.trial_max_wall) {
    edits.push_back({"trial_max_wall",
                     g.trial_max_wall ? FormatDuration(*g.trial_max_wall) : "none",
                     FormatDuration(*change.trial_max_wall)});
    g.trial_max_wall = change.trial_max_wall;
  }
}

// The plateau gate's criteria the change sets (a gate is made when there was none).
void EditPlateau(Gates& g, const CapChange& change, std::vector<CapEdit>& edits) {
  if (!change.plateau_trials && !change.plateau_spend && !change.plateau_epsilon) return;
  PlateauGate p = g.plateau.value_or(PlateauGate{});
  if (change.plateau_trials && p.trials != change.plateau_trials) {
    edits.push_back({"plateau_trials", p.trials ? std::to_string(*p.trials) : "none",
                     std::to_string(*change.plateau_trials)});
    p.trials = change.plateau_trials;
  }
  if (change.plateau_spend && p.spend != change.plateau_spend) {
    edits.push_back({"plateau_spend_usd", p.spend ? p.spend->ToString() : "none",
                     change.plateau_spend->ToString()});
    p.spend = change.plateau_spend;
  }
  if (change.plateau_epsilon && p.epsilon != *change.plateau_epsilon) {
    edits.push_back({"plateau_epsilon", fmt::format("{:g}", p.epsilon),
                     fmt::format("{:g}", *change.plateau_epsilon)});
    p.epsilon = *change.plateau_epsilon;
  }
  g.plateau = p;
}

}  // namespace

Result<std::vector<CapEdit>> ApplyCapChange(StudySpec& spec, const CapChange& change) {
  FRUGAL_TRY(RequirePriceForDollarGates(spec, change));
  std::vector<CapEdit> edits;
  Gates& g = spec.gates;
  EditCaps(g, change, edits);
  if (change.plateau_epsilon && !g.plateau && !change.plateau_trials && !change.plateau_spend) {
    return Fail(ErrorCode::kBadInput,
                "--plateau-epsilon: study '" + spec.name +
                    "' has no plateau gate; give --plateau-trials or --plateau-spend with it");
  }
  EditPlateau(g, change, edits);
  return edits;
}

bool PlateauLoosened(const std::optional<PlateauGate>& before,
                     const std::optional<PlateauGate>& after) {
  // Either criterion stops the study, so an absent one is the loosest.
  constexpr double kNever = std::numeric_limits<double>::infinity();
  auto trials_of = [](const std::optional<PlateauGate>& p) {
    return p && p->trials ? static_cast<double>(*p->trials) : kNever;
  };
  auto spend_of = [](const std::optional<PlateauGate>& p) {
    return p && p->spend ? p->spend->dollars() : kNever;
  };
  auto epsilon_of = [](const std::optional<PlateauGate>& p) { return p ? p->epsilon : 0.0; };
  return trials_of(after) >= trials_of(before) && spend_of(after) >= spend_of(before) &&
         epsilon_of(after) <= epsilon_of(before) &&
         (trials_of(after) > trials_of(before) || spend_of(after) > spend_of(before) ||
          epsilon_of(after) < epsilon_of(before));
}

void Study::StopTrialsPastANewWall(const Gates& before) {
  const auto& wall = spec_.gates.trial_max_wall;
  if (!wall || (before.trial_max_wall && *before.trial_max_wall <= *wall)) return;
  // A lowered wall binds at once: a trial already past it spends nothing more (one left
  // running checkpoints and stops, one waiting is not resumed).
  for (Trial& t : trials_) {
    if (t.cost_seconds < ToSeconds(*wall)) continue;
    if (t.state == TrialState::kRunning) {
      StopAtCap(t, TrialState::kStoppedAtWall);
    } else if (t.state == TrialState::kPaused) {
      EndTrial(t, TrialState::kStoppedAtWall);
    }
  }
}

void Study::OnPlateauChanged(const Gates& before) {
  // A plateau gate loosened: the study searches on, and stops again once the new gate sees no
  // improvement (checked after every event, as before).
  const bool loosened = PlateauLoosened(before.plateau, spec_.gates.plateau);
  const bool plateaued = stop_reason_ == "plateau";
  // A smaller ε: which earlier gains it counts is not kept, so its clock starts at this resume
  // (unless the study stays stopped at its plateau: then the count it stopped at stands).
  if (before.plateau && spec_.gates.plateau &&
      spec_.gates.plateau->epsilon < before.plateau->epsilon && (!plateaued || loosened)) {
    incumbent_trials_started_ = static_cast<int64_t>(trials_.size());
    incumbent_gpu_seconds_ = gate_.spent_gpu_seconds();
  }
  if (plateaued && loosened) {
    stop_reason_.clear();
    stopping_ = false;
  } else if (plateaued && before.plateau != spec_.gates.plateau) {
    log::Warning(
        "study '{}' stays stopped at its plateau: the new gate is not looser in every way (more "
        "trials or spend, a smaller epsilon, nothing tighter)",
        spec_.name);
  }
}

void Study::OnCapsChanged(const Gates& before, const std::vector<CapEdit>& edits) {
  for (const CapEdit& e : edits) {
    cap_changes_.push_back({{"field", e.field},
                            {"from", e.from},
                            {"to", e.to},
                            {"at_spend_usd", gate_.spend().dollars()}});
  }
  const double cap = gate_.cap_gpu_seconds();
  if (gate_.spent_gpu_seconds() >= cap * (1 - 1e-12)) {
    // Spent already: nothing more may run. Trials a stopped tuner left running checkpoint and
    // stop (those not relaunched yet are not relaunched).
    const std::vector<int64_t> running = running_;
    for (int64_t id : running)
      StopAtCap(trials_[static_cast<size_t>(id)], TrialState::kStoppedAtBudget);
    CloseStarts("budget");
    return;
  }
  StopTrialsPastANewWall(before);
  const BudgetGate old_gate(before, spec_.resources.price_per_gpu_hour, spec_.resources.gpus);
  const bool budget_raised = cap > old_gate.cap_gpu_seconds() * (1 + 1e-12);
  const bool trials_raised = spec_.gates.max_trials &&
                             static_cast<int64_t>(trials_.size()) < *spec_.gates.max_trials &&
                             (!before.max_trials || *before.max_trials < *spec_.gates.max_trials);
  const bool wall_raised =
      before.trial_max_wall &&
      (!spec_.gates.trial_max_wall || *spec_.gates.trial_max_wall > *before.trial_max_wall);
  const bool reopen_budget = stop_reason_ == "budget" && budget_raised;
  if (reopen_budget || (stop_reason_ == "scheduler finished" && trials_raised)) {
    stop_reason_.clear();
  }
  // The endgame stopped exploring to finish leaders within the old budget: a raised budget or
  // trial cap judges that again (study_endgame.cc decides at the next start).
  if (budget_raised || trials_raised) endgame_ = false;
  OnPlateauChanged(before);
  const auto& wall = spec_.gates.trial_max_wall;
  for (Trial& t : trials_) {
    const bool budget_stopped = t.state == TrialState::kStoppedAtBudget && reopen_budget;
    const bool wall_stopped = t.state == TrialState::kStoppedAtWall && wall_raised &&
                              (!wall || t.cost_seconds < ToSeconds(*wall));
    // Checkpointed where it stopped, short of its next rung: it resumes like a promotion.
    // (A bracket whose rung closed without it takes it back as a late member, or not at all.)
    if ((budget_stopped || wall_stopped) && t.target_rung > t.RungReached() &&
        scheduler_->Reopen(t)) {
      t.state = TrialState::kPaused;
    }
  }
}

}  // namespace frugal::tune

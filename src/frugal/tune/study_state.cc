// Creating, saving, restoring and summarizing a study (the loop is in study.cc; caps changed on
// a resume in study_caps.cc).

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "frugal/tune/study.h"
#include "frugal/tune/study_pricing.h"

namespace frugal::tune {

Study::Study(SpecText text, StudySpec spec, TrialRunner& runner, StudyStore& store,
             const ReplayTable* table)
    : text_(std::move(text)),
      spec_(std::move(spec)),
      ladder_(spec_.Ladder()),
      runner_(runner),
      store_(store),
      table_(table),
      gate_(spec_.gates, spec_.resources.price_per_gpu_hour, spec_.resources.gpus),
      estimator_(spec_.fidelity.cost_per_unit
                     ? std::optional<double>(ToSeconds(*spec_.fidelity.cost_per_unit))
                     : std::nullopt) {}

namespace {

// A trial replays toward `fidelity.max` (grace and every rung lie at or below it), so a max
// past every curve in the table leaves each trial paused where its curve ends: the study would
// spend its budget and complete nothing. Under `scale_by` a configuration with a length runs
// its own schedule instead and is measured against that, so only those without one need max.
Result<void> CheckLadderFitsTable(const StudySpec& spec, const ReplayTable& table) {
  const auto& configs = table.configs();
  const bool every_config_scaled =
      !spec.fidelity.scale_by.empty() &&
      std::all_of(configs.begin(), configs.end(), [&](const ReplayConfig& row) {
        return spec.fidelity.LengthOf(row.params).has_value();
      });
  const double longest = table.LongestCurve();
  if (every_config_scaled || spec.fidelity.max <= longest * (1 + 1e-9)) return {};
  const std::string where = spec.fidelity.max_where.empty() ? spec.source : spec.fidelity.max_where;
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}: field 'fidelity.max': {:g} is past the replay table's longest "
                          "curve ({:g} {}s), so no trial could reach full fidelity; set it to "
                          "at most {:g}",
                          where, spec.fidelity.max, longest, spec.fidelity.name, longest));
}

/// Whether replay table row `row` gives space parameter `p` a value it can take: a column for
/// it (unless the parameter is conditional), a number for a numeric one, one of the choices for
/// a categorical one. kBadInput naming the row's file, line and column, and the parameter.
Result<void> CheckTableColumn(const StudySpec& spec, const Param& p, const ReplayConfig& row) {
  if (!row.params.contains(p.name) && p.conditions.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: space parameter '{}' is not a column of the replay table "
                            "(no value in {})",
                            p.where.empty() ? spec.source : p.where, p.name, row.where));
  }
  const auto value = row.params.find(p.name);
  const bool numeric = p.kind == ParamKind::kFloat || p.kind == ParamKind::kInt;
  if (numeric && value != row.params.end() && std::holds_alternative<std::string>(value->second)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: column '{}' (config '{}'): '{}' is not a number, as space "
                            "parameter '{}' at {} needs",
                            row.where, p.name, row.id, std::get<std::string>(value->second), p.name,
                            p.where.empty() ? spec.source : p.where));
  }
  if (!numeric && value != row.params.end() &&
      std::find(p.choices.begin(), p.choices.end(), ValueText(value->second)) == p.choices.end()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: column '{}' (config '{}'): '{}' is not one of the choices "
                            "of space parameter '{}' at {} ({})",
                            row.where, p.name, row.id, ValueText(value->second), p.name,
                            p.where.empty() ? spec.source : p.where,
                            fmt::format("{}", fmt::join(p.choices, ", "))));
  }
  return {};
}

}  // namespace

std::optional<double> Study::MeanFullRunSeconds() const {
  if (table_ != nullptr) {
    double total = 0.0;
    int runs = 0;
    for (const ReplayConfig& row : table_->configs()) {
      const double full = spec_.fidelity.LengthOf(row.params).value_or(spec_.fidelity.max);
      if (const CurvePoint* p = ReplayTable::FinalPoint(row, full); p != nullptr && !row.fails) {
        total += p->cost_seconds;
        ++runs;
      }
    }
    if (runs > 0) return total / runs;
    return std::nullopt;
  }
  if (spec_.fidelity.cost_per_unit)
    return ToSeconds(*spec_.fidelity.cost_per_unit) * spec_.fidelity.max;
  return std::nullopt;
}

void Study::ChooseDefaultScheduler() {
  if (spec_.scheduler_stated || spec_.scheduler != SchedulerKind::kAsha) return;
  const auto full = MeanFullRunSeconds();
  if (!full || *full <= 0 || !std::isfinite(gate_.cap_gpu_seconds())) return;
  const double runs = gate_.cap_gpu_seconds() / (gate_.GpuSeconds(*full));
  if (runs < kMinRunsForPruning) spec_.scheduler = SchedulerKind::kNone;
}

Result<void> Study::Prepare() {
  SchedulerOptions options;
  options.kind = spec_.scheduler;
  options.ladder = ladder_;
  options.median_min_trials = spec_.median_min_trials;
  options.bracket_size = spec_.bracket_size;
  if (table_ != nullptr) options.pool_size = table_->configs().size();
  scheduler_ = MakeScheduler(options);
  sampler_ = MakeSampler(spec_.sampler, spec_.seed);
  runner_.SetTrialMaxWall(spec_.gates.trial_max_wall);
  if (table_ == nullptr) return {};
  FRUGAL_TRY(CheckLadderFitsTable(spec_, *table_));
  table_used_.assign(table_->configs().size(), 0);
  table_order_.resize(table_->configs().size());
  std::iota(table_order_.begin(), table_order_.end(), size_t{0});
  if (spec_.space.empty()) {
    std::mt19937_64 rng(spec_.seed ^ 0x9e3779b97f4a7c15ULL);
    std::shuffle(table_order_.begin(), table_order_.end(), rng);
  }
  const std::string& scale_by = spec_.fidelity.scale_by;
  if (!scale_by.empty() && spec_.space.empty() &&
      std::none_of(table_->configs().begin(), table_->configs().end(),
                   [&](const ReplayConfig& row) { return row.params.contains(scale_by); })) {
    return Fail(ErrorCode::kBadInput, spec_.source + ": fidelity.scale_by '" + scale_by +
                                          "' is not a column of the replay table's configs.csv");
  }
  for (const ReplayConfig& row : table_->configs()) {
    if (!scale_by.empty() && spec_.space.empty() && !spec_.fidelity.LengthOf(row.params)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: column '{}' (config '{}'): not a positive number, as "
                              "fidelity.scale_by in {} needs",
                              row.where, scale_by, row.id, spec_.source));
    }
    std::vector<double> point;
    for (const Param& p : spec_.space.params()) {
      FRUGAL_TRY(CheckTableColumn(spec_, p, row));
      point.push_back(spec_.space.ToUnit(p, row.params));
    }
    table_points_.push_back(std::move(point));
  }
  cost_points_ = spec_.space.empty() ? table_->ColumnPoints() : table_points_;
  return {};
}

Result<std::unique_ptr<Study>> Study::Create(SpecText text, StudySpec spec, TrialRunner& runner,
                                             StudyStore& store, const ReplayTable* table) {
  std::unique_ptr<Study> study(new Study(std::move(text), std::move(spec), runner, store, table));
  study->ChooseDefaultScheduler();
  FRUGAL_TRY(study->Prepare());
  return study;
}

nlohmann::json Study::SaveState() const {
  nlohmann::json trials = nlohmann::json::array();
  for (const Trial& t : trials_) trials.push_back(TrialToJson(t));
  return {
      {"version", kStudyStateVersion},
      {"name", spec_.name},
      {"spec_yaml", text_.yaml},
      {"spec_source", text_.source},
      {"spec_base", text_.base_dir.string()},
      {"pricing", PricingToJson(spec_.resources)},
      {"early_rungs", spec_.fidelity.early_rungs},
      {"scheduler_kind", SchedulerName(spec_.scheduler)},
      {"caps", CapsToJson(spec_.gates)},
      {"cap_changes", cap_changes_},
      {"trials", trials},
      {"running", running_},
      {"scheduler", scheduler_->Save()},
      {"sampler", sampler_->SaveState()},
      {"runner", runner_.Save()},
      {"accounting",
       {{"spent_gpu_seconds", gate_.spent_gpu_seconds()},
        {"estimator_units", estimator_.units()},
        {"estimator_seconds", estimator_.seconds()},
        {"events", events_},
        {"promotions", promotions_},
        {"pauses", pauses_}}},
      {"pace", pace_.ToJson()},
      {"flags",
       {{"stop_reason", stop_reason_},
        {"stopping", stopping_},
        {"incumbent_loss",
         incumbent_loss_ ? nlohmann::json(*incumbent_loss_) : nlohmann::json(nullptr)},
        {"incumbent_trials_started", incumbent_trials_started_},
        {"incumbent_gpu_seconds", incumbent_gpu_seconds_},
        {"endgame", endgame_},
        {"best_so_far", CurveToJson(improvements_)}}},
  };
}

nlohmann::json CurveToJson(const std::vector<BestSoFar>& curve) {
  nlohmann::json points = nlohmann::json::array();
  for (const BestSoFar& p : curve) {
    points.push_back({{"spend_usd", p.spend.dollars()}, {"best_value", p.value}});
  }
  return points;
}

Result<void> Study::Persist(const std::string& status) {
  runner_.RecordTrialStates(trials_);
  nlohmann::json state = SaveState();
  state["status"] = status;
  state["summary"] = SummaryToJson(Summary());
  state["summary"]["status"] = status;
  return store_.Save(spec_.name, state);
}

Result<void> Study::RestoreTrials(const nlohmann::json& trials) {
  for (const auto& j : trials) {
    Trial t = FRUGAL_TRY(TrialFromJson(j));
    if (t.id != static_cast<int64_t>(trials_.size()) ||
        t.rung_losses.size() != ladder_.fidelities.size()) {
      return Fail(ErrorCode::kBadInput, "study state: trial records do not match the spec's rungs");
    }
    if (table_ != nullptr) {
      const auto row = table_->Find(t.source_id);
      if (!row)
        return Fail(ErrorCode::kBadInput,
                    "study state: config '" + t.source_id + "' not in the table");
      table_used_[*row] = 1;
    }
    trials_.push_back(std::move(t));
  }
  return {};
}

void Study::RestoreCounters(const nlohmann::json& state) {
  const auto& acc = state.at("accounting");
  gate_.RestoreSpent(acc.at("spent_gpu_seconds").get<double>());
  estimator_.Restore(acc.at("estimator_units").get<double>(),
                     acc.at("estimator_seconds").get<double>());
  events_ = acc.at("events").get<int64_t>();
  promotions_ = acc.at("promotions").get<int64_t>();
  pauses_ = acc.at("pauses").get<int64_t>();
  // States saved before the pace was kept have none: the resumed study learns it anew.
  if (state.contains("pace")) pace_.Restore(state.at("pace"), trials_.size());
  const auto& flags = state.at("flags");
  stop_reason_ = flags.at("stop_reason").get<std::string>();
  stopping_ = flags.at("stopping").get<bool>();
  if (!flags.at("incumbent_loss").is_null())
    incumbent_loss_ = flags.at("incumbent_loss").get<double>();
  incumbent_trials_started_ = flags.at("incumbent_trials_started").get<int64_t>();
  incumbent_gpu_seconds_ = flags.at("incumbent_gpu_seconds").get<double>();
  // States saved before the endgame have neither: no endgame yet, and no curve.
  endgame_ = flags.value("endgame", false);
  for (const auto& p : flags.value("best_so_far", nlohmann::json::array())) {
    improvements_.push_back(BestSoFar{Money::FromDollars(p.at("spend_usd").get<double>()),
                                      p.at("best_value").get<double>()});
  }
}

Result<std::unique_ptr<Study>> Study::Restore(const nlohmann::json& state, StudySpec spec,
                                              TrialRunner& runner, StudyStore& store,
                                              const ReplayTable* table) {
  try {
    SpecText text{state.at("spec_yaml").get<std::string>(),
                  state.at("spec_source").get<std::string>(),
                  state.at("spec_base").get<std::string>()};
    // A study resumes on the ladder it started with, whatever today's default: version 1
    // states predate early rungs and have none.
    spec.fidelity.early_rungs = state.value("early_rungs", false);
    // And with the scheduler it started with (the default may have chosen `none` for a small
    // budget; a resume with a new cap does not change it).
    if (const auto kind = ParseSchedulerKind(state.value("scheduler_kind", std::string()))) {
      spec.scheduler = *kind;
      spec.scheduler_stated = true;
    }
    std::unique_ptr<Study> study(new Study(std::move(text), std::move(spec), runner, store, table));
    FRUGAL_TRY(study->Prepare());
    FRUGAL_TRY(study->RestoreTrials(state.at("trials")));
    study->running_ = state.at("running").get<std::vector<int64_t>>();
    study->cap_changes_ = state.value("cap_changes", nlohmann::json::array());
    FRUGAL_TRY(study->scheduler_->Load(state.at("scheduler"), study->trials_));
    FRUGAL_TRY(study->sampler_->LoadState(state.at("sampler").get<std::string>()));
    study->RestoreCounters(state);
    // In-flight segments: a replay restores them exactly; a real runner that lost them
    // relaunches from their checkpoints.
    FRUGAL_TRY(runner.Load(state.at("runner")));
    return study;
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("study state: ") + e.what());
  }
}

Money Study::SpendOf(const Trial& trial, SegmentNow now) const {
  if (now == SegmentNow::kEnded) {
    if (const std::optional<ChargedCost> charged = runner_.Charged(trial.id)) {
      return charged->spent +
             gate_.SpendFor(std::max(0.0, trial.cost_seconds - charged->wall_seconds - 1e-9));
    }
  }
  return gate_.SpendFor(trial.cost_seconds);
}

StudySummary Study::Summary() const {
  StudySummary s;
  s.name = spec_.name;
  s.stop_reason = stop_reason_;
  // One sum of the trials' spends (each rounded once, a supervised one's as its ledger run):
  // the study's spend is what its trials cost and what the ledger holds, to the micro-dollar.
  for (const Trial& t : trials_) s.spend += t.spend;
  s.gpu_hours = gate_.gpu_hours();
  s.overshoot = gate_.Overshoot();
  s.overshoot_gpu_hours = gate_.OvershootGpuHours();
  s.trials_started = static_cast<int64_t>(trials_.size());
  s.promotions = promotions_;
  s.pauses = pauses_;
  s.elapsed_seconds = runner_.Now();
  for (std::string_view name : {"running", "paused", "completed", "pruned", "failed",
                                "stopped_at_budget", "stopped_at_wall"}) {
    s.trials_by_state[std::string(name)] = 0;
  }
  double full_seconds = 0.0;
  std::optional<double> best_loss;
  for (const Trial& t : trials_) {
    ++s.trials_by_state[std::string(TrialStateName(t.state))];
    if (t.state == TrialState::kFailed) {
      full_seconds += t.cost_seconds;  // it would have failed where it did, pruned or not
    } else {
      const auto full = runner_.FullFidelitySeconds(t);
      full_seconds += full ? *full : RateOf(t).value_or(0.0) * RungFidelity(t, ladder_.top());
    }
    if (t.state != TrialState::kCompleted || !t.last_value) continue;
    const double loss = Loss(*t.last_value);
    if (!best_loss || loss < *best_loss) {
      best_loss = loss;
      s.best_value = t.last_value;
      s.best_trial = t.id;
      s.best_config_id = t.source_id.empty() ? std::to_string(t.id) : t.source_id;
      s.best_config = t.config;
    }
  }
  s.full_fidelity_cost = gate_.SpendFor(full_seconds);
  s.pruning_saved =
      s.full_fidelity_cost - gate_.SpendFor(gate_.spent_gpu_seconds() / spec_.resources.gpus);
  const Trial* partial = nullptr;
  for (const Trial& t : trials_) {
    if (t.state == TrialState::kCompleted || !t.last_value) continue;
    if (partial == nullptr || Ahead(t, *partial)) partial = &t;
  }
  if (partial != nullptr) {
    s.best_partial = PartialBest{
        *partial->last_value, partial->last_fidelity, RungFidelity(*partial, ladder_.top()),
        partial->id, partial->source_id.empty() ? std::to_string(partial->id) : partial->source_id};
  }
  s.best_so_far = improvements_;
  s.endgame = endgame_;
  if (s.pruning_saved.micros() < 0) s.pruning_saved = Money{};
  return s;
}

nlohmann::json SummaryToJson(const StudySummary& s) {
  nlohmann::json doc = {
      {"name", s.name},
      {"stop_reason", s.stop_reason},
      {"best_value", s.best_value ? nlohmann::json(*s.best_value) : nlohmann::json(nullptr)},
      {"best_trial", s.best_trial ? nlohmann::json(*s.best_trial) : nlohmann::json(nullptr)},
      {"best_config_id", s.best_trial ? nlohmann::json(s.best_config_id) : nlohmann::json(nullptr)},
      {"best_config", ConfigToJson(s.best_config)},
      {"spend_usd", s.spend.dollars()},
      {"gpu_hours", s.gpu_hours},
      {"overshoot_usd", s.overshoot.dollars()},
      {"overshoot_gpu_hours", s.overshoot_gpu_hours},
      {"trials", s.trials_by_state},
      {"trials_started", s.trials_started},
      {"promotions", s.promotions},
      {"pauses", s.pauses},
      {"full_fidelity_cost_usd", s.full_fidelity_cost.dollars()},
      {"pruning_saved_usd", s.pruning_saved.dollars()},
      {"elapsed_seconds", s.elapsed_seconds},
      {"best_partial", nullptr},
      {"best_so_far", CurveToJson(s.best_so_far)},
      {"endgame", s.endgame},
  };
  if (s.best_partial) {
    doc["best_partial"] = {{"value", s.best_partial->value},
                           {"fidelity", s.best_partial->fidelity},
                           {"full_fidelity", s.best_partial->full_fidelity},
                           {"trial", s.best_partial->trial},
                           {"config_id", s.best_partial->config_id},
                           {"partial", true}};
  }
  if (!s.status.empty()) doc["status"] = s.status;
  return doc;
}

}  // namespace frugal::tune

#include "frugal/tune/ledger_study_store.h"

#include <cmath>
#include <vector>

#include "frugal/ledger/tuner_state.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/tune/study_spec.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

namespace {

/// The ledger's word for a trial state (it has no "stopped at budget": such a trial is
/// checkpointed and could resume, so it is paused).
ledger::TrialState LedgerState(TrialState s) {
  switch (s) {
    case TrialState::kRunning:
      return ledger::TrialState::kRunning;
    case TrialState::kPaused:
      return ledger::TrialState::kPaused;
    case TrialState::kCompleted:
      return ledger::TrialState::kCompleted;
    case TrialState::kPruned:
      return ledger::TrialState::kPruned;
    case TrialState::kFailed:
      return ledger::TrialState::kFailed;
    case TrialState::kStoppedAtBudget:
    case TrialState::kStoppedAtWall:
      return ledger::TrialState::kPaused;
  }
  return ledger::TrialState::kPending;
}

ledger::StudyState LedgerStudyState(const nlohmann::json& state) {
  if (state.value("status", "") != "finished") return ledger::StudyState::kRunning;
  const auto& flags = state.value("flags", nlohmann::json::object());
  return flags.value("stop_reason", "") == "budget" ? ledger::StudyState::kBudgetStopped
                                                    : ledger::StudyState::kFinished;
}

}  // namespace

Result<ledger::StudyId> LedgerStudyStore::StudyFor(const std::string& name,
                                                   const nlohmann::json& state) {
  if (auto it = ids_.find(name); it != ids_.end()) return it->second;
  const auto found = FRUGAL_TRY(ledger_.FindStudy(name));
  if (found) {
    ids_[name] = found->id;
    return found->id;
  }
  const std::string yaml = state.at("spec_yaml").get<std::string>();
  const StudySpec spec = FRUGAL_TRY(
      ParseStudySpec(yaml, state.value("spec_source", name), state.value("spec_base", "")));
  ledger::NewStudy study;
  study.name = name;
  study.spec = yaml;
  study.objective = spec.objective.metric;
  study.direction = spec.objective.direction == Direction::kMaximize ? "maximize" : "minimize";
  study.budget = spec.gates.budget;
  study.created = ledger::Now();
  const ledger::StudyId id = FRUGAL_TRY(ledger_.CreateStudy(study));
  ids_[name] = id;
  return id;
}

Result<void> LedgerStudyStore::SaveTrials(ledger::StudyId study, const nlohmann::json& state) {
  const StudySpec spec =
      FRUGAL_TRY(ParseStudySpec(state.at("spec_yaml").get<std::string>(),
                                state.value("spec_source", ""), state.value("spec_base", "")));
  const std::vector<double> rungs = spec.Ladder().fidelities;
  const bool maximize = spec.objective.direction == Direction::kMaximize;
  std::vector<ledger::Trial> rows = FRUGAL_TRY(ledger_.TrialsOf(study));
  const ledger::Timestamp now = ledger::Now();
  for (const auto& j : state.at("trials")) {
    const Trial t = FRUGAL_TRY(TrialFromJson(j));
    const auto number = static_cast<size_t>(t.id);
    while (rows.size() <= number) {
      // Trials are numbered densely in the order the study started them.
      ledger::Trial row;
      row.id = FRUGAL_TRY(ledger_.AddTrial(study, ConfigToJson(t.config), now));
      row.number = static_cast<int>(rows.size());
      rows.push_back(row);
    }
    ledger::Trial& row = rows[number];
    const ledger::TrialState target = LedgerState(t.state);
    // A supervised trial's spend is a ledger run of its own: link it once it exists.
    std::optional<ledger::RunId> run;
    if (!row.run_id && !t.run_name.empty()) {
      if (const auto found = FRUGAL_TRY(run::FindRunByName(ledger_, t.run_name))) {
        run = found->id;
      }
    }
    if (row.state != target || row.cost != t.spend || run) {
      FRUGAL_TRY(ledger_.UpdateTrial(row.id, target, t.spend - row.cost, run, now));
    }
    for (size_t k = 0; k < t.rung_losses.size() && k < rungs.size(); ++k) {
      if (std::isnan(t.rung_losses[k])) continue;
      const double value = maximize ? -t.rung_losses[k] : t.rung_losses[k];
      const auto it = row.rungs.find(static_cast<int>(k));
      if (it != row.rungs.end() && it->second.second == value) continue;
      FRUGAL_TRY(ledger_.RecordRung(row.id, static_cast<int>(k), rungs[k], value, now));
    }
  }
  return {};
}

Result<void> LedgerStudyStore::Save(const std::string& name, const nlohmann::json& state) {
  try {
    const ledger::StudyId study = FRUGAL_TRY(StudyFor(name, state));
    FRUGAL_TRY(SaveTrials(study, state));
    FRUGAL_TRY(ledger_.SetStudyState(study, LedgerStudyState(state)));
    ledger::TunerStateWrite write{study, state.dump(), ledger::Now(), std::nullopt};
    // The study's budget as it stands: a resume may have changed it (study_caps.h).
    if (const auto caps = state.find("caps"); caps != state.end() && caps->is_object()) {
      const nlohmann::json& micros = caps->value("budget_micros", nlohmann::json());
      write.budget = micros.is_number_integer()
                         ? std::optional<Money>(Money::FromMicros(micros.get<int64_t>()))
                         : std::optional<Money>();
    }
    return ledger::SaveTunerState(ledger_, write);
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("study state: ") + e.what());
  }
}

Result<std::vector<std::string>> LedgerStudyStore::Names() const {
  return ledger::StudiesWithTunerState(ledger_);
}

Result<nlohmann::json> LedgerStudyStore::Load(const std::string& name) const {
  const auto found = FRUGAL_TRY(ledger_.FindStudy(name));
  if (!found) {
    return Fail(ErrorCode::kBadInput,
                "no study named '" + name + "' in the ledger " + ledger_.connection().where());
  }
  const std::optional<std::string> text = FRUGAL_TRY(ledger::TunerStateOf(ledger_, found->id));
  if (!text) {
    return Fail(ErrorCode::kBadInput, "study '" + name + "' in the ledger has no tuner state");
  }
  nlohmann::json state = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (state.is_discarded()) {
    return Fail(ErrorCode::kBadInput, "study '" + name + "': the ledger's tuner state is not JSON");
  }
  FRUGAL_TRY(CheckStudyStateVersion("study '" + name + "' in the ledger", state));
  return state;
}

Result<std::string> LedgerStudyStore::Retire(const std::string& name) {
  const auto found = FRUGAL_TRY(ledger_.FindStudy(name));
  ids_.erase(name);
  if (!found) return std::string();
  if (found->state == ledger::StudyState::kRunning) {
    FRUGAL_TRY(ledger_.SetStudyState(found->id, ledger::StudyState::kCancelled));
  }
  const std::string kept = name + "@" + std::to_string(found->id);
  FRUGAL_TRY(ledger::RenameStudy(ledger_, found->id, kept));
  return kept;
}

}  // namespace frugal::tune

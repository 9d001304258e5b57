// The tuner's side of the ledger: studies, trials and rung results.

#include "frugal/ledger/study.h"

#include <fmt/format.h>

#include <array>

#include "frugal/ledger/ledger.h"

namespace frugal::ledger {
namespace {

constexpr std::array<std::string_view, 4> kStudyStates = {"running", "finished", "budget_stopped",
                                                          "cancelled"};
constexpr std::array<std::string_view, 6> kTrialStates = {"pending", "running",   "paused",
                                                          "pruned",  "completed", "failed"};

template <typename E, size_t N>
Result<E> ParseState(std::string_view text, const std::array<std::string_view, N>& names,
                     std::string_view what) {
  for (size_t i = 0; i < N; ++i) {
    if (names[i] == text) return static_cast<E>(i);
  }
  return Fail(ErrorCode::kBadInput, fmt::format("unknown {} '{}'", what, text));
}

}  // namespace

std::string_view StudyStateName(StudyState s) { return kStudyStates.at(static_cast<size_t>(s)); }
Result<StudyState> ParseStudyState(std::string_view text) {
  return ParseState<StudyState>(text, kStudyStates, "study state");
}
std::string_view TrialStateName(TrialState s) { return kTrialStates.at(static_cast<size_t>(s)); }
Result<TrialState> ParseTrialState(std::string_view text) {
  return ParseState<TrialState>(text, kTrialStates, "trial state");
}

Result<StudyId> Ledger::CreateStudy(const NewStudy& study) {
  StudyId id = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> existing = FRUGAL_TRY(
        c.Query("SELECT id FROM studies WHERE name = ?", std::vector<Value>{study.name}));
    if (!existing.empty()) {
      return Fail(ErrorCode::kBadInput, fmt::format("a study named '{}' exists", study.name));
    }
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("INSERT INTO studies (name, spec, objective, direction, state, budget_micros, "
                "created_ms) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id",
                std::vector<Value>{study.name, study.spec, study.objective, study.direction,
                                   std::string(StudyStateName(StudyState::kRunning)),
                                   study.budget ? Value{study.budget->micros()} : Value{},
                                   ToMillis(study.created)}));
    id = AsInt(rows.at(0).at(0));
    return {};
  });
  if (!done) return Fail(done.error());
  return id;
}

Result<std::optional<Study>> Ledger::FindStudy(const std::string& name) {
  std::vector<Row> rows = FRUGAL_TRY(db_->Query(
      "SELECT id, name, spec, objective, direction, state, budget_micros, created_ms FROM "
      "studies WHERE name = ?",
      std::vector<Value>{name}));
  if (rows.empty()) return std::optional<Study>();
  const Row& r = rows[0];
  Study s;
  s.id = AsInt(r[0]);
  s.definition.name = AsText(r[1]);
  s.definition.spec = AsText(r[2]);
  s.definition.objective = AsText(r[3]);
  s.definition.direction = AsText(r[4]);
  s.state = FRUGAL_TRY(ParseStudyState(AsText(r[5])));
  if (!IsNull(r[6])) s.definition.budget = Money::FromMicros(AsInt(r[6]));
  s.definition.created = FromMillis(AsInt(r[7]));
  return std::optional<Study>(std::move(s));
}

Result<TrialId> Ledger::AddTrial(StudyId study, const nlohmann::json& config, Timestamp time) {
  TrialId id = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    // Numbering inside the write transaction keeps numbers dense under concurrent writers.
    std::vector<Row> next =
        FRUGAL_TRY(c.Query("SELECT COALESCE(MAX(number) + 1, 0) FROM trials WHERE study_id = ?",
                           std::vector<Value>{study}));
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("INSERT INTO trials (study_id, number, config, state, cost_micros, created_ms, "
                "updated_ms) VALUES (?, ?, ?, ?, 0, ?, ?) RETURNING id",
                std::vector<Value>{study, next.at(0).at(0), config.dump(),
                                   std::string(TrialStateName(TrialState::kPending)),
                                   ToMillis(time), ToMillis(time)}));
    id = AsInt(rows.at(0).at(0));
    return {};
  });
  if (!done) return Fail(done.error());
  return id;
}

Result<void> Ledger::RecordRung(TrialId trial, int rung, double fidelity, double value,
                                Timestamp time) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    return c
        .Query(
            "INSERT INTO trial_rungs (trial_id, rung, fidelity, value, time_ms) VALUES (?, ?, "
            "?, ?, ?) ON CONFLICT (trial_id, rung) DO UPDATE SET fidelity = excluded.fidelity, "
            "value = excluded.value, time_ms = excluded.time_ms",
            std::vector<Value>{trial, int64_t{rung}, fidelity, value, ToMillis(time)})
        .map([](auto&&) {});
  });
}

Result<void> Ledger::UpdateTrial(TrialId trial, TrialState state, Money cost_delta,
                                 std::optional<RunId> run, Timestamp time) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(
        c.Query("UPDATE trials SET state = ?, cost_micros = cost_micros + ?, run_id = COALESCE(?, "
                "run_id), updated_ms = ? WHERE id = ? RETURNING id",
                std::vector<Value>{std::string(TrialStateName(state)), cost_delta.micros(),
                                   OrNull(run), ToMillis(time), trial}));
    if (rows.empty()) return Fail(ErrorCode::kBadInput, fmt::format("no trial {}", trial));
    return {};
  });
}

Result<void> Ledger::SetStudyState(StudyId study, StudyState state) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    return c
        .Query("UPDATE studies SET state = ? WHERE id = ?",
               std::vector<Value>{std::string(StudyStateName(state)), study})
        .map([](auto&&) {});
  });
}

Result<std::vector<Trial>> Ledger::TrialsOf(StudyId study) {
  std::vector<Row> rows = FRUGAL_TRY(db_->Query(
      "SELECT id, number, config, state, cost_micros, run_id FROM trials WHERE study_id = ? "
      "ORDER BY number",
      std::vector<Value>{study}));
  std::vector<Trial> trials;
  std::map<TrialId, size_t> index;
  for (const Row& r : rows) {
    Trial t;
    t.id = AsInt(r[0]);
    t.study_id = study;
    t.number = static_cast<int>(AsInt(r[1]));
    t.config = nlohmann::json::parse(AsText(r[2]), nullptr, /*allow_exceptions=*/false);
    t.state = FRUGAL_TRY(ParseTrialState(AsText(r[3])));
    t.cost = Money::FromMicros(AsInt(r[4]));
    t.run_id = AsOptionalInt(r[5]);
    index[t.id] = trials.size();
    trials.push_back(std::move(t));
  }
  std::vector<Row> rungs = FRUGAL_TRY(db_->Query(
      "SELECT r.trial_id, r.rung, r.fidelity, r.value FROM trial_rungs r JOIN trials t ON "
      "t.id = r.trial_id WHERE t.study_id = ?",
      std::vector<Value>{study}));
  for (const Row& r : rungs) {
    auto it = index.find(AsInt(r[0]));
    if (it == index.end()) continue;
    trials[it->second].rungs[static_cast<int>(AsInt(r[1]))] = {AsDouble(r[2]), AsDouble(r[3])};
  }
  return trials;
}

}  // namespace frugal::ledger

#include "frugal/ledger/tuner_state.h"

namespace frugal::ledger {

Result<void> SaveTunerState(Ledger& ledger, const TunerStateWrite& write) {
  const std::vector<Value> params = {write.study, write.state, ToMillis(write.saved)};
  std::vector<Value> budget;
  if (write.budget) {
    budget = {*write.budget ? Value{(*write.budget)->micros()} : Value{}, write.study};
  }
  return Transact(ledger.connection(), TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    FRUGAL_TRY(
        c.Query("INSERT INTO tune_study_states (study_id, state, saved_ms) "
                "VALUES (?, ?, ?) ON CONFLICT (study_id) DO UPDATE SET state "
                "= excluded.state, saved_ms = excluded.saved_ms",
                params));
    if (!budget.empty()) {
      FRUGAL_TRY(c.Query("UPDATE studies SET budget_micros = ? WHERE id = ?", budget));
    }
    return {};
  });
}

Result<std::optional<std::string>> TunerStateOf(Ledger& ledger, StudyId study) {
  const std::vector<Value> params = {study};
  const std::vector<Row> rows = FRUGAL_TRY(
      ledger.connection().Query("SELECT state FROM tune_study_states WHERE study_id = ?", params));
  if (rows.empty()) return std::optional<std::string>();
  return std::optional<std::string>(AsText(rows[0][0]));
}

Result<std::vector<std::string>> StudiesWithTunerState(Ledger& ledger) {
  const std::vector<Row> rows =
      FRUGAL_TRY(ledger.connection().Query("SELECT s.name FROM studies s JOIN tune_study_states t "
                                           "ON t.study_id = s.id ORDER BY s.name"));
  std::vector<std::string> names;
  for (const Row& row : rows) names.push_back(AsText(row[0]));
  return names;
}

Result<void> RenameStudy(Ledger& ledger, StudyId study, const std::string& name) {
  const std::vector<Value> params = {name, study};
  return Transact(ledger.connection(), TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    FRUGAL_TRY(c.Query("UPDATE studies SET name = ? WHERE id = ?", params));
    return {};
  });
}

}  // namespace frugal::ledger

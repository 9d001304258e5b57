#pragma once
// A StudyStore in the ledger (`--db`): a study's trials, their rung results, states and spend
// go into the ledger's studies / trials / trial_rungs tables, where reports and other tools
// read them; the rest of the tuner's state document (scheduler, sampler, runner, accounting)
// goes into the ledger's tune_study_states table (schema version 3), one row per study.
// Save writes the rows first and the state document last, so after a crash the document
// never refers to trials the ledger lacks; a later Save reconciles rows written after it.

#include <map>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"
#include "frugal/tune/study_store.h"

namespace frugal::tune {

class LedgerStudyStore final : public StudyStore {
 public:
  /// Borrows `ledger`, which must outlive the store.
  explicit LedgerStudyStore(ledger::Ledger& ledger) : ledger_(ledger) {}

  [[nodiscard]] Result<void> Save(const std::string& name, const nlohmann::json& state) override;
  [[nodiscard]] Result<nlohmann::json> Load(const std::string& name) const override;

  /// Frees `name` for a new study: an existing one is renamed "<name>@<id>" (and marked
  /// cancelled when it had not finished), keeping its rows. Nothing happens when none exists.
  [[nodiscard]] Result<std::string> Retire(const std::string& name) override;
  [[nodiscard]] Result<std::vector<std::string>> Names() const override;

 private:
  /// The study's ledger id, creating the study (from the state's spec) when it is new.
  [[nodiscard]] Result<ledger::StudyId> StudyFor(const std::string& name,
                                                 const nlohmann::json& state);
  [[nodiscard]] Result<void> SaveTrials(ledger::StudyId study, const nlohmann::json& state);

  ledger::Ledger& ledger_;
  std::map<std::string, ledger::StudyId> ids_;
};

}  // namespace frugal::tune

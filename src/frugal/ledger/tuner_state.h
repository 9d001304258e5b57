#pragma once
// The tuner's state document of a study (table tune_study_states, schema version 3) and the
// study renames a retired study gets: the ledger side of tune's LedgerStudyStore.

#include <optional>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"

namespace frugal::ledger {

struct TunerStateWrite {
  StudyId study = 0;
  std::string state;  ///< the JSON document, as text
  Timestamp saved{};
  /// The study's budget as the state has it (a resume may change it): set when engaged,
  /// to none when engaged and empty.
  std::optional<std::optional<Money>> budget;
};

/// Replaces the study's state document (and its budget, when given) in one transaction.
[[nodiscard]] Result<void> SaveTunerState(Ledger& ledger, const TunerStateWrite& write);

/// The study's state document; nullopt when it has none.
[[nodiscard]] Result<std::optional<std::string>> TunerStateOf(Ledger& ledger, StudyId study);

/// The names of the studies that have a state document, sorted.
[[nodiscard]] Result<std::vector<std::string>> StudiesWithTunerState(Ledger& ledger);

/// Renames the study (its rows keep their id).
[[nodiscard]] Result<void> RenameStudy(Ledger& ledger, StudyId study, const std::string& name);

}  // namespace frugal::ledger

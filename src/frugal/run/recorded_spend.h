#pragma once
// What a ledger run or study actually cost, with where the figure comes from: the training of a
// lifetime bill (`frugal tco --run/--study`, or the inference spec's `training: run/study`).

#include <string>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/ledger/ledger.h"

namespace frugal::run {

struct RecordedSpend {
  Money cost;
  std::string source;  ///< "ledger run 7 (bert-ft)", "ledger study lr-sweep"
};

/// The spend of the run `ref` names (its ledger number, or the run id `frugal run` printed: the
/// newest run of that name), costed up to now while it runs. kBadInput "no run 'REF' in the
/// ledger" when none has that name; the ledger's errors.
[[nodiscard]] Result<RecordedSpend> RunSpend(ledger::Ledger& ledger, const std::string& ref);

/// The spend of a study: its trials' costs summed. kBadInput "no study 'NAME' in the ledger".
[[nodiscard]] Result<RecordedSpend> StudySpend(ledger::Ledger& ledger, const std::string& name);

}  // namespace frugal::run

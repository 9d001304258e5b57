#include "frugal/run/recorded_spend.h"

#include <fmt/format.h>

#include "frugal/core/text.h"
#include "frugal/run/ledger_recorder.h"

namespace frugal::run {

Result<RecordedSpend> RunSpend(ledger::Ledger& ledger, const std::string& ref) {
  int64_t id = 0;
  if (const Result<int64_t> number = ParseInt(ref); number && *number > 0) {
    id = *number;
  } else {
    const std::optional<ledger::Run> named = FRUGAL_TRY(FindRunByName(ledger, ref));
    if (!named) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("no run '{}' in the ledger (see 'frugal runs list')", ref));
    }
    id = named->id;
  }
  const ledger::RunDetail d = FRUGAL_TRY(ledger.GetRunDetail(id, ledger::Now()));
  return RecordedSpend{d.summary.cost, fmt::format("ledger run {} ({})", id, d.summary.run.name)};
}

Result<RecordedSpend> StudySpend(ledger::Ledger& ledger, const std::string& name) {
  const auto found = FRUGAL_TRY(ledger.FindStudy(name));
  if (!found) return Fail(ErrorCode::kBadInput, fmt::format("no study '{}' in the ledger", name));
  RecordedSpend spend;
  for (const ledger::Trial& trial : FRUGAL_TRY(ledger.TrialsOf(found->id)))
    spend.cost += trial.cost;
  spend.source = fmt::format("ledger study {}", name);
  return spend;
}

}  // namespace frugal::run

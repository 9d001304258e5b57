#include "frugal/app/recorded.h"

#include <fmt/format.h>

#include "frugal/run/profile.h"

namespace frugal::app {

WithLedger LedgerAt(std::string db_flag) {
  return [db_flag = std::move(db_flag)](ledger::CreateMode create,
                                        const LedgerUse& use) -> Result<void> {
    if (create == ledger::CreateMode::kMustExist && ledger::NothingRecordedYet(db_flag)) return {};
    auto db = FRUGAL_TRY(ledger::OpenForCommand(db_flag, create));
    return use(*db);
  };
}

std::optional<std::string> AddRecordedMeasurements(plan::JobSpec& spec,
                                                   const catalog::Catalog& catalog,
                                                   const WithLedger& ledger) {
  if (!ledger) return std::nullopt;
  const Result<void> added = ledger(ledger::CreateMode::kMustExist, [&](ledger::Ledger& db) {
    return run::AddLedgerMeasurements(db, spec, catalog);
  });
  if (added) return std::nullopt;
  return fmt::format("{}: the measurements the ledger holds of '{}' were not read: {}", spec.source,
                     spec.measurement_name, added.error().message);
}

}  // namespace frugal::app

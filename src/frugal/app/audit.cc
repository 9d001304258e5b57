#include "frugal/app/audit.h"

#include "frugal/ledger/window.h"

namespace frugal::app {

Result<audit::AuditResult> RunAudit(ledger::Ledger& db, AuditRequest request) {
  request.options.since =
      FRUGAL_TRY(ledger::ParseSince(request.since, request.options.now, request.prefix));
  return audit::RunAudit(db, request.options);
}

}  // namespace frugal::app

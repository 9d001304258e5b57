#pragma once
// The audit over a window that ends now: `frugal audit` and `GET /api/v1/audit` (and
// `/api/v1/budgets`) call it with the window as the user gave it and print the same document.

#include <string>

#include "frugal/audit/audit.h"
#include "frugal/ledger/ledger.h"

namespace frugal::app {

struct AuditRequest {
  std::string since = "90d";  ///< a duration back or a date
  std::string prefix;         ///< how errors name the field: "--" for flags, "" for parameters
  /// What the rules read: now, the thresholds and the borrowed catalog, transfer prices and
  /// inventory (since is set from `since`).
  audit::AuditOptions options;
};

/// kBadInput naming `since` when it is not a duration or a date; else the ledger's errors.
[[nodiscard]] Result<audit::AuditResult> RunAudit(ledger::Ledger& db, AuditRequest request);

}  // namespace frugal::app

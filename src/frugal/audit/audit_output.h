#pragma once
// The audit's output: an aligned text table, Markdown and HTML (a report a team lead can send
// on, with charts as embedded SVG) and JSON.

#include <nlohmann/json.hpp>
#include <ostream>

#include "frugal/audit/audit.h"

namespace frugal::audit {

void WriteAuditTable(const AuditResult& result, std::ostream& out);
void WriteAuditMarkdown(const AuditResult& result, std::ostream& out);
/// A standalone HTML page: inline CSS and SVG, no scripts, no external references.
void WriteAuditHtml(const AuditResult& result, std::ostream& out);
[[nodiscard]] nlohmann::json AuditToJson(const AuditResult& result);

// Shared by the writers.
/// Money as the house prints it, but a plain "$0.00" for nothing.
[[nodiscard]] std::string MoneyText(Money m);
/// "$12.00/mo", or "unknown" when the saving could not be computed.
[[nodiscard]] std::string SavingText(const Finding& f);
/// "2026-01-01T00:00:00Z to 2026-04-01T00:00:00Z".
[[nodiscard]] std::string WindowText(const AuditResult& r);
/// Spend in the window over every series of the tier chart (ledger runs, unlinked bills and
/// inventory instances no bill lists).
[[nodiscard]] Money SpendInWindow(const AuditResult& r);

}  // namespace frugal::audit

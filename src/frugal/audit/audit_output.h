#pragma once
// The audit's output: an aligned text table, Markdown (a report to send on) and JSON.

#include <nlohmann/json.hpp>
#include <ostream>

#include "frugal/audit/audit.h"

namespace frugal::audit {

void WriteAuditTable(const AuditResult& result, std::ostream& out);
void WriteAuditMarkdown(const AuditResult& result, std::ostream& out);
[[nodiscard]] nlohmann::json AuditToJson(const AuditResult& result);

}  // namespace frugal::audit

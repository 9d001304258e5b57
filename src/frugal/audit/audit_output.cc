#include "frugal/audit/audit_output.h"

#include <fmt/format.h>

#include "frugal/core/table.h"

namespace frugal::audit {
namespace {

/// Money as the house prints it, but a plain "$0.00" for nothing.
std::string MoneyText(Money m) { return m.IsZero() ? std::string("$0.00") : m.ToString(); }

std::string SavingText(const Finding& f) {
  return f.saving_per_month ? MoneyText(*f.saving_per_month) + "/mo" : "unknown";
}

std::string CountText(size_t n) { return n == 1 ? "1 finding" : fmt::format("{} findings", n); }

std::string WindowText(const AuditResult& r) {
  return fmt::format("{} to {}", ledger::FormatTimestamp(r.options.since),
                     ledger::FormatTimestamp(r.options.now));
}

}  // namespace

void WriteAuditTable(const AuditResult& result, std::ostream& out) {
  out << fmt::format("audit of {}: {}, {} per month to save\n", WindowText(result),
                     CountText(result.findings.size()),
                     MoneyText(result.TotalSavingPerMonth()));
  if (!result.findings.empty()) {
    Table table({{"#", Align::kRight},
                 {"rule"},
                 {"subject"},
                 {"saving", Align::kRight},
                 {"action"}});
    for (size_t i = 0; i < result.findings.size(); ++i) {
      const Finding& f = result.findings[i];
      table.AddRow({std::to_string(i + 1), f.rule, f.subject, SavingText(f), f.action});
    }
    out << "\n";
    table.Render(out);
    out << "\n";
    for (size_t i = 0; i < result.findings.size(); ++i) {
      const Finding& f = result.findings[i];
      out << fmt::format("{}. {} — {}\n   evidence: {}\n   saving: {}\n", i + 1, f.rule, f.subject,
                         f.evidence, f.saving_basis);
    }
  }
  for (const std::string& note : result.notes) out << "note: " << note << "\n";
}

void WriteAuditMarkdown(const AuditResult& result, std::ostream& out) {
  out << "# GPU spend audit\n\n";
  out << fmt::format("Window: {}. **{}, {} per month to save.**\n\n", WindowText(result),
                     CountText(result.findings.size()), MoneyText(result.TotalSavingPerMonth()));
  if (!result.findings.empty()) {
    out << "| # | Rule | Subject | Saving / month | Action |\n|---:|---|---|---:|---|\n";
    for (size_t i = 0; i < result.findings.size(); ++i) {
      const Finding& f = result.findings[i];
      out << fmt::format("| {} | {} | {} | {} | {} |\n", i + 1, f.rule, f.subject, SavingText(f),
                         f.action);
    }
    out << "\n## Findings\n";
    for (size_t i = 0; i < result.findings.size(); ++i) {
      const Finding& f = result.findings[i];
      out << fmt::format("\n### {}. {}: {}\n\n- Evidence: {}\n- Saving: {} ({})\n- Action: {}\n",
                         i + 1, f.rule, f.subject, f.evidence, SavingText(f), f.saving_basis,
                         f.action);
    }
  }
  if (!result.notes.empty()) {
    out << "\n## Not judged\n\n";
    for (const std::string& note : result.notes) out << "- " << note << "\n";
  }
}

nlohmann::json AuditToJson(const AuditResult& result) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : result.findings) {
    nlohmann::json j = {{"rule", f.rule},         {"subject", f.subject},
                        {"evidence", f.evidence}, {"facts", f.facts},
                        {"runs", f.runs},         {"saving_basis", f.saving_basis},
                        {"action", f.action}};
    j["saving_per_month"] =
        f.saving_per_month ? nlohmann::json(f.saving_per_month->ToPlainString()) : nullptr;
    findings.push_back(std::move(j));
  }
  return {{"since", ledger::FormatTimestamp(result.options.since)},
          {"until", ledger::FormatTimestamp(result.options.now)},
          {"total_saving_per_month", result.TotalSavingPerMonth().ToPlainString()},
          {"findings", std::move(findings)},
          {"notes", result.notes}};
}

}  // namespace frugal::audit

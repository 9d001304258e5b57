#include "frugal/audit/audit_output.h"

#include <fmt/format.h>

#include "frugal/core/table.h"

namespace frugal::audit {
namespace {

std::string CountText(size_t n) { return n == 1 ? "1 finding" : fmt::format("{} findings", n); }

/// Markdown table cells: no pipes or newlines inside.
std::string Cell(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else {
      out += c == '\n' ? ' ' : c;
    }
  }
  return out;
}

void MarkdownBudgets(const AuditResult& result, std::ostream& out) {
  if (result.budgets.empty()) return;
  out << "\n## Budgets\n\n| Budget | Period | Amount | Spent | Burn / day | Forecast |\n"
         "|---|---|---:|---:|---:|---:|\n";
  for (const BudgetStatus& b : result.budgets) {
    out << fmt::format("| {} | {} from {} | {} | {} | {} | {}{} |\n", Cell(b.budget.Label()),
                       BudgetPeriodName(b.budget.period), ledger::FormatTimestamp(b.period.start),
                       b.budget.amount.ToString(), b.spent.ToString(), b.burn_per_day.ToString(),
                       b.forecast.ToString(), b.forecast > b.budget.amount ? " **over**" : "");
  }
}

}  // namespace

std::string MoneyText(Money m) { return m.IsZero() ? std::string("$0.00") : m.ToString(); }

std::string SavingText(const Finding& f) {
  if (!f.saving_applies) return "n/a";
  return f.saving_per_month ? MoneyText(*f.saving_per_month) + "/mo" : "unknown";
}

std::string WindowText(const AuditResult& r) {
  return fmt::format("{} to {}", ledger::FormatTimestamp(r.options.since),
                     ledger::FormatTimestamp(r.options.now));
}

Money SpendInWindow(const AuditResult& r) {
  Money total;
  for (const SpendSeries& s : r.charts.spend_by_tier) total += s.Total();
  return total;
}

void WriteAuditTable(const AuditResult& result, std::ostream& out) {
  out << fmt::format("audit of {}: {}, {} per month to save\n", WindowText(result),
                     CountText(result.findings.size()), MoneyText(result.TotalSavingPerMonth()));
  if (!result.findings.empty()) {
    Table table(
        {{"#", Align::kRight}, {"rule"}, {"subject"}, {"saving", Align::kRight}, {"action"}});
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
  for (const BudgetStatus& b : result.budgets) {
    out << fmt::format("budget {} ({} from {}): {} spent of {}, {}/day, forecast {}{}\n",
                       b.budget.Label(), BudgetPeriodName(b.budget.period),
                       ledger::FormatTimestamp(b.period.start), b.spent.ToString(),
                       b.budget.amount.ToString(), b.burn_per_day.ToString(), b.forecast.ToString(),
                       b.forecast > b.budget.amount ? " (over)" : "");
  }
  for (const std::string& note : result.notes) out << "note: " << note << "\n";
}

void WriteAuditMarkdown(const AuditResult& result, std::ostream& out) {
  out << "# GPU spend audit\n\n";
  out << fmt::format("Window: {}. Spend in the window: {}. Thresholds: {}.\n\n", WindowText(result),
                     MoneyText(SpendInWindow(result)), result.options.thresholds.source);
  out << fmt::format("**{}, {} per month to save.**\n", CountText(result.findings.size()),
                     MoneyText(result.TotalSavingPerMonth()));
  if (!result.charts.savings_by_rule.empty()) {
    out << "\n| Rule | Saving / month |\n|---|---:|\n";
    for (const auto& [rule, money] : result.charts.savings_by_rule) {
      out << fmt::format("| {} | {} |\n", rule, MoneyText(money));
    }
  }
  if (!result.findings.empty()) {
    out << "\n## Findings, ranked by saving\n\n"
           "| # | Rule | Subject | Saving / month | Action |\n|---:|---|---|---:|---|\n";
    for (size_t i = 0; i < result.findings.size(); ++i) {
      const Finding& f = result.findings[i];
      out << fmt::format("| {} | {} | {} | {} | {} |\n", i + 1, f.rule, Cell(f.subject),
                         SavingText(f), Cell(f.action));
    }
  }
  const std::vector<RenderedChart> charts = RenderCharts(result);
  if (!charts.empty()) out << "\n## Charts\n";
  for (const RenderedChart& c : charts) out << "\n### " << c.title << "\n\n" << c.svg << "\n";
  if (!result.findings.empty()) {
    out << "\n## Details\n";
    for (size_t i = 0; i < result.findings.size(); ++i) {
      const Finding& f = result.findings[i];
      out << fmt::format(
          "\n### {}. {}: {}\n\n- Evidence: {}\n- Saving: {}\n- How computed: {}\n- Action: "
          "{}\n",
          i + 1, f.rule, f.subject, f.evidence, SavingText(f), f.saving_basis, f.action);
    }
  }
  MarkdownBudgets(result, out);
  if (!result.notes.empty()) {
    out << "\n## Not judged\n\n";
    for (const std::string& note : result.notes) out << "- " << note << "\n";
  }
}

nlohmann::json AuditToJson(const AuditResult& result) {
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding& f : result.findings) {
    nlohmann::json j = {{"rule", f.rule},
                        {"subject", f.subject},
                        {"evidence", f.evidence},
                        {"facts", f.facts},
                        {"runs", f.runs},
                        {"saving_basis", f.saving_basis},
                        {"saving_applies", f.saving_applies},
                        {"action", f.action}};
    j["saving_per_month"] =
        f.saving_per_month ? nlohmann::json(f.saving_per_month->ToPlainString()) : nullptr;
    findings.push_back(std::move(j));
  }
  nlohmann::json budgets = nlohmann::json::array();
  for (const BudgetStatus& b : result.budgets) {
    budgets.push_back({{"team", b.budget.team},
                       {"project", b.budget.project},
                       {"period", BudgetPeriodName(b.budget.period)},
                       {"period_start", ledger::FormatTimestamp(b.period.start)},
                       {"period_end", ledger::FormatTimestamp(b.period.end)},
                       {"amount", b.budget.amount.ToPlainString()},
                       {"spent", b.spent.ToPlainString()},
                       {"burn_per_day", b.burn_per_day.ToPlainString()},
                       {"forecast", b.forecast.ToPlainString()}});
  }
  nlohmann::json savings = nlohmann::json::object();
  for (const auto& [rule, money] : result.charts.savings_by_rule) {
    savings[rule] = money.ToPlainString();
  }
  return {{"since", ledger::FormatTimestamp(result.options.since)},
          {"until", ledger::FormatTimestamp(result.options.now)},
          {"thresholds", result.options.thresholds.source},
          {"spend_in_window", SpendInWindow(result).ToPlainString()},
          {"total_saving_per_month", result.TotalSavingPerMonth().ToPlainString()},
          {"savings_by_rule", std::move(savings)},
          {"findings", std::move(findings)},
          {"budgets", std::move(budgets)},
          {"utilization_run_hours", result.charts.util_hours},
          {"notes", result.notes}};
}

}  // namespace frugal::audit

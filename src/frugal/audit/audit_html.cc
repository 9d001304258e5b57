// The audit as one standalone HTML page: summary, savings by rule, the findings ranked by
// saving, charts as inline SVG, each finding's evidence, how its saving was computed and the
// action, budgets, and what was not judged. No scripts and no external references, so it
// opens from a mail attachment.

#include <fmt/format.h>

#include "frugal/audit/audit_output.h"
#include "frugal/audit/svg_chart.h"
#include "frugal/core/text.h"

namespace frugal::audit {
namespace {

constexpr const char* kStyle = R"css(
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2em auto;
       max-width: 980px; color: #222; line-height: 1.45; padding: 0 1em; }
h1 { margin-bottom: 0.2em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; width: 100%; margin: 0.8em 0; }
th, td { border-bottom: 1px solid #e4e4e4; padding: 4px 8px; text-align: left; vertical-align: top; }
td.num, th.num { text-align: right; white-space: nowrap; }
.headline { font-size: 1.3em; margin: 0.6em 0; }
.meta { color: #666; }
.finding { border-left: 4px solid #4e79a7; padding: 0.2em 1em; margin: 1em 0; background: #f8f9fb; }
.finding dt { font-weight: bold; } .finding dd { margin: 0 0 0.4em 0; }
.over { color: #c0392b; font-weight: bold; }
figure { margin: 1.2em 0; } figure svg { max-width: 100%; height: auto; }
)css";

std::string Esc(std::string_view s) { return XmlEscape(s); }

void Summary(const AuditResult& r, std::ostream& out) {
  out << fmt::format("<p class=\"meta\">Window {}. Spend in the window {}. Thresholds: {}.</p>\n",
                     Esc(WindowText(r)), Esc(MoneyText(SpendInWindow(r))),
                     Esc(r.options.thresholds.source));
  out << fmt::format(
      "<p class=\"headline\"><strong>{} finding{}, {} per month to save.</strong></p>\n",
      r.findings.size(), r.findings.size() == 1 ? "" : "s",
      Esc(MoneyText(r.TotalSavingPerMonth())));
  if (r.charts.savings_by_rule.empty()) return;
  out << "<table class=\"by-rule\"><tr><th>Rule</th><th class=\"num\">Saving / month</th></tr>\n";
  for (const auto& [rule, money] : r.charts.savings_by_rule) {
    out << fmt::format("<tr><td>{}</td><td class=\"num\">{}</td></tr>\n", Esc(rule),
                       Esc(MoneyText(money)));
  }
  out << "</table>\n";
}

void Ranked(const AuditResult& r, std::ostream& out) {
  if (r.findings.empty()) return;
  out << "<h2>Findings, ranked by saving</h2>\n<table class=\"findings\"><tr><th>#</th>"
         "<th>Rule</th><th>Subject</th><th class=\"num\">Saving / month</th><th>Action</th></tr>\n";
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    out << fmt::format(
        "<tr><td><a href=\"#f{0}\">{0}</a></td><td>{1}</td><td>{2}</td><td class=\"num\">{3}</td>"
        "<td>{4}</td></tr>\n",
        i + 1, Esc(f.rule), Esc(f.subject), Esc(SavingText(f)), Esc(f.action));
  }
  out << "</table>\n";
}

void Details(const AuditResult& r, std::ostream& out) {
  if (r.findings.empty()) return;
  out << "<h2>Details</h2>\n";
  for (size_t i = 0; i < r.findings.size(); ++i) {
    const Finding& f = r.findings[i];
    out << fmt::format(
        "<section class=\"finding\" id=\"f{}\"><h3>{}. {}: {}</h3><dl>"
        "<dt>Evidence</dt><dd>{}</dd><dt>Saving</dt><dd>{}</dd>"
        "<dt>How computed</dt><dd>{}</dd><dt>Action</dt><dd>{}</dd></dl></section>\n",
        i + 1, i + 1, Esc(f.rule), Esc(f.subject), Esc(f.evidence), Esc(SavingText(f)),
        Esc(f.saving_basis), Esc(f.action));
  }
}

void Budgets(const AuditResult& r, std::ostream& out) {
  if (r.budgets.empty()) return;
  out << "<h2>Budgets</h2>\n<table class=\"budgets\"><tr><th>Budget</th><th>Period</th>"
         "<th class=\"num\">Amount</th><th class=\"num\">Spent</th><th class=\"num\">Burn / "
         "day</th>"
         "<th class=\"num\">Forecast</th></tr>\n";
  for (const BudgetStatus& b : r.budgets) {
    const bool over = b.forecast > b.budget.amount;
    out << fmt::format(
        "<tr><td>{}</td><td>{} from {}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{}</td><td class=\"num{}\">{}</td></tr>\n",
        Esc(b.budget.Label()), BudgetPeriodName(b.budget.period),
        Esc(ledger::FormatTimestamp(b.period.start)), Esc(b.budget.amount.ToString()),
        Esc(b.spent.ToString()), Esc(b.burn_per_day.ToString()), over ? " over" : "",
        Esc(b.forecast.ToString()));
  }
  out << "</table>\n";
}

}  // namespace

void WriteAuditHtml(const AuditResult& result, std::ostream& out) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
         "<title>GPU spend audit</title><style>"
      << kStyle << "</style></head>\n<body>\n<h1>GPU spend audit</h1>\n";
  Summary(result, out);
  Ranked(result, out);
  const std::vector<RenderedChart> charts = RenderCharts(result);
  if (!charts.empty()) out << "<h2>Charts</h2>\n";
  for (const RenderedChart& c : charts) {
    out << "<figure>" << c.svg << "</figure>\n";
  }
  Details(result, out);
  Budgets(result, out);
  if (!result.notes.empty()) {
    out << "<h2>Not judged</h2>\n<ul class=\"notes\">\n";
    for (const std::string& n : result.notes) out << "<li>" << Esc(n) << "</li>\n";
    out << "</ul>\n";
  }
  out << "</body></html>\n";
}

}  // namespace frugal::audit

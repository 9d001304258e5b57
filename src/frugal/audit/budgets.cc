#include "frugal/audit/budgets.h"

#include <fmt/format.h>

#include <chrono>
#include <map>
#include <string>

namespace frugal::audit {

std::string Budget::Label() const {
  if (project.empty()) return "team " + team;
  if (team.empty()) return "project " + project;
  return fmt::format("team {} / project {}", team, project);
}

bool Budget::Covers(std::string_view team_tag, std::string_view project_tag) const {
  return (team.empty() || team == team_tag) && (project.empty() || project == project_tag);
}

Result<std::vector<Budget>> ReadBudgets(const YamlDoc& doc, const YAML::Node& map) {
  std::vector<Budget> budgets;
  std::map<std::string, std::string> seen;  // team, project, period → where first given
  const YAML::Node list = map["budgets"];
  if (!list.IsDefined() || list.IsNull()) return budgets;
  if (!list.IsSequence()) return Fail(doc.ErrorAt(list, "budgets", "expected a list"));
  for (const YAML::Node& entry : list) {
    FRUGAL_TRY(doc.CheckKeys(entry, "budget", {"team", "project", "amount", "period"}));
    Budget b;
    b.team = FRUGAL_TRY(doc.OptionalString(entry, "team")).value_or("");
    b.project = FRUGAL_TRY(doc.OptionalString(entry, "project")).value_or("");
    if (b.team.empty() && b.project.empty()) {
      return Fail(doc.ErrorAt(entry, "budgets", "name a team, a project, or both"));
    }
    const std::optional<Money> amount = FRUGAL_TRY(doc.OptionalMoney(entry, "amount"));
    if (!amount || *amount <= Money()) {
      return Fail(doc.ErrorAt(amount ? entry["amount"] : entry, "amount",
                              "needs a positive amount in dollars"));
    }
    b.amount = *amount;
    const std::string period = FRUGAL_TRY(doc.OptionalString(entry, "period")).value_or("month");
    if (period == "month") {
      b.period = BudgetPeriod::kMonth;
    } else if (period == "quarter") {
      b.period = BudgetPeriod::kQuarter;
    } else if (period == "year") {
      b.period = BudgetPeriod::kYear;
    } else {
      return Fail(doc.ErrorAt(entry["period"], "period",
                              fmt::format("'{}' is not month, quarter or year", period)));
    }
    // A second budget for the same team, project and period would be shown and judged beside
    // the first, two answers to one question.
    const std::string key = b.team + '\n' + b.project + '\n' + period;
    if (const auto [it, added] = seen.emplace(key, doc.Where(entry)); !added) {
      return Fail(doc.ErrorAt(
          entry, "budgets",
          fmt::format("{} already has a {} budget at {}",
                      b.project.empty() ? "team '" + b.team + "'"
                      : b.team.empty()  ? "project '" + b.project + "'"
                                        : "team '" + b.team + "', project '" + b.project + "'",
                      period, it->second)));
    }
    budgets.push_back(std::move(b));
  }
  return budgets;
}

}  // namespace frugal::audit

// The policy-override rule: every time `plan`, `run` or `tune` went ahead against the team's
// GPU policy with `--override REASON` in the window, with who, when, which rules, why, and
// what the run or study it let start has spent. An override is a decision on record, not
// waste, so the rule claims no saving; it puts the decision in front of whoever reads the
// audit.

#include <fmt/format.h>

#include "frugal/audit/audit_data.h"

namespace frugal::audit {
namespace {

constexpr std::string_view kPolicyOverride = "policy-override";

std::string Started(const ledger::NewOverride& r) {
  if (r.run_id) return fmt::format("run {}", *r.run_id);
  if (r.study_id) return fmt::format("study {}", *r.study_id);
  return "";
}

Finding OverrideFinding(const ledger::PolicyOverride& row, std::optional<Money> spend) {
  const ledger::NewOverride& r = row.record;
  const std::string rules = fmt::format("{}", fmt::join(r.rules, ", "));
  Finding f;
  f.rule = kPolicyOverride;
  f.subject = r.subject;
  const std::string started = Started(r);
  f.evidence = fmt::format(
      "{} overrode policy {} ({}) with `frugal {}` at {}: \"{}\"; {}", r.user_name, r.policy_source,
      rules, r.command, ledger::FormatTimestamp(r.time), r.reason,
      started.empty()
          ? std::string("no run or study linked (a plan, or a start that failed)")
          : fmt::format("{} has spent {}", started, spend.value_or(Money()).ToString()));
  f.facts = {{"override_id", row.id},
             {"time", ledger::FormatTimestamp(r.time)},
             {"user", r.user_name},
             {"team", r.team},
             {"project", r.project},
             {"command", r.command},
             {"rules", r.rules},
             {"reason", r.reason},
             {"policy", r.policy_source},
             {"run_id", r.run_id ? nlohmann::json(*r.run_id) : nlohmann::json()},
             {"study_id", r.study_id ? nlohmann::json(*r.study_id) : nlohmann::json()},
             {"spend", spend ? nlohmann::json(spend->ToPlainString()) : nlohmann::json()}};
  if (r.run_id) f.runs.push_back(*r.run_id);
  f.saving_basis =
      "none claimed: an override is a recorded decision, not waste; its spend is shown for "
      "review";
  f.saving_applies = false;
  f.action = fmt::format(
      "review with {}: if the reason recurs, change the policy (a new version) rather than "
      "overriding it",
      r.team.empty() ? r.user_name : "team " + r.team);
  return f;
}

}  // namespace

Result<void> PolicyOverrides(ledger::Ledger& ledger, const AuditOptions& options,
                             AuditResult& out) {
  const std::vector<ledger::PolicyOverride> rows =
      FRUGAL_TRY(ledger.ListOverrides({options.since, options.now}));
  for (const ledger::PolicyOverride& row : rows) {
    const std::optional<Money> spend = FRUGAL_TRY(ledger.SpendOf(row, options.now));
    out.findings.push_back(OverrideFinding(row, spend));
  }
  return {};
}

}  // namespace frugal::audit

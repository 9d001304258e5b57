#include "policy_gate.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <ostream>

#include "frugal/core/text.h"

namespace frugal::cli {
namespace {

std::string UserName() {
  if (const char* user = std::getenv("USER"); user != nullptr && *user != '\0') return user;
  if (const passwd* pw = ::getpwuid(::getuid()); pw != nullptr) return pw->pw_name;
  return fmt::format("uid {}", ::getuid());
}

std::string TagOf(const std::map<std::string, std::string>& tags, const std::string& key) {
  const auto it = tags.find(key);
  return it == tags.end() ? "" : it->second;
}

}  // namespace

void AddOverrideOption(CLI::App* cmd, std::optional<std::string>& reason) {
  cmd->add_option("--override", reason,
                  "Go ahead despite the team's GPU policy; the reason is recorded in the ledger "
                  "and listed by `frugal audit` and `frugal policy overrides`");
}

Result<void> CheckOverrideReason(const std::optional<std::string>& reason) {
  if (reason && Trim(*reason).empty()) {
    return Fail(ErrorCode::kBadInput,
                "option --override: give the reason for overriding the policy (it is recorded)");
  }
  return {};
}

Result<std::optional<policy::ConfiguredPolicy>> PolicyInEffect(const GlobalOptions& global,
                                                               const catalog::Catalog& catalog) {
  return policy::LoadConfiguredPolicy(global.policy, catalog);
}

void PrintViolation(std::ostream& out, const policy::Violation& v) {
  out << fmt::format("  {}: {}\n    fix: {}\n", v.rule, v.message, v.fix);
}

nlohmann::json ViolationsJson(const std::vector<policy::Violation>& violations) {
  nlohmann::json list = nlohmann::json::array();
  for (const policy::Violation& v : violations) {
    list.push_back({{"rule", v.rule}, {"message", v.message}, {"fix", v.fix}});
  }
  return list;
}

Result<void> RefuseUnlessOverridden(const Enforcement& e, const policy::ConfiguredPolicy& policy,
                                    const GlobalOptions& global, Streams& s) {
  if (e.violations.empty()) return {};
  const std::string rules = fmt::format("{}", fmt::join(policy::RuleNames(e.violations), ", "));
  if (e.override_reason) {
    s.err << fmt::format("frugal: warning: {} violates policy {} ({}); overridden: {}\n",
                         e.subject_label, policy.policy.Label(), rules, *e.override_reason);
    return {};
  }
  if (global.json) {
    WriteJson(s, {{"refused", true},
                  {"command", e.command},
                  {"subject", e.subject_label},
                  {"policy", policy.policy.name},
                  {"policy_version", policy.policy.version},
                  {"policy_file", policy.location.path.string()},
                  {"violations", ViolationsJson(e.violations)}});
  } else {
    s.err << fmt::format("{} violates policy {} ({}):\n", e.subject_label, policy.policy.Label(),
                         policy.location.path.string());
    for (const policy::Violation& v : e.violations) PrintViolation(s.err, v);
  }
  return Fail(ErrorCode::kBudget,
              fmt::format("refused by policy {}: {}; nothing was started (make the changes "
                          "above, or pass --override REASON to go ahead and record why)",
                          policy.policy.Label(), rules));
}

Result<ledger::OverrideId> RecordOverride(ledger::Ledger& ledger, const Enforcement& e,
                                          const policy::ConfiguredPolicy& policy) {
  ledger::NewOverride record;
  record.time = ledger::Now();
  record.command = e.command;
  record.subject = e.subject_label;
  record.rules = policy::RuleNames(e.violations);
  record.reason = e.override_reason.value_or("");
  record.user_name = UserName();
  record.team = TagOf(e.tags, "team");
  record.project = TagOf(e.tags, "project");
  record.policy_source = policy.Source();
  return ledger.RecordOverride(record);
}

}  // namespace frugal::cli

#include "frugal/app/enforcement.h"

#include <fmt/format.h>
#include <pwd.h>
#include <unistd.h>

#include <cstdlib>

#include "frugal/core/text.h"

namespace frugal::app {
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

std::string Rules(const Enforcement& e) {
  return fmt::format("{}", fmt::join(policy::RuleNames(e.violations), ", "));
}

}  // namespace

Result<void> CheckOverrideReason(const std::optional<std::string>& reason) {
  if (reason && Trim(*reason).empty()) {
    return Fail(ErrorCode::kBadInput,
                "option --override: give the reason for overriding the policy (it is recorded)");
  }
  return {};
}

nlohmann::json ViolationsJson(const std::vector<policy::Violation>& violations) {
  nlohmann::json list = nlohmann::json::array();
  for (const policy::Violation& v : violations) {
    list.push_back({{"rule", v.rule}, {"message", v.message}, {"fix", v.fix}});
  }
  return list;
}

nlohmann::json RefusalJson(const Enforcement& e, const policy::ConfiguredPolicy& policy) {
  return {{"refused", true},
          {"command", e.command},
          {"subject", e.subject_label},
          {"policy", policy.policy.name},
          {"policy_version", policy.policy.version},
          {"policy_file", policy.location.path.string()},
          {"violations", ViolationsJson(e.violations)}};
}

Error RefusalError(const Enforcement& e, const policy::ConfiguredPolicy& policy) {
  return Error{ErrorCode::kBudget,
               fmt::format("refused by policy {}: {}; nothing was started (make the changes "
                           "above, or pass --override REASON to go ahead and record why)",
                           policy.policy.Label(), Rules(e))};
}

std::string OverrideWarning(const Enforcement& e, const policy::ConfiguredPolicy& policy) {
  return fmt::format("{} violates policy {} ({}); overridden: {}", e.subject_label,
                     policy.policy.Label(), Rules(e), e.override_reason.value_or(""));
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

}  // namespace frugal::app

#include "policy_gate.h"

#include <fmt/format.h>

#include <ostream>

namespace frugal::cli {

void AddOverrideOption(CLI::App* cmd, std::optional<std::string>& reason) {
  cmd->add_option("--override", reason,
                  "Go ahead despite the team's GPU policy; the reason is recorded in the ledger "
                  "and listed by `frugal audit` and `frugal policy overrides`");
}

Result<std::optional<policy::ConfiguredPolicy>> PolicyInEffect(const GlobalOptions& global,
                                                               const catalog::Catalog& catalog) {
  return policy::LoadConfiguredPolicy(global.policy, catalog);
}

void PrintViolation(std::ostream& out, const policy::Violation& v) {
  out << fmt::format("  {}: {}\n    fix: {}\n", v.rule, v.message, v.fix);
}

Result<void> RefuseUnlessOverridden(const Enforcement& e, const policy::ConfiguredPolicy& policy,
                                    const GlobalOptions& global, Streams& s) {
  if (e.violations.empty()) return {};
  if (e.override_reason) {
    s.err << "frugal: warning: " << app::OverrideWarning(e, policy) << "\n";
    return {};
  }
  ShowRefusal(e, policy, global, s);
  return tl::unexpected(app::RefusalError(e, policy));
}

void ShowRefusal(const Enforcement& e, const policy::ConfiguredPolicy& policy,
                 const GlobalOptions& global, Streams& s) {
  if (global.json) {
    WriteJson(s, app::RefusalJson(e, policy));
  } else {
    s.err << fmt::format("{} violates policy {} ({}):\n", e.subject_label, policy.policy.Label(),
                         policy.location.path.string());
    for (const policy::Violation& v : e.violations) PrintViolation(s.err, v);
  }
}

}  // namespace frugal::cli

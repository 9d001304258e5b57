#pragma once
// Enforcing the team's GPU policy in `plan`, `run` and `tune`: finding the policy in effect,
// refusing a subject that violates it (exit 3, every violation with its rule and fix, before
// anything starts or is written), and recording `--override REASON` in the ledger.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app.h"
#include "frugal/ledger/ledger.h"
#include "frugal/policy/configured.h"

namespace frugal::cli {

/// Adds `--override REASON` to a command.
void AddOverrideOption(CLI::App* cmd, std::optional<std::string>& reason);

/// kBadInput when --override was given an empty or blank reason. Commands call it before any
/// other work.
[[nodiscard]] Result<void> CheckOverrideReason(const std::optional<std::string>& reason);

/// The policy in effect for this command: --policy, $FRUGAL_POLICY, or the config dir's
/// policy.yaml; nullopt when none is configured.
[[nodiscard]] Result<std::optional<policy::ConfiguredPolicy>> PolicyInEffect(
    const GlobalOptions& global, const catalog::Catalog& catalog);

/// What a command asks the policy about.
struct Enforcement {
  std::string command;                      ///< plan, run, tune
  std::string subject_label;                ///< "job llama-7b", "run r-1 (job llama-7b)", "study s"
  std::map<std::string, std::string> tags;  ///< the subject's; team and project are recorded
  std::vector<policy::Violation> violations;
  std::optional<std::string> override_reason;
};

/// The policy in effect for a command (none configured: nullopt) and what it found.
struct PolicyCheck {
  std::optional<policy::ConfiguredPolicy> policy;
  Enforcement enforcement;
};

/// No violation: returns. Violations without --override: prints each (rule, message, fix) to
/// stderr, or as one JSON document on stdout with --json, and returns kBudget (exit 3) naming
/// the policy and the rules. With --override: prints a warning and returns, so the command
/// proceeds and calls RecordOverride once its ledger is open.
[[nodiscard]] Result<void> RefuseUnlessOverridden(const Enforcement& e,
                                                  const policy::ConfiguredPolicy& policy,
                                                  const GlobalOptions& global, Streams& s);

/// Records the override of `e` (which must have violations and a reason) in `ledger`.
[[nodiscard]] Result<ledger::OverrideId> RecordOverride(ledger::Ledger& ledger,
                                                        const Enforcement& e,
                                                        const policy::ConfiguredPolicy& policy);

/// Prints one violation as the refusal and `policy check` do: "  rule: message\n    fix: ...".
void PrintViolation(std::ostream& out, const policy::Violation& v);
nlohmann::json ViolationsJson(const std::vector<policy::Violation>& violations);

}  // namespace frugal::cli

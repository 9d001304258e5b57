#pragma once
// Enforcing the team's GPU policy in `plan`, `run` and `tune`: finding the policy in effect,
// refusing a subject that violates it (exit 3, every violation with its rule and fix, before
// anything starts or is written), and recording `--override REASON` in the ledger.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "app.h"
#include "frugal/app/enforcement.h"
#include "frugal/ledger/ledger.h"
#include "frugal/policy/configured.h"

namespace frugal::cli {

/// Adds `--override REASON` to a command.
void AddOverrideOption(CLI::App* cmd, std::optional<std::string>& reason);

/// kBadInput when --override was given an empty or blank reason. Commands call it before any
/// other work.
using app::CheckOverrideReason;

/// The policy in effect for this command: --policy, $FRUGAL_POLICY, or the config dir's
/// policy.yaml; nullopt when none is configured.
[[nodiscard]] Result<std::optional<policy::ConfiguredPolicy>> PolicyInEffect(
    const GlobalOptions& global, const catalog::Catalog& catalog);

/// What a command asks the policy about (app/enforcement.h).
using app::Enforcement;

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

/// Shows the refusal of `e`: each violation on stderr, or its JSON document with --json.
void ShowRefusal(const Enforcement& e, const policy::ConfiguredPolicy& policy,
                 const GlobalOptions& global, Streams& s);

/// Records the override of `e` (which must have violations and a reason) in `ledger`.
using app::RecordOverride;

/// Prints one violation as the refusal and `policy check` do: "  rule: message\n    fix: ...".
void PrintViolation(std::ostream& out, const policy::Violation& v);
using app::ViolationsJson;

}  // namespace frugal::cli

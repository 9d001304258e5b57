#pragma once
// Enforcing the team's GPU policy, the part every front end shares: what a command asks the
// policy about, the refusal (its JSON document and its error), and recording an override in
// the ledger. Printing the refusal is the front end's.

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"
#include "frugal/policy/configured.h"

namespace frugal::app {

/// What a command asks the policy about.
struct Enforcement {
  std::string command;                      ///< plan, run, tune
  std::string subject_label;                ///< "job llama-7b", "run r-1 (job llama-7b)", "study s"
  std::map<std::string, std::string> tags;  ///< the subject's; team and project are recorded
  std::vector<policy::Violation> violations;
  std::optional<std::string> override_reason;
};

/// kBadInput when an override was given an empty or blank reason.
[[nodiscard]] Result<void> CheckOverrideReason(const std::optional<std::string>& reason);

/// The violations as a JSON list of {rule, message, fix}.
[[nodiscard]] nlohmann::json ViolationsJson(const std::vector<policy::Violation>& violations);

/// The refusal of `e` as one JSON document: {refused, command, subject, policy, ...}.
[[nodiscard]] nlohmann::json RefusalJson(const Enforcement& e,
                                         const policy::ConfiguredPolicy& policy);

/// The error a refusal returns: kBudget (exit 3, HTTP 409) naming the policy and the rules.
[[nodiscard]] Error RefusalError(const Enforcement& e, const policy::ConfiguredPolicy& policy);

/// "job x violates policy p v1 (rules); overridden: reason": the warning an override gives.
[[nodiscard]] std::string OverrideWarning(const Enforcement& e,
                                          const policy::ConfiguredPolicy& policy);

/// Records the override of `e` (which must have violations and a reason) in `ledger`.
[[nodiscard]] Result<ledger::OverrideId> RecordOverride(ledger::Ledger& ledger,
                                                        const Enforcement& e,
                                                        const policy::ConfiguredPolicy& policy);

}  // namespace frugal::app

#pragma once
// Where the team's policy is found, so `plan`, `run` and `tune` enforce it without being told
// each time. Lookup order (docs/policy.md):
//   1. the global option --policy FILE
//   2. $FRUGAL_POLICY (ignored when empty)
//   3. <user config dir>/policy.yaml, when it exists (UserConfigDir(): $FRUGAL_HOME/config,
//      else $XDG_CONFIG_HOME/frugal, else ~/.config/frugal)
// A file named by 1 or 2 must exist: a typo never switches enforcement off silently.

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

#include "frugal/policy/policy.h"

namespace frugal::policy {

enum class PolicyOrigin { kFlag, kEnv, kConfigDir };

/// "--policy", "FRUGAL_POLICY", "config dir".
[[nodiscard]] std::string_view OriginName(PolicyOrigin origin);

struct PolicyLocation {
  std::filesystem::path path;
  PolicyOrigin origin = PolicyOrigin::kConfigDir;
};

/// The policy file in effect for `flag` (the --policy value, "" when not given); nullopt when
/// none is configured. Does not check that a named file exists.
[[nodiscard]] std::optional<PolicyLocation> FindPolicy(const std::string& flag);

/// A loaded policy and where it came from.
struct ConfiguredPolicy {
  Policy policy;
  PolicyLocation location;
  /// "ml-platform v3 (/etc/frugal/policy.yaml)": what overrides record as the policy source.
  [[nodiscard]] std::string Source() const;
};

/// Finds and loads the policy in effect; nullopt when none is configured. kBadInput when a
/// file named by --policy or $FRUGAL_POLICY does not exist, or the policy is malformed
/// (file:line:col and field).
[[nodiscard]] Result<std::optional<ConfiguredPolicy>> LoadConfiguredPolicy(
    const std::string& flag, const catalog::Catalog& catalog);

}  // namespace frugal::policy

#include "frugal/policy/configured.h"

#include <fmt/format.h>

#include <cstdlib>

#include "frugal/core/paths.h"

namespace frugal::policy {

std::string_view OriginName(PolicyOrigin origin) {
  switch (origin) {
    case PolicyOrigin::kFlag:
      return "--policy";
    case PolicyOrigin::kEnv:
      return "FRUGAL_POLICY";
    case PolicyOrigin::kConfigDir:
      return "config dir";
  }
  return "?";
}

std::optional<PolicyLocation> FindPolicy(const std::string& flag) {
  // Absolute, so an override recorded from one directory names the same file as another's.
  std::error_code ec;
  if (!flag.empty())
    return PolicyLocation{std::filesystem::absolute(flag, ec), PolicyOrigin::kFlag};
  if (const char* env = std::getenv("FRUGAL_POLICY"); env != nullptr && *env != '\0') {
    return PolicyLocation{std::filesystem::absolute(env, ec), PolicyOrigin::kEnv};
  }
  std::filesystem::path in_config = UserConfigDir() / "policy.yaml";
  if (std::filesystem::exists(in_config, ec)) {
    return PolicyLocation{std::move(in_config), PolicyOrigin::kConfigDir};
  }
  return std::nullopt;
}

std::string ConfiguredPolicy::Source() const {
  return fmt::format("{} ({})", policy.Label(), location.path.string());
}

Result<std::optional<ConfiguredPolicy>> LoadConfiguredPolicy(const std::string& flag,
                                                             const catalog::Catalog& catalog) {
  std::optional<PolicyLocation> location = FindPolicy(flag);
  if (!location) return std::optional<ConfiguredPolicy>();
  std::error_code ec;
  if (!std::filesystem::exists(location->path, ec)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: policy file named by {} does not exist", location->path.string(),
                            OriginName(location->origin)));
  }
  Policy p = FRUGAL_TRY(LoadPolicy(location->path, catalog));
  return std::optional<ConfiguredPolicy>(ConfiguredPolicy{std::move(p), std::move(*location)});
}

}  // namespace frugal::policy

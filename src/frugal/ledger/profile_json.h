#pragma once
// The JSON documents of measured profiles: what `frugal profile`, `profile show` and
// `profile list` print with --json, built once here for any front end.

#include <nlohmann/json.hpp>
#include <vector>

#include "frugal/ledger/profiles.h"

namespace frugal::ledger {

/// One profile: id, name, time, command, device (name, kind, count), the rates (tokens and
/// samples per second null when not measured), steps, measured and wall seconds, peak GPU
/// memory (null without NVML) and RSS bytes, CPU cores, what ended it and its run id (or null).
[[nodiscard]] nlohmann::json ProfileJson(const Profile& p);

/// A list of profiles: {"profiles": [...]}.
[[nodiscard]] nlohmann::json ProfileListJson(const std::vector<Profile>& profiles);

}  // namespace frugal::ledger

#pragma once
// Who runs a cloud's machines, from data/catalog/providers.csv (format version 1: a header row
// `cloud,hosts,source`, then one row per cloud; `hosts` is `provider` when the cloud runs its
// own data-centre hosts, `marketplace` when independent hosts list their machines on it).
// A marketplace host carries no uptime commitment: production serving that does not tolerate
// interruption is not placed there unless the spec names the cloud (serving_plan.cc).

#include <filesystem>
#include <set>
#include <string>

#include "frugal/core/error.h"

namespace frugal::catalog {

/// The clouds whose hosts are a marketplace's. kBadInput names file, line and field on a row
/// whose `hosts` is neither provider nor marketplace, or a cloud listed twice.
[[nodiscard]] Result<std::set<std::string, std::less<>>> ReadMarketplaces(
    const std::filesystem::path& path);

}  // namespace frugal::catalog

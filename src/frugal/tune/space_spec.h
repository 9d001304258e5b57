#pragma once
// The `space:` section of a study spec: each parameter's type, bounds or choices, and the
// conditions under which it is active, checked against the parameters declared above it.

#include "frugal/core/error.h"
#include "frugal/core/yaml.h"
#include "frugal/tune/search_space.h"

namespace frugal::tune {

/// The parameters of `node` in order (an empty space when it is absent); bad input names the
/// file, line and field.
[[nodiscard]] Result<SearchSpace> ParseSpace(const YamlDoc& doc, const YAML::Node& node);

}  // namespace frugal::tune

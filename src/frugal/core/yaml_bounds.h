#pragma once
// Bounded reads from a YAML mapping, shared by the spec readers (job, inference).

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "frugal/core/error.h"
#include "frugal/core/yaml.h"

namespace frugal {

/// `map[key]` as an integer in [low, high] when present; nullopt when absent; kBadInput at the
/// value's line ("must be between low and high, got v") otherwise.
[[nodiscard]] inline Result<std::optional<int>> OptionalIntIn(const YamlDoc& doc,
                                                              const YAML::Node& map,
                                                              std::string_view key, int64_t low,
                                                              int64_t high) {
  const auto v = FRUGAL_TRY(doc.OptionalInt(map, key));
  if (!v) return std::optional<int>();
  if (*v < low || *v > high) {
    return Fail(doc.ErrorAt(map[std::string(key)], key,
                            fmt::format("must be between {} and {}, got {}", low, high, *v)));
  }
  return std::optional<int>(static_cast<int>(*v));
}

}  // namespace frugal

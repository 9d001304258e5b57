#pragma once
// Small text helpers shared by every parser: strict number parsing, splitting, suggestions.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"

namespace frugal {

[[nodiscard]] std::string_view Trim(std::string_view s);
[[nodiscard]] std::string ToLower(std::string_view s);
[[nodiscard]] std::vector<std::string> Split(std::string_view s, char separator);

/// Strict: the whole text must be a finite number ("1e3", "-2.5"); kBadInput otherwise.
[[nodiscard]] Result<double> ParseDouble(std::string_view text);
/// Strict integer parse; kBadInput otherwise.
[[nodiscard]] Result<int64_t> ParseInt(std::string_view text);
/// A count with an optional k/m/b/t suffix ("7b", "2t", "350m", "7e9"), as a double.
[[nodiscard]] Result<double> ParseCount(std::string_view text);

/// The candidate closest to `word` by edit distance, when it is close enough to be a likely
/// typo (distance ≤ max(2, len/3)); used for "did you mean" hints.
[[nodiscard]] std::optional<std::string> Suggest(std::string_view word,
                                                 std::span<const std::string> candidates);
/// " (did you mean 'x'?)" or "" when nothing is close.
[[nodiscard]] std::string DidYouMean(std::string_view word,
                                     std::span<const std::string> candidates);

/// `text` safe inside XML/HTML/SVG text and attribute values (& < > " ' escaped).
[[nodiscard]] std::string XmlEscape(std::string_view text);

}  // namespace frugal

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
/// A count with an optional k/m/b/t suffix ("7b", "2t", "350m", "7e9"), or g for giga (the same
/// as b: "8.2g" FLOPs), as a double.
[[nodiscard]] Result<double> ParseCount(std::string_view text);

/// The candidate closest to `word` by edit distance, when it is close enough to be a likely
/// typo (distance ≤ max(2, len/3)); used for "did you mean" hints.
[[nodiscard]] std::optional<std::string> Suggest(std::string_view word,
                                                 std::span<const std::string> candidates);
/// " (did you mean 'x'?)" or "" when nothing is close.
[[nodiscard]] std::string DidYouMean(std::string_view word,
                                     std::span<const std::string> candidates);

/// Offset of the first byte of `text` that is not part of well-formed UTF-8 (an invalid lead
/// byte, a cut-off or overlong sequence, a surrogate, a code point past U+10FFFF); nullopt
/// when the whole text is UTF-8.
[[nodiscard]] std::optional<size_t> FirstInvalidUtf8(std::string_view text);
/// "line:column" (1-based, columns counted in bytes) of byte `offset` of `text`.
[[nodiscard]] std::string LineColumnAt(std::string_view text, size_t offset);
/// kBadInput "source:line:col: byte 0xFF is not UTF-8 (...)" for the first invalid byte of
/// `text`, which every reader of outside text refuses before parsing it.
[[nodiscard]] Result<void> RequireUtf8(std::string_view text, std::string_view source);
/// `value` cut to at most `max_bytes` for echoing in a message ("abc… (20000 bytes)"), never
/// cutting a UTF-8 sequence in two.
[[nodiscard]] std::string Abbreviate(std::string_view value, size_t max_bytes = 80);

/// "1 GPU", "2 GPUs", "0 runs": a count and its noun, plural unless the count is 1 (the noun's
/// plural is the noun + "s").
[[nodiscard]] std::string Counted(int64_t count, std::string_view noun);

/// `text` safe inside XML/HTML/SVG text and attribute values (& < > " ' escaped).
[[nodiscard]] std::string XmlEscape(std::string_view text);

}  // namespace frugal

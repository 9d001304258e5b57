#include "frugal/core/text.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace frugal {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::vector<std::string> Split(std::string_view s, char separator) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    const size_t pos = s.find(separator, start);
    parts.emplace_back(s.substr(start, pos == std::string_view::npos ? pos : pos - start));
    if (pos == std::string_view::npos) break;
    start = pos + 1;
  }
  return parts;
}

Result<double> ParseDouble(std::string_view text) {
  const std::string_view t = Trim(text);
  double value = 0;
  const char* begin = t.data();
  const char* end = t.data() + t.size();
  if (!t.empty() && *begin == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (!t.empty() && ec == std::errc::result_out_of_range && ptr == end) {
    return Fail(ErrorCode::kBadInput, fmt::format("'{}' is out of range", text));
  }
  if (t.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
    return Fail(ErrorCode::kBadInput, fmt::format("'{}' is not a number", text));
  }
  if (value != 0 && std::fabs(value) < std::numeric_limits<double>::min()) {
    // A subnormal (1e-320) has lost its precision: no quantity frugal reads is that small.
    return Fail(ErrorCode::kBadInput,
                fmt::format("'{}' is out of range (too close to zero)", text));
  }
  return value;
}

Result<int64_t> ParseInt(std::string_view text) {
  const std::string_view t = Trim(text);
  int64_t value = 0;
  const char* begin = t.data();
  const char* end = t.data() + t.size();
  if (!t.empty() && *begin == '+') ++begin;
  const auto [ptr, ec] = std::from_chars(begin, end, value);
  if (t.empty() || ec != std::errc() || ptr != end) {
    return Fail(ErrorCode::kBadInput, fmt::format("'{}' is not an integer", text));
  }
  return value;
}

Result<double> ParseCount(std::string_view text) {
  std::string_view t = Trim(text);
  double multiplier = 1;
  if (!t.empty()) {
    switch (std::tolower(static_cast<unsigned char>(t.back()))) {
      case 'k':
        multiplier = 1e3;
        break;
      case 'm':
        multiplier = 1e6;
        break;
      case 'b':
      case 'g':  // SI giga, as FLOP counts are written ("8.2g")
        multiplier = 1e9;
        break;
      case 't':
        multiplier = 1e12;
        break;
      default:
        break;
    }
    if (multiplier != 1) t.remove_suffix(1);
  }
  auto value = ParseDouble(t);
  if (!value || *value < 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("'{}' is not a count (expected e.g. 7b, 350m, 2t or 7e9)", text));
  }
  return *value * multiplier;
}

namespace {
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}
}  // namespace

std::optional<std::string> Suggest(std::string_view word, std::span<const std::string> candidates) {
  // A typo is short: a long value (a pasted file, a fuzzed field) gets no suggestion, so the
  // work stays bounded by kMaxSuggestLength × the candidates' lengths.
  constexpr size_t kMaxSuggestLength = 64;
  if (word.size() > kMaxSuggestLength) return std::nullopt;
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;
  for (const std::string& candidate : candidates) {
    // The distance is at least the difference in length.
    const size_t gap = candidate.size() > word.size() ? candidate.size() - word.size()
                                                      : word.size() - candidate.size();
    if (gap >= best_distance) continue;
    const size_t d = EditDistance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best;
}

std::string DidYouMean(std::string_view word, std::span<const std::string> candidates) {
  auto s = Suggest(word, candidates);
  return s ? fmt::format(" (did you mean '{}'?)", *s) : std::string();
}

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto lead = static_cast<unsigned char>(text[i]);
    if (lead < 0x80) {
      ++i;
      continue;
    }
    size_t length = 0;
    uint32_t code = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
      length = 2;
      code = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
      length = 3;
      code = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
      length = 4;
      code = lead & 0x07u;
    } else {
      return i;  // a continuation byte, an overlong lead (C0, C1) or past F4
    }
    if (i + length > text.size()) return i;
    for (size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(text[i + k]);
      if ((next & 0xC0u) != 0x80u) return i;
      code = (code << 6) | (next & 0x3Fu);
    }
    const bool overlong = (length == 3 && code < 0x800) || (length == 4 && code < 0x10000);
    const bool surrogate = code >= 0xD800 && code <= 0xDFFF;
    if (overlong || surrogate || code > 0x10FFFF) return i;
    i += length;
  }
  return std::nullopt;
}

std::string LineColumnAt(std::string_view text, size_t offset) {
  size_t line = 1;
  size_t column = 1;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("{}:{}", line, column);
}

Result<void> RequireUtf8(std::string_view text, std::string_view source) {
  const std::optional<size_t> bad = FirstInvalidUtf8(text);
  if (!bad) return {};
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}:{}: byte 0x{:02X} is not UTF-8 (save the file as UTF-8 text)", source,
                          LineColumnAt(text, *bad),
                          static_cast<unsigned>(static_cast<unsigned char>(text[*bad]))));
}

std::string Abbreviate(std::string_view value, size_t max_bytes) {
  if (value.size() <= max_bytes) return std::string(value);
  size_t cut = max_bytes;
  // Back up to the start of a UTF-8 sequence.
  while (cut > 0 && (static_cast<unsigned char>(value[cut]) & 0xC0u) == 0x80u) --cut;
  return fmt::format("{}… ({} bytes)", value.substr(0, cut), value.size());
}

std::string XmlEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Counted(int64_t count, std::string_view noun) {
  std::string out = std::to_string(count);
  out += ' ';
  out += noun;
  if (count != 1) out += 's';
  return out;
}

}  // namespace frugal

#include "frugal/run/run_text.h"

#include <fmt/format.h>

#include <cstdint>

#include "frugal/core/text.h"

namespace frugal::run {
namespace {

/// The length of the well-formed UTF-8 character at the start of `text`, 0 when there is none
/// (RFC 3629's table of well-formed byte sequences).
size_t CharacterLength(std::string_view text) {
  const auto byte = [&text](size_t i) { return static_cast<uint8_t>(text[i]); };
  const auto continuation = [&](size_t i, uint8_t low = 0x80, uint8_t high = 0xBF) {
    return i < text.size() && byte(i) >= low && byte(i) <= high;
  };
  const uint8_t b0 = byte(0);
  if (b0 < 0x80) return 1;
  if (b0 >= 0xC2 && b0 <= 0xDF) return continuation(1) ? 2 : 0;
  if (b0 >= 0xE0 && b0 <= 0xEF) {
    const uint8_t low = b0 == 0xE0 ? 0xA0 : 0x80;   // no overlong forms
    const uint8_t high = b0 == 0xED ? 0x9F : 0xBF;  // no surrogates
    return continuation(1, low, high) && continuation(2) ? 3 : 0;
  }
  if (b0 >= 0xF0 && b0 <= 0xF4) {
    const uint8_t low = b0 == 0xF0 ? 0x90 : 0x80;   // no overlong forms
    const uint8_t high = b0 == 0xF4 ? 0x8F : 0xBF;  // nothing past U+10FFFF
    return continuation(1, low, high) && continuation(2) && continuation(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

bool IsUtf8(std::string_view text) { return !FirstInvalidUtf8(text).has_value(); }

std::string EscapeNonUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  while (!text.empty()) {
    const size_t n = CharacterLength(text);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<uint8_t>(text.front()));
      text.remove_prefix(1);
      continue;
    }
    out.append(text.substr(0, n));
    text.remove_prefix(n);
  }
  return out;
}

Result<void> CheckRunId(const std::string& id, std::string_view flag) {
  if (id.empty()) return Fail(ErrorCode::kBadInput, fmt::format("option {}: is empty", flag));
  if (!IsUtf8(id)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("option {}: '{}' is not UTF-8 text", flag, EscapeNonUtf8(id)));
  }
  if (id.size() > kMaxRunIdBytes) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("option {}: {} bytes is too long for a run id (at most {}: it names "
                            "the run's folder)",
                            flag, id.size(), kMaxRunIdBytes));
  }
  if (id.find('/') != std::string::npos || id.find("..") != std::string::npos) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("option {}: '{}' may not contain '/' or '..'", flag, id));
  }
  return {};
}

Result<void> CheckFlagText(std::string_view flag, const std::string& value) {
  if (IsUtf8(value)) return {};
  return Fail(ErrorCode::kBadInput,
              fmt::format("option {}: '{}' is not UTF-8 text", flag, EscapeNonUtf8(value)));
}

Result<void> CheckTagText(const std::string& key, const std::string& value, std::string_view flag) {
  for (const std::string* part : {&key, &value}) {
    if (!IsUtf8(*part)) {
      return Fail(ErrorCode::kBadInput, fmt::format("option {}: '{}={}' is not UTF-8 text", flag,
                                                    EscapeNonUtf8(key), EscapeNonUtf8(value)));
    }
  }
  return {};
}

}  // namespace frugal::run

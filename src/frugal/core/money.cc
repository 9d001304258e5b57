#include "frugal/core/money.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>

namespace frugal {
namespace {

// 128-bit intermediates keep rate × duration exact; a GNU extension g++ and clang share.
__extension__ typedef __int128 Int128;

constexpr int64_t kMaxMicros = 9'000'000'000'000'000'000;  // ±9 trillion dollars

// Rounds numerator/denominator to the nearest integer, half away from zero.
int64_t DivRound(Int128 numerator, Int128 denominator) {
  const bool negative = (numerator < 0) != (denominator < 0);
  Int128 n = numerator < 0 ? -numerator : numerator;
  const Int128 d = denominator < 0 ? -denominator : denominator;
  Int128 q = (n + d / 2) / d;
  return static_cast<int64_t>(negative ? -q : q);
}

std::string GroupThousands(int64_t whole) {
  std::string digits = std::to_string(whole);
  std::string out;
  const size_t n = digits.size();
  for (size_t i = 0; i < n; ++i) {
    if (i > 0 && (n - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace

namespace {
/// Rounds micro-dollars held in a double to the nearest micro, saturating at ±9 trillion dollars
/// (llround of a value beyond int64 is undefined; the old code printed "-$-9223372036854.-7758").
int64_t SaturatedMicros(double micros) {
  const double limit = static_cast<double>(kMaxMicros);
  if (std::isnan(micros)) return 0;
  if (micros >= limit) return kMaxMicros;
  if (micros <= -limit) return -kMaxMicros;
  return static_cast<int64_t>(std::llround(micros));
}

/// kBadInput naming the amount as written and what is wrong with it.
tl::unexpected<Error> BadAmount(std::string_view original, std::string_view why) {
  return Fail(ErrorCode::kBadInput, fmt::format("invalid amount '{}': {}", original, why));
}

/// Digits read from an amount: their value, how many, and (for the whole dollars) where the
/// reading stopped.
struct ParsedDigits {
  Int128 value = 0;
  int count = 0;
  size_t end = 0;
};

/// The whole dollars of `text`, up to its '.' or its end; thousands separators, when there are
/// any, sit every three digits.
Result<ParsedDigits> ParseWholeDollars(std::string_view text, std::string_view original) {
  ParsedDigits whole;
  int digits_since_comma = -1;  // -1: no comma seen yet
  size_t i = 0;
  for (; i < text.size() && text[i] != '.'; ++i) {
    const char c = text[i];
    if (c == ',') {
      if (whole.count == 0 || (digits_since_comma != -1 && digits_since_comma != 3) ||
          (digits_since_comma == -1 && whole.count > 3)) {
        return BadAmount(original, "misplaced thousands separator");
      }
      digits_since_comma = 0;
      continue;
    }
    if (c < '0' || c > '9') return BadAmount(original, fmt::format("unexpected character '{}'", c));
    whole.value = whole.value * 10 + (c - '0');
    ++whole.count;
    if (digits_since_comma != -1) ++digits_since_comma;
    if (whole.value > kMaxMicros) return BadAmount(original, "too large");
  }
  if (digits_since_comma != -1 && digits_since_comma != 3) {
    return BadAmount(original, "misplaced thousands separator");
  }
  whole.end = i;
  return whole;
}

/// The digits after the '.', in units of 10^-18 (digits past the 18th are dropped).
Result<ParsedDigits> ParseFractionDigits(std::string_view text, std::string_view original) {
  ParsedDigits fraction;
  for (const char c : text) {
    if (c < '0' || c > '9') return BadAmount(original, fmt::format("unexpected character '{}'", c));
    if (fraction.count < 18) {
      fraction.value = fraction.value * 10 + (c - '0');
      ++fraction.count;
    }
  }
  for (int k = fraction.count; k < 18; ++k) fraction.value *= 10;
  return fraction;
}
}  // namespace

Money Money::FromDollars(double dollars) {
  return Money(SaturatedMicros(dollars * static_cast<double>(kMicrosPerDollar)));
}

Result<Money> Money::FromDollarsChecked(double dollars) {
  constexpr double kMaxDollars =
      static_cast<double>(kMaxMicros) / static_cast<double>(kMicrosPerDollar);
  if (!std::isfinite(dollars) || std::abs(dollars) > kMaxDollars) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("invalid amount {:g}: beyond ±9 trillion dollars", dollars));
  }
  return FromDollars(dollars);
}

Result<Money> Money::Parse(std::string_view text) {
  const std::string original(text);
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (!text.empty() && text.front() == '$') text.remove_prefix(1);
  if (text.empty()) return BadAmount(original, "no digits");

  const ParsedDigits whole = FRUGAL_TRY(ParseWholeDollars(text, original));
  ParsedDigits fraction;  // in units of 10^-18
  if (whole.end < text.size()) {
    fraction = FRUGAL_TRY(ParseFractionDigits(text.substr(whole.end + 1), original));
  }
  if (whole.count == 0 && fraction.count == 0) return BadAmount(original, "no digits");
  // fraction is in 1e-18 dollars; micro-dollars = fraction / 1e12, rounded.
  const Int128 micros_fraction = (fraction.value + 500'000'000'000) / 1'000'000'000'000;
  const Int128 total = whole.value * kMicrosPerDollar + micros_fraction;
  if (total > kMaxMicros) return BadAmount(original, "too large");
  const auto micros = static_cast<int64_t>(total);
  return Money(negative ? -micros : micros);
}

std::string Money::ToString() const {
  const bool negative = micros_ < 0;
  const int64_t magnitude = negative ? -micros_ : micros_;
  std::string body;
  if (magnitude < kMicrosPerDollar) {
    const int64_t ten_thousandths = DivRound(magnitude, 100);
    body = fmt::format("{}.{:04d}", ten_thousandths / 10'000, ten_thousandths % 10'000);
  } else {
    const int64_t cents = DivRound(magnitude, 10'000);
    body = fmt::format("{}.{:02d}", GroupThousands(cents / 100), cents % 100);
  }
  return (negative ? "-$" : "$") + body;
}

std::string Money::ToPlainString() const {
  const bool negative = micros_ < 0;
  const int64_t magnitude = negative ? -micros_ : micros_;
  std::string s = fmt::format("{}{}.{:06d}", negative ? "-" : "", magnitude / kMicrosPerDollar,
                              magnitude % kMicrosPerDollar);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

Money Money::Scaled(double factor) const {
  return Money(SaturatedMicros(static_cast<double>(micros_) * factor));
}

double Money::RatioTo(Money denominator) const {
  if (denominator.micros_ == 0) return 0.0;
  return static_cast<double>(micros_) / static_cast<double>(denominator.micros_);
}

Money Rate::For(Duration d) const {
  return Money::FromMicros(DivRound(static_cast<Int128>(per_hour.micros()) * d.count(), 3'600'000));
}

Money Rate::ForHours(double hours) const { return per_hour.Scaled(hours); }

Result<Rate> Rate::Parse(std::string_view text) {
  std::string_view number = text;
  for (std::string_view suffix : {"/hour", "/hr", "/h"}) {
    if (number.size() > suffix.size() && number.ends_with(suffix)) {
      number.remove_suffix(suffix.size());
      break;
    }
  }
  auto money = Money::Parse(number);
  if (!money) {
    return Fail(ErrorCode::kBadInput, fmt::format("invalid rate '{}': expected dollars per hour "
                                                  "such as 3.06 or $3.06/h",
                                                  text));
  }
  if (*money < Money()) {
    return Fail(ErrorCode::kBadInput, fmt::format("invalid rate '{}': negative", text));
  }
  return Rate{*money};
}

}  // namespace frugal

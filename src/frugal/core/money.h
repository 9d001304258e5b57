#pragma once
// Money is exact: a signed count of micro-dollars (USD). Rates are money per hour.

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"

namespace frugal {

class Money {
 public:
  static constexpr int64_t kMicrosPerDollar = 1'000'000;

  constexpr Money() = default;
  static constexpr Money FromMicros(int64_t micros) { return Money(micros); }
  /// Whole cents; convenient for tests and constants.
  static constexpr Money FromCents(int64_t cents) { return Money(cents * 10'000); }
  /// Rounds to the nearest micro-dollar (half away from zero). For converting model outputs
  /// (expected costs), never for reading prices: use Parse for those. Saturates at ±9 trillion
  /// dollars (the range Parse accepts); NaN gives zero.
  static Money FromDollars(double dollars);
  /// FromDollars for numbers read from input: kBadInput when `dollars` is not finite or beyond
  /// ±9 trillion dollars (the range Parse accepts), where the conversion would overflow.
  [[nodiscard]] static Result<Money> FromDollarsChecked(double dollars);

  /// Parses "$1,234.50", "1234.5", "0.0005", "-3". Digits beyond the sixth decimal are rounded
  /// half away from zero. Rejects empty strings, stray characters, misplaced separators and
  /// values beyond ±9 trillion dollars, with kBadInput.
  [[nodiscard]] static Result<Money> Parse(std::string_view text);

  [[nodiscard]] constexpr int64_t micros() const { return micros_; }
  [[nodiscard]] double dollars() const {
    return static_cast<double>(micros_) / static_cast<double>(kMicrosPerDollar);
  }
  [[nodiscard]] constexpr bool IsZero() const { return micros_ == 0; }

  /// "$1,460.00"; below one dollar (in magnitude) four decimals: "$0.5190". Rounds half away
  /// from zero.
  [[nodiscard]] std::string ToString() const;
  /// Plain decimal without currency or grouping, six decimals trimmed of trailing zeros
  /// ("0.519", "4"); for CSV and JSON where a number is wanted as text.
  [[nodiscard]] std::string ToPlainString() const;

  constexpr Money operator+(Money o) const { return Money(micros_ + o.micros_); }
  constexpr Money operator-(Money o) const { return Money(micros_ - o.micros_); }
  constexpr Money operator-() const { return Money(-micros_); }
  constexpr Money& operator+=(Money o) {
    micros_ += o.micros_;
    return *this;
  }
  constexpr Money& operator-=(Money o) {
    micros_ -= o.micros_;
    return *this;
  }
  constexpr Money operator*(int64_t n) const { return Money(micros_ * n); }
  /// Scales by a real factor (a discount, a share), rounded to the nearest micro-dollar;
  /// saturates at ±9 trillion dollars.
  [[nodiscard]] Money Scaled(double factor) const;
  /// Exact ratio of two amounts, as a double (for reporting shares).
  [[nodiscard]] double RatioTo(Money denominator) const;

  constexpr auto operator<=>(const Money&) const = default;

 private:
  constexpr explicit Money(int64_t micros) : micros_(micros) {}
  int64_t micros_ = 0;
};

/// A price per hour.
struct Rate {
  Money per_hour;

  /// Exact cost of running at this rate for `d` (rounded to the nearest micro-dollar, half
  /// away from zero). $4.00/h × 1h = $4.00; $1.40/h × 2.2h = $3.08.
  [[nodiscard]] Money For(Duration d) const;
  /// Cost for a fractional number of hours (model outputs), rounded to the micro-dollar.
  [[nodiscard]] Money ForHours(double hours) const;

  /// Parses "3.06", "$3.06/h", "3.06/hr". kBadInput on anything else.
  [[nodiscard]] static Result<Rate> Parse(std::string_view text);
  /// "$3.06/h"
  [[nodiscard]] std::string ToString() const { return per_hour.ToString() + "/h"; }

  constexpr auto operator<=>(const Rate&) const = default;
};

}  // namespace frugal

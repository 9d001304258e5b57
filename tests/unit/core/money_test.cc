#include "frugal/core/money.h"

#include <gtest/gtest.h>

#include <limits>

namespace frugal {
namespace {

Money P(const char* s) {
  auto m = Money::Parse(s);
  EXPECT_TRUE(m.has_value()) << s << ": " << (m ? "" : m.error().message);
  return m.value_or(Money());
}

TEST(Money, ParsesCurrencyGroupingAndDecimals) {
  EXPECT_EQ(P("$1,234.50").micros(), 1'234'500'000);
  EXPECT_EQ(P("1234.5").micros(), 1'234'500'000);
  EXPECT_EQ(P("0.0005").micros(), 500);
  EXPECT_EQ(P("-3").micros(), -3'000'000);
  EXPECT_EQ(P(".5").micros(), 500'000);
  EXPECT_EQ(P("1,000,000").micros(), 1'000'000'000'000);
  EXPECT_EQ(P(" 4 ").micros(), 4'000'000);
}

TEST(Money, RoundsBeyondMicrosHalfAwayFromZero) {
  EXPECT_EQ(P("0.0000005").micros(), 1);
  EXPECT_EQ(P("0.0000004").micros(), 0);
  EXPECT_EQ(P("-0.0000005").micros(), -1);
  EXPECT_EQ(P("33.60609").micros(), 33'606'090);
}

TEST(Money, FromDollarsCheckedRefusesWhatWouldOverflow) {
  EXPECT_EQ(Money::FromDollarsChecked(1.5e-7).value(), Money::FromMicros(0));
  EXPECT_EQ(Money::FromDollarsChecked(-2.25).value(), Money::FromMicros(-2'250'000));
  for (double bad : {1e300, -1e308, 9.3e12, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    auto m = Money::FromDollarsChecked(bad);
    EXPECT_FALSE(m.has_value()) << "accepted " << bad;
    if (!m) {
      EXPECT_EQ(m.error().code, ErrorCode::kBadInput);
    }
  }
}

TEST(Money, ScalingAndModelOutputsSaturateInsteadOfWrapping) {
  const Money max = Money::FromDollarsChecked(9e12).value();
  EXPECT_EQ(Money::FromDollars(1e300), max);
  EXPECT_EQ(Money::FromDollars(-1e300), -max);
  EXPECT_EQ(Money::FromDollars(std::numeric_limits<double>::quiet_NaN()), Money());
  EXPECT_EQ(Money::FromCents(4000).Scaled(1e22), max);
  EXPECT_EQ(Rate{Money::FromCents(4000)}.ForHours(1e22), max);
  EXPECT_EQ(Money::FromCents(4000).Scaled(0.5), Money::FromCents(2000));
}

TEST(Money, RejectsBadStrings) {
  for (const char* bad : {"", "$", "abc", "1.2.3", "1,23", "12,34.5", ",123", "1e5", "--1", "$-",
                          "1 000", "NaN", "99999999999999"}) {
    auto m = Money::Parse(bad);
    EXPECT_FALSE(m.has_value()) << "accepted '" << bad << "'";
    if (!m) {
      EXPECT_EQ(m.error().code, ErrorCode::kBadInput);
    }
  }
  // The character that does not belong is named (an amount takes no exponent).
  EXPECT_EQ(Money::Parse("1e400").error().message,
            "invalid amount '1e400': unexpected character 'e'");
}

TEST(Money, FormatsTwoDecimalsAndFourBelowOneDollar) {
  EXPECT_EQ(Money::FromCents(146'000).ToString(), "$1,460.00");
  EXPECT_EQ(Money::FromCents(1'752'000).ToString(), "$17,520.00");
  EXPECT_EQ(Money::FromMicros(519'000).ToString(), "$0.5190");
  EXPECT_EQ(Money::FromMicros(-2'500'000).ToString(), "-$2.50");
  EXPECT_EQ(Money::FromMicros(4'005'000).ToString(), "$4.01");
  EXPECT_EQ(Money().ToString(), "$0.0000");
  EXPECT_EQ(Money::FromMicros(519'000).ToPlainString(), "0.519");
  EXPECT_EQ(Money::FromMicros(4'000'000).ToPlainString(), "4");
}

TEST(Money, RateTimesDurationIsExact) {
  // The seed figures of DESIGN.md.
  EXPECT_EQ(Rate{P("4.00")}.For(std::chrono::hours(1)), P("4.00"));
  EXPECT_EQ(Rate{P("1.40")}.For(FromHours(2.2)), P("3.08"));
  // Four T4 at $0.50/h, 24/7: 730 h a month, 8760 h a year.
  EXPECT_EQ((Rate{P("0.50")}.For(std::chrono::hours(730)) * 4).ToString(), "$1,460.00");
  EXPECT_EQ((Rate{P("0.50")}.For(std::chrono::hours(8760)) * 4).ToString(), "$17,520.00");
  // One second at $3.60/h is exactly $0.001.
  EXPECT_EQ(Rate{P("3.60")}.For(std::chrono::seconds(1)).micros(), 1'000);
  // Sums of per-second accruals equal the whole (no drift).
  Money sum;
  for (int i = 0; i < 3600; ++i) sum += Rate{P("3.60")}.For(std::chrono::seconds(1));
  EXPECT_EQ(sum, Rate{P("3.60")}.For(std::chrono::hours(1)));
}

TEST(Money, ParsesRates) {
  EXPECT_EQ(Rate::Parse("3.06/h")->per_hour, P("3.06"));
  EXPECT_EQ(Rate::Parse("$3.06/hr")->per_hour, P("3.06"));
  EXPECT_EQ(Rate::Parse("2.5")->per_hour, P("2.5"));
  EXPECT_FALSE(Rate::Parse("-1/h").has_value());
  EXPECT_FALSE(Rate::Parse("3.06/day").has_value());
}

}  // namespace
}  // namespace frugal

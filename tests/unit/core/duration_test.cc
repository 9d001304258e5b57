#include "frugal/core/duration.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;

TEST(Duration, ParsesUnitsAndCompounds) {
  EXPECT_EQ(*ParseDuration("90s"), seconds(90));
  EXPECT_EQ(*ParseDuration("45m"), minutes(45));
  EXPECT_EQ(*ParseDuration("24h"), hours(24));
  EXPECT_EQ(*ParseDuration("3d"), hours(72));
  EXPECT_EQ(*ParseDuration("2h30m"), minutes(150));
  EXPECT_EQ(*ParseDuration("2.2h"), seconds(7920));
  EXPECT_EQ(*ParseDuration("1d12h"), hours(36));
  EXPECT_EQ(*ParseDuration("250ms"), Duration(250));
  EXPECT_EQ(*ParseDuration("1w"), hours(168));
}

TEST(Duration, RejectsBadStrings) {
  for (const char* bad : {"", "10", "h", "-5m", "5x", "1.2.3h", "5 m", "m5", "abc", "1..5h"}) {
    auto d = ParseDuration(bad);
    EXPECT_FALSE(d.has_value()) << "accepted '" << bad << "'";
    if (!d) {
      EXPECT_EQ(d.error().code, ErrorCode::kBadInput);
    }
  }
}

TEST(Duration, FormatsHumanized) {
  EXPECT_EQ(FormatDuration(minutes(125)), "2h05m");
  EXPECT_EQ(FormatDuration(minutes(45)), "45m");
  EXPECT_EQ(FormatDuration(seconds(90)), "1m30s");
  EXPECT_EQ(FormatDuration(hours(76)), "3d4h");
  EXPECT_EQ(FormatDuration(hours(2)), "2h");
  EXPECT_EQ(FormatDuration(Duration(850)), "850ms");
  EXPECT_EQ(FormatDuration(Duration(0)), "0ms");
  EXPECT_EQ(FormatDuration(seconds(7)), "7s");
}

TEST(Duration, ConvertsHours) {
  EXPECT_DOUBLE_EQ(ToHours(minutes(90)), 1.5);
  EXPECT_EQ(FromHours(2.2), seconds(7920));
}

}  // namespace
}  // namespace frugal

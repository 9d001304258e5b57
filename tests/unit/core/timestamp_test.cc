#include "frugal/core/timestamp.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

using std::chrono::milliseconds;

Timestamp At(int64_t ms) { return Timestamp(milliseconds(ms)); }

TEST(IsoTime, FormatsUtcWithMillisecondsAsAsked) {
  EXPECT_EQ(FormatIsoTime(At(1'764'620'100'000)), "2025-12-01T20:15:00Z");
  EXPECT_EQ(FormatIsoTime(At(1'764'620'100'250)), "2025-12-01T20:15:00.250Z");
  EXPECT_EQ(FormatIsoTime(At(1'764'620'100'000), IsoMillis::kAlways), "2025-12-01T20:15:00.000Z");
  EXPECT_EQ(FormatIsoTime(At(-1)), "1969-12-31T23:59:59.999Z");
}

TEST(IsoTime, ParsesWhatItFormatsAndTheUsualForms) {
  for (const int64_t ms : {int64_t{0}, int64_t{1'764'620'100'000}, int64_t{1'764'620'100'007}}) {
    for (const IsoMillis m : {IsoMillis::kWhenNonZero, IsoMillis::kAlways}) {
      EXPECT_EQ(*ParseIsoTime(FormatIsoTime(At(ms), m)), At(ms));
    }
  }
  EXPECT_EQ(*ParseIsoTime("2025-12-01"), At(1'764'547'200'000));
  EXPECT_EQ(*ParseIsoTime(" 2025-12-01 20:15:00 "), At(1'764'620'100'000));
  EXPECT_EQ(*ParseIsoTime("2025-12-01T20:15Z"), At(1'764'620'100'000));  // no seconds
  EXPECT_EQ(*ParseIsoTime("2025-12-01T20:15:00+00:00"), At(1'764'620'100'000));
  EXPECT_EQ(*ParseIsoTime("2025-12-01T20:15:00.1234567Z"), At(1'764'620'100'123));
  EXPECT_EQ(*ParseIsoTime("2024-02-29T00:00:00Z"), At(1'709'164'800'000));
}

TEST(IsoTime, RefusesEveryMalformedField) {
  for (const char* bad : {"", "2025", "2025-1-5", "2025-12-1T20:15:00Z", "2025-13-01", "2025-02-29",
                          "2025-12-32", "2025-12-01T24:00:00Z", "2025-12-01T20:60Z",
                          "2025-12-01T20:15:00.Z", "2025-12-01T20:15:00+05:00",
                          "2025-12-01T20:15:00Zjunk", "2025-12-01X20:15", "2025-12-01T2:15"}) {
    const Result<Timestamp> r = ParseIsoTime(bad);
    EXPECT_FALSE(r.has_value()) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
      EXPECT_NE(r.error().message.find("invalid time"), std::string::npos);
    }
  }
}

TEST(MonthStart, TheFirstInstantOfTheMonthSoManyMonthsOn) {
  const Timestamp mid = ParseIsoTime("2026-12-02T05:03:14.250Z").value();
  EXPECT_EQ(FormatIsoTime(MonthStart(mid)), "2026-12-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTime(MonthStart(mid, 1)), "2027-01-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTime(MonthStart(mid, -12)), "2025-12-01T00:00:00Z");
  EXPECT_EQ(FormatIsoTime(MonthStart(mid, 14)), "2028-02-01T00:00:00Z");
  // The last millisecond of a month is still in it; the next is the next month's first.
  const Timestamp last = ParseIsoTime("2028-02-29T23:59:59.999Z").value();
  EXPECT_EQ(FormatIsoTime(MonthStart(last)), "2028-02-01T00:00:00Z");
  EXPECT_EQ(MonthStart(last + milliseconds(1)), last + milliseconds(1));
  // Before the epoch as after it.
  EXPECT_EQ(FormatIsoTime(MonthStart(ParseIsoTime("1969-12-31T12:00:00Z").value(), 1)),
            "1970-01-01T00:00:00Z");
}

TEST(PeriodAround, EachCalendarPeriodHoldsItsInstantFromItsFirstToTheNextsFirst) {
  const auto bounds = [](CalendarPeriod p, const char* at) {
    const PeriodBounds b = PeriodAround(p, ParseIsoTime(at).value());
    return FormatIsoTime(b.start) + " " + FormatIsoTime(b.end);
  };
  // 2026-11-29 is a Sunday: its week began on Monday the 23rd.
  EXPECT_EQ(bounds(CalendarPeriod::kWeek, "2026-11-29T23:59:59.999Z"),
            "2026-11-23T00:00:00Z 2026-11-30T00:00:00Z");
  EXPECT_EQ(bounds(CalendarPeriod::kWeek, "2026-11-30T00:00:00Z"),
            "2026-11-30T00:00:00Z 2026-12-07T00:00:00Z");
  EXPECT_EQ(bounds(CalendarPeriod::kWeek, "1970-01-01T12:00:00Z"),  // a Thursday
            "1969-12-29T00:00:00Z 1970-01-05T00:00:00Z");
  EXPECT_EQ(bounds(CalendarPeriod::kMonth, "2028-02-29T12:00:00Z"),
            "2028-02-01T00:00:00Z 2028-03-01T00:00:00Z");
  EXPECT_EQ(bounds(CalendarPeriod::kQuarter, "2026-12-31T23:59:59Z"),
            "2026-10-01T00:00:00Z 2027-01-01T00:00:00Z");
  EXPECT_EQ(bounds(CalendarPeriod::kQuarter, "2026-04-01T00:00:00Z"),
            "2026-04-01T00:00:00Z 2026-07-01T00:00:00Z");
  EXPECT_EQ(bounds(CalendarPeriod::kYear, "2026-07-15T08:00:00Z"),
            "2026-01-01T00:00:00Z 2027-01-01T00:00:00Z");
  EXPECT_EQ(CalendarPeriodName(CalendarPeriod::kQuarter), "quarter");
}

}  // namespace
}  // namespace frugal

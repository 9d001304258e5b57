// The --since/--until window every report, export, audit and API request reads.

#include "frugal/ledger/window.h"

#include <gtest/gtest.h>

namespace frugal::ledger {
namespace {

const Timestamp kNow = *ParseTimestamp("2026-12-01T12:00:00Z");

TEST(TimeWindow, ReadsADurationBackAndDefaultsUntilToNow) {
  const Result<TimeWindow> w = ParseWindow("7d", "", kNow, "--");
  ASSERT_TRUE(w) << w.error().message;
  EXPECT_EQ(FormatTimestamp(w->since), "2026-11-24T12:00:00Z");
  EXPECT_EQ(w->until, kNow);
  const Result<TimeWindow> dates = ParseWindow("2026-11-01", "2026-11-02", kNow, "");
  ASSERT_TRUE(dates) << dates.error().message;
  EXPECT_EQ(FormatTimestamp(dates->until), "2026-11-02T00:00:00Z");
}

TEST(TimeWindow, ASinceInTheFutureNamesSinceNotUntil) {
  const Result<TimeWindow> w = ParseWindow("2027-01-01", "", kNow, "--");
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().code, ErrorCode::kBadInput);
  EXPECT_TRUE(w.error().message.starts_with("--since: '2027-01-01' is not in the past"))
      << w.error().message;
  EXPECT_EQ(w.error().message.find("must be after"), std::string::npos) << w.error().message;
  const Result<Timestamp> since = ParseSince("2027-01-01", kNow, "");
  ASSERT_FALSE(since);
  EXPECT_TRUE(since.error().message.starts_with("since: ")) << since.error().message;
}

TEST(TimeWindow, AnUntilNotAfterSinceNamesUntil) {
  const Result<TimeWindow> w = ParseWindow("2026-11-05", "2026-11-01", kNow, "--");
  ASSERT_FALSE(w);
  EXPECT_TRUE(w.error().message.starts_with("--until: 2026-11-01T00:00:00Z is not after --since"))
      << w.error().message;
}

TEST(TimeWindow, ATimeThatDoesNotParseNamesItsField) {
  const Result<TimeWindow> w = ParseWindow("7d", "yesterday", kNow, "");
  ASSERT_FALSE(w);
  EXPECT_TRUE(w.error().message.starts_with("until: invalid time 'yesterday'"))
      << w.error().message;
}

}  // namespace
}  // namespace frugal::ledger

// What a run's journal says earlier attempts used (ReadJournalHistory): the budget guard of
// the next attempt starts from it, so each attempt must count once.

#include <gtest/gtest.h>

#include "frugal/run/run_journal.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

const WallTime kT0 = *ParseWallTime("2026-11-26T10:00:00.000Z");
const Rate k36PerHour{Money::FromCents(3600)};  // a cent a second

/// One attempt at $36/h whose supervisor is killed: started at `t0`, its segment open from
/// +10 ms, a heartbeat at +5 s carrying the caps' count (`prior` plus its own 5 s, as the
/// supervisor's guard counts), nothing after.
void RecordKilledAttempt(RunJournal& journal, int attempt, WallTime t0, const BudgetUsage& prior) {
  RunStart start;
  start.run_id = "cap1";
  start.attempt = attempt;
  start.at = t0;
  start.command = {"sleep", "100"};
  start.price = k36PerHour;
  start.gpus = 1;
  journal.RunStarted(start);
  journal.SegmentOpened({attempt, t0 + milliseconds(10), std::nullopt, 0});
  Heartbeat beat;
  beat.segment = attempt;
  beat.at = t0 + seconds(5);
  beat.usage = prior;
  beat.usage.AddHeld(seconds(5), k36PerHour, 1);
  journal.RecordHeartbeat(beat);
}

TEST(JournalHistory, EachKilledAttemptCountsOnceThoughItsHeartbeatsIncludeTheEarlierOnes) {
  frugal::testing::TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    RunJournal journal(path);
    RecordKilledAttempt(journal, 1, kT0, {});
  }
  for (int attempt = 2; attempt <= 3; ++attempt) {
    // The next supervisor closes the lost attempt, then its own guard starts from the history.
    const JournalHistory before = ReadJournalHistory(path);
    ASSERT_TRUE(before.unfinished_attempt);
    RunJournal journal(path);
    CloseLostAttempt(before, *before.last_seen, journal);
    const BudgetUsage prior = ReadJournalHistory(path).usage;
    EXPECT_EQ(prior.spent, Money::FromCents(int64_t{5} * (attempt - 1))) << "attempt " << attempt;
    RecordKilledAttempt(journal, attempt, kT0 + seconds(60 * attempt), prior);
  }
  // Three attempts of 5 s each: 15 s at a cent a second, 15 s of wall time.
  const JournalHistory h = ReadJournalHistory(path);
  EXPECT_EQ(h.attempts, 3);
  EXPECT_EQ(h.usage.spent, Money::FromCents(15));
  EXPECT_EQ(h.usage.wall, seconds(15));
  EXPECT_NEAR(h.usage.gpu_hours, 15.0 / 3600, 1e-9);
  // The journal's lost records carry each attempt's own usage.
  for (const nlohmann::json& r : ReadJournal(path)) {
    if (r["record"] == "run_finished") {
      EXPECT_EQ(r["usage"]["spent_micros"].get<int64_t>(), Money::FromCents(5).micros()) << r;
    }
  }
}

TEST(JournalTier, TheTierARunStartedOnIsWrittenByNameAndReadBack) {
  frugal::testing::TempDir dir;
  const auto path = dir / "journal.jsonl";
  {
    RunJournal journal(path);
    RunStart start;
    start.run_id = "t1";
    start.at = kT0;
    journal.RunStarted(start);  // --price alone: no tier stated
    start.attempt = 2;
    start.tier = CapacityTier::kOwned;
    journal.RunStarted(start);
  }
  const std::vector<nlohmann::json> records = ReadJournal(path);
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0]["tier"], "");
  EXPECT_EQ(records[1]["tier"], "owned");
  const Result<std::optional<CapacityTier>> none = JournalTier(records[0]);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_FALSE(none->has_value());
  const Result<std::optional<CapacityTier>> owned = JournalTier(records[1]);
  ASSERT_TRUE(owned) << owned.error().message;
  EXPECT_EQ(*owned, CapacityTier::kOwned);
  // A name that is no tier is refused, naming it and the tiers there are.
  const Result<std::optional<CapacityTier>> bad =
      JournalTier({{"record", "run_started"}, {"tier", "spott"}});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("unknown tier 'spott'"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace frugal::run

namespace frugal::run {
namespace {

TEST(JournalTime, ReadsOnlyTheTimesAJournalWrites) {
  const WallTime t = *ParseWallTime("2026-05-20T10:04:05.123Z");
  EXPECT_EQ(FormatWallTime(t), "2026-05-20T10:04:05.123Z");
  // A damaged record's time is no time: nothing is rolled over or guessed.
  for (const char* bad : {"2026-5-20T10:04:05.123Z", "2026-05-20T10:04:05.123Zjunk",
                          "2026-02-30T10:04:05.123Z", "2026-05-20T25:04:05.123Z", "yesterday"}) {
    EXPECT_FALSE(ParseWallTime(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace frugal::run

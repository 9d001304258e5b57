#include "frugal/run/deadline_advice.h"

#include <gtest/gtest.h>

#include "frugal/run/run_journal.h"

namespace frugal::run {
namespace {

using nlohmann::json;
using std::chrono::minutes;

const WallTime kT0 = *ParseWallTime("2026-05-20T10:00:00.000Z");

std::string At(Duration since_t0) { return FormatWallTime(kT0 + since_t0); }

// A spot run: 60 min on spot (first progress after 2 min, last checkpoint at 50 min),
// preempted, 20 min waiting for capacity, 30 min on spot (resumed after 3 min, checkpoint at
// 25 min), preempted again; asked 10 min later.
std::vector<json> Journal() {
  return {
      {{"record", "run_started"}, {"at", At(minutes(0))}, {"tier", "spot"}},
      {{"record", "segment_opened"}, {"at", At(minutes(0))}, {"segment", 1}},
      {{"record", "event"}, {"at", At(minutes(2))}, {"kind", "resumed"}, {"duration_ms", 120000}},
      {{"record", "event"}, {"at", At(minutes(50))}, {"kind", "checkpoint_committed"}},
      {{"record", "segment_closed"}, {"at", At(minutes(60))}, {"end", "preempted"}},
      {{"record", "run_finished"}, {"at", At(minutes(60))}, {"outcome", "preempted"}},
      {{"record", "run_started"}, {"at", At(minutes(80))}, {"tier", "spot"}},
      {{"record", "segment_opened"}, {"at", At(minutes(80))}, {"segment", 2}},
      {{"record", "event"}, {"at", At(minutes(83))}, {"kind", "resumed"}, {"duration_ms", 180000}},
      {{"record", "event"}, {"at", At(minutes(105))}, {"kind", "checkpoint_committed"}},
      {{"record", "segment_closed"}, {"at", At(minutes(110))}, {"end", "preempted"}},
  };
}

TEST(DeadlineAdvice, HistoryFromTheJournal) {
  const SpotHistory h = SpotHistoryOf(Journal(), kT0 + minutes(120));
  ASSERT_TRUE(h.first_start);
  EXPECT_EQ(*h.first_start, kT0);
  ASSERT_EQ(h.spans.size(), 4u);
  EXPECT_TRUE(h.spans[0].available);
  EXPECT_EQ(h.spans[0].length, minutes(60));
  EXPECT_FALSE(h.spans[1].available);
  EXPECT_EQ(h.spans[1].length, minutes(20));
  EXPECT_TRUE(h.spans[2].available);
  EXPECT_EQ(h.spans[2].length, minutes(30));
  EXPECT_FALSE(h.spans[3].available);  // still waiting
  EXPECT_EQ(h.spans[3].length, minutes(10));
  // 48 min saved in the first segment (2 → 50), 22 in the second (83 → 105).
  EXPECT_EQ(h.work_done, minutes(70));
  EXPECT_TRUE(h.waiting_for_spot);
}

TEST(DeadlineAdvice, OnlySegmentsOfAnAttemptOnSpotCountAsSpotAvailable) {
  // The same journal with each attempt's tier as given: off spot, or named by no tier at all,
  // its segments say nothing of spot; the waits after the preemptions still count.
  for (const json& tier : {json("on_demand"), json(""), json("spott")}) {
    std::vector<json> records = Journal();
    for (json& r : records) {
      if (r["record"] == "run_started") r["tier"] = tier;
    }
    const SpotHistory h = SpotHistoryOf(records, kT0 + minutes(120));
    ASSERT_EQ(h.spans.size(), 2u) << tier;
    EXPECT_FALSE(h.spans[0].available);
    EXPECT_EQ(h.spans[0].length, minutes(20));
    EXPECT_FALSE(h.spans[1].available);
  }
}

TEST(DeadlineAdvice, WaitsWithSpareTimeAndMovesToOnDemandWithout) {
  DeadlineAdviceConfig config;
  config.compute = minutes(240);
  config.changeover = minutes(6);
  config.deadline = minutes(600);  // 4 h of work left at 2 h elapsed: hours to spare
  auto loose = AdviseAfterPreemption(config, Journal(), kT0 + minutes(120));
  ASSERT_TRUE(loose) << loose.error().message;
  EXPECT_EQ(loose->tier, CapacityTier::kSpot);
  EXPECT_EQ(loose->advice.mode, spot::Mode::kIdle);
  EXPECT_EQ(loose->detail.rfind("wait_for_spot:", 0), 0u) << loose->detail;
  // 170 min of work left and 6 min of changeover at 120 min elapsed: a 300-minute deadline
  // leaves 4 min to spare, less than one more changeover.
  config.deadline = minutes(300);
  auto tight = AdviseAfterPreemption(config, Journal(), kT0 + minutes(120));
  ASSERT_TRUE(tight) << tight.error().message;
  EXPECT_EQ(tight->tier, CapacityTier::kOnDemand);
  EXPECT_EQ(tight->advice.work_left, minutes(170));
  EXPECT_NE(tight->detail.find("2h50m of work left"), std::string::npos) << tight->detail;
}

TEST(DeadlineAdvice, RejectsAJobWithoutCompute) {
  DeadlineAdviceConfig config;
  config.deadline = minutes(60);
  EXPECT_FALSE(AdviseAfterPreemption(config, Journal(), kT0));
}

}  // namespace
}  // namespace frugal::run

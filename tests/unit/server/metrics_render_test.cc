#include <gtest/gtest.h>

#include "frugal/server/metrics.h"

namespace frugal::server {
namespace {

using std::chrono::hours;

ledger::SegmentFact Fact(std::string team, CapacityTier tier, double per_hour,
                         ledger::Timestamp start, std::optional<ledger::Timestamp> end) {
  ledger::SegmentFact f;
  f.tags.team = std::move(team);
  f.segment.offer.tier = tier;
  f.segment.offer.gpu_count = 4;
  f.segment.offer.price = Rate{Money::FromDollars(per_hour)};
  f.segment.start = start;
  f.segment.end = end;
  return f;
}

TEST(RenderMetrics, CountersSumSegmentsAndGaugesCountOnlyOpenOnes) {
  ledger::FleetFacts facts;
  facts.now = ledger::FromMillis(100 * 3'600'000LL);
  facts.ended.push_back({"a", "", CapacityTier::kSpot, Money::FromDollars(4.0), 8 * 3600.0, 1});
  facts.open.push_back(Fact("a", CapacityTier::kSpot, 2.0, facts.now - hours(1), std::nullopt));
  facts.open.back().segment.run_id = 7;
  facts.checkpoint_write_seconds = {0.2, 3, 400};
  const std::string m = RenderMetrics(facts, {}, 0.001);
  EXPECT_NE(m.find("frugal_spend_dollars_total{team=\"a\",project=\"-\",tier=\"spot\"} 6\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("frugal_gpus_running{tier=\"spot\"} 4\n"), std::string::npos) << m;
  EXPECT_NE(m.find("frugal_runs_running{tier=\"spot\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("frugal_preemptions_total{tier=\"spot\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("frugal_gpu_seconds_total{team=\"a\",project=\"-\",tier=\"spot\"} 43200\n"),
            std::string::npos)
      << m;
  EXPECT_NE(m.find("frugal_checkpoint_commit_duration_seconds_bucket{le=\"0.25\"} 1\n"),
            std::string::npos);
  EXPECT_NE(m.find("frugal_checkpoint_commit_duration_seconds_bucket{le=\"300\"} 2\n"),
            std::string::npos);
  EXPECT_NE(m.find("frugal_checkpoint_commit_duration_seconds_bucket{le=\"+Inf\"} 3\n"),
            std::string::npos);
  EXPECT_NE(m.find("# TYPE frugal_spend_dollars_total counter\n"), std::string::npos);
}

TEST(RenderMetrics, EscapesLabelValues) {
  EXPECT_EQ(EscapeLabel("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  ledger::FleetFacts facts;
  facts.now = ledger::FromMillis(10 * 3'600'000LL);
  facts.open.push_back(
      Fact("say \"hi\"", CapacityTier::kSpot, 1.0, facts.now - hours(1), facts.now));
  const std::string m = RenderMetrics(facts, {}, 0);
  EXPECT_NE(m.find("team=\"say \\\"hi\\\"\""), std::string::npos) << m;
}

}  // namespace
}  // namespace frugal::server

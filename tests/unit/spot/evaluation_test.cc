#include "frugal/spot/evaluation.h"

#include <gtest/gtest.h>

#include "frugal/spot/run_plot.h"
#include "frugal/spot/trace_synthetic.h"

namespace frugal::spot {
namespace {

EvaluationConfig SmallConfig() {
  EvaluationConfig config;
  config.job.compute = std::chrono::hours(6);
  config.job.deadline = std::chrono::hours(9);
  config.job.changeover = std::chrono::minutes(12);
  config.starts = 12;
  config.policies = {"od", "greedy", "up", "frugal"};
  return config;
}

TEST(SpotEvaluation, RatiosAreAtLeastOneAndOnDemandIsDearest) {
  SyntheticSpec spec;
  spec.days = 10;
  auto eval = Evaluate({MakeSyntheticTrace(spec)}, SmallConfig());
  ASSERT_TRUE(eval) << eval.error().message;
  EXPECT_EQ(eval->rows.size(), 12u);
  EXPECT_EQ(eval->step_seconds, 600 / 5);  // 12-minute changeover on a 10-minute tick
  ASSERT_EQ(eval->summaries.size(), 4u);
  for (const PolicySummary& s : eval->summaries) {
    EXPECT_EQ(s.all.runs, 12);
    EXPECT_EQ(s.all.deadline_misses, 0) << s.name;
    EXPECT_GE(s.all.mean_ratio, 1.0 - 1e-9) << s.name;
    EXPECT_GE(s.all.p90_ratio, s.all.median_ratio - 1e-9) << s.name;
    EXPECT_LE(s.all.mean_cost_usd, eval->summaries[0].all.mean_cost_usd + 1e-9) << s.name;
    int stratum_runs = 0;
    for (const auto& [name, stats] : s.strata) stratum_runs += stats.runs;
    EXPECT_EQ(stratum_runs, 12);
  }
  EXPECT_DOUBLE_EQ(eval->summaries[0].all.spot_share, 0);
  EXPECT_TRUE(eval->summaries[1].has_gap_closed);
  EXPECT_NEAR(eval->summaries[1].gap_closed, 0, 1e-12);  // greedy closes none of its own gap
}

TEST(SpotEvaluation, RejectsUnknownPoliciesAndShortTraces) {
  SyntheticSpec spec;
  spec.days = 10;
  EvaluationConfig config = SmallConfig();
  config.policies = {"grredy"};
  auto bad = Evaluate({MakeSyntheticTrace(spec)}, config);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  spec.days = 0.2;
  auto short_trace = Evaluate({MakeSyntheticTrace(spec)}, SmallConfig());
  ASSERT_FALSE(short_trace);
  EXPECT_NE(short_trace.error().message.find("shorter than the deadline"), std::string::npos);
}

TEST(SpotPlot, SvgShowsModesAndDeadline) {
  StepJob job;
  job.compute = 3;
  job.deadline = 6;
  std::vector<StepRecord> steps = {{Mode::kSpot, true, 1}, {Mode::kIdle, false, 1},
                                   {Mode::kOnDemand, false, 2}, {Mode::kOnDemand, false, 3}};
  const std::string svg = RenderRunSvg("a <run>", job, steps);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("a &lt;run&gt;"), std::string::npos);
  EXPECT_NE(svg.find("#e76f51"), std::string::npos);  // on-demand colour
  EXPECT_NE(svg.find("deadline"), std::string::npos);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
}

}  // namespace
}  // namespace frugal::spot

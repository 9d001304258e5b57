// The report formats: the Markdown and HTML reports carry the summary, the ranked findings
// with evidence, how each saving was computed and the action, and the charts as SVG drawn from
// the audit's own numbers; the JSON carries the same figures.

#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "audit_fixture.h"
#include "frugal/audit/audit_output.h"
#include "frugal/audit/svg_chart.h"

namespace frugal::audit {
namespace {

using fixture::AuditTest;
using fixture::TestOffer;
using ledger::Timestamp;
using std::chrono::hours;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

class AuditReportTest : public AuditTest {
 protected:
  void SetUp() override {
    AuditTest::SetUp();
    const auto done = ledger::EndReason::kFinished;
    // Two teams, two tiers; an idle run and an under-used one, so two rules have savings.
    const Timestamp day10 = options_.since + hours(24 * 10);
    const auto idle = AddRun("idle", day10, {{TestOffer("big-a100", "A100-80GB", 4.0), 20, done}});
    AddSamples(idle, day10, 20, 0, 30);
    const Timestamp day40 = options_.since + hours(24 * 40);
    const auto under = AddRun("under", day40, {{TestOffer("big-a100", "A100-80GB", 4.0), 10, done}},
                              true, "", "vision");
    AddSamples(under, day40, 10, 30, 20);
    const Timestamp day60 = options_.since + hours(24 * 60);
    AddRun("spot", day60,
           {{TestOffer("big-a100", "A100-80GB", 1.2, CapacityTier::kSpot), 10, done}});
    auto r = RunAudit(*ledger_, options_);
    ASSERT_TRUE(r) << r.error().message;
    result_ = std::move(*r);
  }
  AuditResult result_;
};

TEST_F(AuditReportTest, ChartDataAddsUpToTheLedger) {
  const ReportCharts& c = result_.charts;
  EXPECT_EQ(c.buckets.size(), 13u);  // 90 days in weeks
  Money teams;
  for (const SpendSeries& s : c.spend_by_team) teams += s.Total();
  EXPECT_EQ(teams, Money::FromDollars(80 + 40 + 12));
  EXPECT_EQ(SpendInWindow(result_), Money::FromDollars(132));
  ASSERT_EQ(c.spend_by_tier.size(), 2u);
  EXPECT_EQ(c.spend_by_tier[0].name, "on_demand");
  EXPECT_EQ(c.spend_by_tier[0].Total(), Money::FromDollars(120));
  // 20 idle run-hours at 0%, 10 at 30%.
  EXPECT_DOUBLE_EQ(c.util_hours[0], 20);
  EXPECT_DOUBLE_EQ(c.util_hours[3], 10);
  ASSERT_EQ(c.savings_by_rule.size(), 2u);
  EXPECT_EQ(c.savings_by_rule[0].first, kIdleGpu);  // $80 idle vs $30 on a cheaper GPU
  EXPECT_GT(c.savings_by_rule[0].second, Money());
}

TEST_F(AuditReportTest, MarkdownIsAReportToSendOn) {
  std::ostringstream md;
  WriteAuditMarkdown(result_, md);
  const std::string text = md.str();
  for (const char* part : {"# GPU spend audit", "## Findings, ranked by saving", "## Charts",
                           "## Details", "- Evidence:", "- How computed:", "- Action:"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part;
  }
  EXPECT_EQ(Count(text, "<svg "), 4u);  // team, tier, utilization, savings by rule
  EXPECT_EQ(Count(text, "</svg>"), 4u);
  EXPECT_LT(text.find("idle-gpu"), text.find("underutilized-job"));  // ranked by saving
}

TEST_F(AuditReportTest, HtmlIsStandaloneWithInlineCharts) {
  std::ostringstream html;
  WriteAuditHtml(result_, html);
  const std::string text = html.str();
  EXPECT_TRUE(text.starts_with("<!DOCTYPE html>"));
  EXPECT_EQ(Count(text, "<svg "), 4u);
  EXPECT_EQ(Count(text, "<section class=\"finding\""), result_.findings.size());
  EXPECT_EQ(text.find("<script"), std::string::npos);
  EXPECT_EQ(text.find("http://"), text.find("http://www.w3.org/2000/svg"));  // no links out
  // The team chart names both teams in its legend.
  EXPECT_NE(text.find(">ml</text>"), std::string::npos);
  EXPECT_NE(text.find(">vision</text>"), std::string::npos);
}

TEST(AuditSvgChart, BarsAreScaledToARoundAxisAndEscaped) {
  BarChart chart{"Spend <by> team", "$", {"w1", "w2"}, {{"a&b", {100, 300}}, {"c", {0, 100}}}};
  const std::string svg = StackedBarSvg(chart);
  EXPECT_NE(svg.find("Spend &lt;by&gt; team"), std::string::npos);
  EXPECT_NE(svg.find(">a&amp;b</text>"), std::string::npos);
  // Top of the axis: 400 rounds to 400 in steps of 100.
  EXPECT_NE(svg.find(">$400</text>"), std::string::npos) << svg;
  // Zero values draw no bar: three bars in all.
  EXPECT_EQ(Count(svg, "class=\"bar\""), 3u);
  const std::string h = HorizontalBarSvg({"Savings", "$", {"idle-gpu"}, {{"s", {1500}}}});
  EXPECT_NE(h.find(">$1.5k</text>"), std::string::npos) << h;
}

TEST_F(AuditReportTest, JsonCarriesTheSameFigures) {
  const nlohmann::json j = AuditToJson(result_);
  EXPECT_EQ(j["spend_in_window"], "132");
  EXPECT_EQ(j["thresholds"], "defaults");
  EXPECT_EQ(j["utilization_run_hours"][0], 20.0);
  EXPECT_TRUE(j["savings_by_rule"].contains(std::string(kIdleGpu)));
  EXPECT_TRUE(j["budgets"].is_array());
}

}  // namespace
}  // namespace frugal::audit

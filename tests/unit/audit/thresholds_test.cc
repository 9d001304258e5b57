#include "frugal/audit/thresholds.h"

#include <gtest/gtest.h>

namespace frugal::audit {
namespace {

TEST(AuditThresholds, DefaultsAreTheDocumentedOnes) {
  auto t = ParseThresholds("version: 1\n", "t.yaml");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->underutil_gpu_util_pct, 50);
  EXPECT_EQ(t->underutil_min_minutes, 30);
  EXPECT_EQ(t->forgotten_days, 14);
  EXPECT_EQ(t->spot_max_run_hours, 24);
  EXPECT_EQ(t->forgotten_idle_days, 7);
  EXPECT_EQ(t->tensor_min_sm_active_pct, 40);
  EXPECT_EQ(t->tensor_unused_pct, 1);
  EXPECT_EQ(t->tensor_matmul_share_pct, 50);
  EXPECT_EQ(t->data_far_min_gb, 10);
  EXPECT_EQ(t->preprocess_min_runs, 2);
  EXPECT_EQ(t->budget_burn_days, 7);
  EXPECT_EQ(t->commitment_min_history_days, 7);
  EXPECT_TRUE(t->budgets.empty());
  EXPECT_EQ(t->source, "t.yaml");
}

TEST(AuditThresholds, ReadsBudgets) {
  auto t = ParseThresholds(
      "budgets:\n  - {team: nlp, amount: 12000}\n"
      "  - {team: nlp, project: chat, amount: $30000, period: quarter}\n",
      "t.yaml");
  ASSERT_TRUE(t) << t.error().message;
  ASSERT_EQ(t->budgets.size(), 2u);
  EXPECT_EQ(t->budgets[0].Label(), "team nlp");
  EXPECT_EQ(t->budgets[0].period, BudgetPeriod::kMonth);
  EXPECT_EQ(t->budgets[1].amount, Money::FromDollars(30000));
  EXPECT_EQ(t->budgets[1].Label(), "team nlp / project chat");
  EXPECT_TRUE(t->budgets[1].Covers("nlp", "chat"));
  EXPECT_FALSE(t->budgets[1].Covers("nlp", "search"));
  auto expect = [](const std::string& text, const std::string& what) {
    auto bad = ParseThresholds(text, "t.yaml");
    ASSERT_FALSE(bad) << text;
    EXPECT_NE(bad.error().message.find("t.yaml:2:"), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find(what), std::string::npos) << bad.error().message;
  };
  expect("budgets:\n  - {team: nlp, amount: -5}\n", "amount");
  expect("budgets:\n  - {team: nlp, amount: 5, period: week}\n", "'week'");
  expect("budgets:\n  - {amount: 5}\n", "name a team, a project");
  expect("budgets:\n  - {team: nlp, amont: 5}\n", "did you mean 'amount'");
}

TEST(AuditThresholds, PeriodsAreCalendarPeriodsInUtc) {
  const auto t = *ledger::ParseTimestamp("2026-05-17T13:00:00Z");
  auto fmt_bounds = [](PeriodBounds b) {
    return ledger::FormatTimestamp(b.start) + " " + ledger::FormatTimestamp(b.end);
  };
  EXPECT_EQ(fmt_bounds(PeriodAround(BudgetPeriod::kMonth, t)),
            "2026-05-01T00:00:00Z 2026-06-01T00:00:00Z");
  EXPECT_EQ(fmt_bounds(PeriodAround(BudgetPeriod::kQuarter, t)),
            "2026-04-01T00:00:00Z 2026-07-01T00:00:00Z");
  EXPECT_EQ(fmt_bounds(PeriodAround(BudgetPeriod::kYear, t)),
            "2026-01-01T00:00:00Z 2027-01-01T00:00:00Z");
  EXPECT_EQ(fmt_bounds(PeriodAround(BudgetPeriod::kQuarter,
                                    *ledger::ParseTimestamp("2026-12-31T23:00:00Z"))),
            "2026-10-01T00:00:00Z 2027-01-01T00:00:00Z");
}

TEST(AuditThresholds, OverridesApply) {
  auto t = ParseThresholds(
      "version: 1\nunderutil_gpu_util_pct: 40\ncommitment_tier: reserved_3y\n"
      "attribution_tags: [team, cost_center]\n",
      "t.yaml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->underutil_gpu_util_pct, 40);
  EXPECT_EQ(t->commitment_tier, CapacityTier::kReserved3y);
  EXPECT_EQ(t->attribution_tags, (std::vector<std::string>{"team", "cost_center"}));
}

TEST(AuditThresholds, BadInputNamesFileLineAndField) {
  auto range = ParseThresholds("idle_min_hours: 8\nunderutil_gpu_util_pct: 150\n", "t.yaml");
  ASSERT_FALSE(range);
  EXPECT_EQ(range.error().code, ErrorCode::kBadInput);
  EXPECT_NE(range.error().message.find("t.yaml:2:"), std::string::npos) << range.error().message;
  EXPECT_NE(range.error().message.find("underutil_gpu_util_pct"), std::string::npos);
  auto unknown = ParseThresholds("idle_gpu_utl_pct: 3\n", "t.yaml");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().message.find("t.yaml:1:"), std::string::npos);
  EXPECT_NE(unknown.error().message.find("idle_gpu_util_pct"), std::string::npos)
      << unknown.error().message;
  auto tier = ParseThresholds("commitment_tier: monthly\n", "t.yaml");
  ASSERT_FALSE(tier);
  EXPECT_NE(tier.error().message.find("commitment_tier"), std::string::npos);
  EXPECT_FALSE(ParseThresholds("version: 2\n", "t.yaml"));
}

TEST(AuditThresholds, TwoBudgetsForTheSameTeamProjectAndPeriodAreBadInput) {
  // Both were kept: the budget table showed the team twice with different amounts.
  auto twice = ParseThresholds(
      "budgets:\n  - {team: nlp, amount: 5}\n  - {team: nlp, amount: 7, period: month}\n",
      "t.yaml");
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().code, ErrorCode::kBadInput);
  EXPECT_NE(twice.error().message.find("t.yaml:3:"), std::string::npos) << twice.error().message;
  EXPECT_NE(twice.error().message.find("already has a month budget at t.yaml:2:"),
            std::string::npos)
      << twice.error().message;
  // Another period, or another project, is another budget.
  EXPECT_TRUE(
      ParseThresholds("budgets:\n  - {team: nlp, amount: 5}\n"
                      "  - {team: nlp, amount: 50, period: quarter}\n"
                      "  - {team: nlp, project: chat, amount: 3}\n",
                      "t.yaml"));
}

}  // namespace
}  // namespace frugal::audit

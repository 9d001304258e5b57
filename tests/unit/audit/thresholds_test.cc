#include "frugal/audit/thresholds.h"

#include <gtest/gtest.h>

namespace frugal::audit {
namespace {

TEST(Thresholds, DefaultsAreTheDocumentedOnes) {
  auto t = ParseThresholds("version: 1\n", "t.yaml");
  ASSERT_TRUE(t);
  EXPECT_EQ(t->underutil_gpu_util_pct, 50);
  EXPECT_EQ(t->underutil_min_minutes, 30);
  EXPECT_EQ(t->forgotten_days, 14);
  EXPECT_EQ(t->spot_max_run_hours, 24);
}

TEST(Thresholds, OverridesApply) {
  auto t = ParseThresholds("version: 1\nunderutil_gpu_util_pct: 40\ncommitment_tier: reserved_3y\n"
                           "attribution_tags: [team, cost_center]\n",
                           "t.yaml");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->underutil_gpu_util_pct, 40);
  EXPECT_EQ(t->commitment_tier, "reserved_3y");
  EXPECT_EQ(t->attribution_tags, (std::vector<std::string>{"team", "cost_center"}));
}

TEST(Thresholds, BadInputNamesFileLineAndField) {
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

}  // namespace
}  // namespace frugal::audit

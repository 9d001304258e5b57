#include "frugal/policy/policy.h"

#include <gtest/gtest.h>

#include <set>

#include "support/test_support.h"

namespace frugal::policy {
namespace {

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

constexpr const char* kPolicy = R"(apiVersion: frugal/v1
kind: Policy
name: ml-platform
version: 3
workload_classes:
  training: [A100-80GB, L4, H100-80GB-SXM]
  inference: [T4, L4]
h100_justification_tag: justification
spot_for_fault_tolerant_training: true
max_spot_checkpoint_interval: 30m
max_budget_without_approval: 500
required_tags: [team, project]
)";

class PolicyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = catalog::Catalog::LoadDefault();
    ASSERT_TRUE(c) << c.error().message;
    catalog_ = std::make_unique<catalog::Catalog>(std::move(*c));
    auto p = ParsePolicy(kPolicy, "policy.yaml", *catalog_);
    ASSERT_TRUE(p) << p.error().message;
    policy_ = *p;
  }
  std::set<std::string> Rules(const Subject& s) {
    std::set<std::string> rules;
    for (const Violation& v : Check(policy_, s)) rules.insert(v.rule);
    return rules;
  }
  std::unique_ptr<catalog::Catalog> catalog_;
  Policy policy_;
};

Subject Compliant() {
  Subject s;
  s.kind = "Job";
  s.tags = {{"team", "nlp"}, {"project", "chat"}};
  s.gpus = {"A100-80GB", "L4"};
  s.tiers = {"spot"};
  s.fault_tolerant = true;
  s.checkpoint_interval = std::chrono::minutes(20);
  s.budget = Money::FromDollars(200);
  return s;
}

TEST_F(PolicyTest, ACompliantSpecHasNoViolation) { EXPECT_TRUE(Check(policy_, Compliant()).empty()); }

TEST_F(PolicyTest, EachRuleFiresOnItsOwnBreach) {
  Subject gpu = Compliant();
  gpu.tags["workload"] = "inference";
  EXPECT_EQ(Rules(gpu), std::set<std::string>{"gpu-model"});  // A100 is not for inference
  Subject h100 = Compliant();
  h100.gpus = {"H100-80GB-SXM"};
  EXPECT_EQ(Rules(h100), std::set<std::string>{"h100-justification"});
  h100.tags["justification"] = "70B pretraining needs FP8";
  EXPECT_TRUE(Rules(h100).empty());
  Subject od = Compliant();
  od.tiers = {"on_demand", "spot"};
  EXPECT_EQ(Rules(od), std::set<std::string>{"spot-required"});
  Subject ckpt = Compliant();
  ckpt.checkpoint_interval = std::chrono::minutes(45);
  EXPECT_EQ(Rules(ckpt), std::set<std::string>{"checkpoint-interval"});
  Subject budget = Compliant();
  budget.budget = Money::FromDollars(900);
  EXPECT_EQ(Rules(budget), std::set<std::string>{"budget-approval"});
  budget.tags["approved_by"] = "cfo";
  EXPECT_TRUE(Rules(budget).empty());
  Subject tags = Compliant();
  tags.tags.erase("project");
  EXPECT_EQ(Rules(tags), std::set<std::string>{"required-tags"});
}

TEST_F(PolicyTest, BadPolicyNamesFileLineAndField) {
  auto unknown = ParsePolicy(std::string(kPolicy) + "max_budjet: 3\n", "p.yaml", *catalog_);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::kBadInput);
  EXPECT_NE(unknown.error().message.find("p.yaml:13:"), std::string::npos)
      << unknown.error().message;
  auto gpu = ParsePolicy("apiVersion: frugal/v1\nkind: Policy\nname: x\nworkload_classes:\n"
                         "  training: [Z100]\n",
                         "p.yaml", *catalog_);
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.error().message.find("p.yaml:5:"), std::string::npos) << gpu.error().message;
  EXPECT_NE(gpu.error().message.find("Z100"), std::string::npos);
}

TEST_F(PolicyTest, ReadsStudySpecs) {
  TempDir dir;
  WriteTestFile(dir / "study.yaml", R"(apiVersion: frugal/v1
kind: Study
name: s
resources:
  tier: spot
  checkpoint_interval: {min: 15m, max: 1h}
gates:
  budget_usd: 100
)");
  auto s = LoadSubject(dir / "study.yaml", *catalog_);
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(s->kind, "Study");
  ASSERT_TRUE(s->checkpoint_interval);
  EXPECT_EQ(*s->checkpoint_interval, std::chrono::hours(1));
  EXPECT_EQ(Rules(*s), (std::set<std::string>{"gpu-model", "h100-justification",
                                              "checkpoint-interval", "required-tags"}));
}

}  // namespace
}  // namespace frugal::policy

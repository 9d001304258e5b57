#include "frugal/policy/policy.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <limits>
#include <set>

#include "frugal/core/paths.h"
#include "frugal/plan/job_spec.h"
#include "frugal/plan/planner.h"
#include "frugal/policy/configured.h"
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
  s.tiers = {CapacityTier::kSpot};
  s.fault_tolerant = true;
  s.checkpoint_interval = std::chrono::minutes(20);
  s.budget = Money::FromDollars(200);
  return s;
}

TEST_F(PolicyTest, ACompliantSpecHasNoViolation) {
  EXPECT_TRUE(Check(policy_, Compliant()).empty());
}

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
  od.tiers = {CapacityTier::kOnDemand, CapacityTier::kSpot};
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
  auto gpu = ParsePolicy(
      "apiVersion: frugal/v1\nkind: Policy\nname: x\nversion: 1\n"
      "workload_classes:\n  training: [Z100]\n",
      "p.yaml", *catalog_);
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.error().message.find("p.yaml:6:"), std::string::npos) << gpu.error().message;
  EXPECT_NE(gpu.error().message.find("Z100"), std::string::npos);
  // A default class that no class list names would make every untagged spec a violation.
  auto typo =
      ParsePolicy(std::string(kPolicy) + "default_workload: trainng\n", "p.yaml", *catalog_);
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().code, ErrorCode::kBadInput);
  EXPECT_NE(typo.error().message.find("p.yaml:13:19: field 'default_workload': 'trainng' is not "
                                      "one of workload_classes (inference, training) (did you "
                                      "mean 'training'?)"),
            std::string::npos)
      << typo.error().message;
}

TEST_F(PolicyTest, TheRevisionIsRequiredAndPositive) {
  auto missing = ParsePolicy("apiVersion: frugal/v1\nkind: Policy\nname: x\n", "p.yaml", *catalog_);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(missing.error().message.find("field 'version'"), std::string::npos)
      << missing.error().message;
  auto zero = ParsePolicy("apiVersion: frugal/v1\nkind: Policy\nname: x\nversion: 0\n", "p.yaml",
                          *catalog_);
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().message.find("p.yaml:4:"), std::string::npos) << zero.error().message;
  EXPECT_EQ(policy_.Label(), "ml-platform v3");
}

TEST_F(PolicyTest, EveryViolationSaysHowToFixItInTheSubjectsFields) {
  Subject job = Compliant();
  job.tags.erase("team");
  job.budget = Money::FromDollars(900);
  const std::vector<Violation> found = Check(policy_, job);
  ASSERT_EQ(found.size(), 2u);
  EXPECT_EQ(found[0].rule, "budget-approval");
  EXPECT_NE(found[0].fix.find("constraints.budget to $500.00 or less"), std::string::npos)
      << found[0].fix;
  EXPECT_NE(found[0].fix.find("tags.approved_by"), std::string::npos) << found[0].fix;
  EXPECT_EQ(found[1].fix, "add tags.team");
  Subject run = job;
  run.kind = "Run";
  const std::vector<Violation> run_found = Check(policy_, run);
  ASSERT_EQ(run_found.size(), 2u);
  EXPECT_NE(run_found[0].fix.find("--budget"), std::string::npos) << run_found[0].fix;
  EXPECT_EQ(run_found[1].fix, "add --tag team=VALUE");
  Subject study = Compliant();
  study.kind = "Study";
  study.checkpoint_interval = std::chrono::hours(2);
  const std::vector<Violation> study_found = Check(policy_, study);
  ASSERT_EQ(study_found.size(), 1u);
  EXPECT_EQ(study_found[0].fix, "set resources.checkpoint_interval.max to 30m or less");
  EXPECT_EQ(RuleNames(Check(policy_, Subject{})),
            (std::vector<std::string>{"gpu-model", "h100-justification", "budget-approval",
                                      "required-tags"}));
}

TEST_F(PolicyTest, CheckpointingOnNoticeSatisfiesTheIntervalRule) {
  Subject s = Compliant();
  s.checkpoint_interval.reset();
  EXPECT_EQ(Rules(s), std::set<std::string>{"checkpoint-interval"});
  s.checkpoint_on_notice = true;
  EXPECT_TRUE(Rules(s).empty());
}

TEST_F(PolicyTest, ScreensEachPlanOptionByItsGpuTierAndCheckpointing) {
  auto spec = plan::LoadJobSpec(
      frugal::testing::SourceDir() / "examples/plan/llama-7b-finetune.yaml", catalog_->gpu_names());
  ASSERT_TRUE(spec) << spec.error().message;
  Subject job;
  job.kind = "Job";
  job.tags = spec->tags;
  job.fault_tolerant = true;
  job.budget = spec->constraints.budget;
  auto p = ParsePolicy(
      "apiVersion: frugal/v1\nkind: Policy\nname: team\nversion: 1\n"
      "workload_classes: {training: [L4, A100-80GB]}\n"
      "max_spot_checkpoint_interval: 2h\n",
      "p.yaml", *catalog_);
  ASSERT_TRUE(p) << p.error().message;
  const Policy strict = *p;
  plan::PlanRequest unscreened;
  unscreened.top = std::numeric_limits<size_t>::max();
  const plan::Plan all = plan::MakePlan(*spec, *catalog_, unscreened).value();
  plan::PlanRequest request;
  request.top = 5;
  request.refuse = [&](const plan::Option& o) { return !Check(strict, ForOption(job, o)).empty(); };
  const plan::Plan screened = plan::MakePlan(*spec, *catalog_, request).value();
  ASSERT_FALSE(screened.options.empty());
  size_t expected_refused = 0;
  for (const plan::Option& o : all.options) {
    const Subject s = ForOption(job, o);
    if (!Check(strict, s).empty()) ++expected_refused;
    if (o.kind == plan::RunKind::kSpot && o.spot.strategy == plan::CheckpointStrategy::kPeriodic) {
      ASSERT_TRUE(s.checkpoint_interval);
      EXPECT_EQ(s.tiers, std::vector<CapacityTier>{CapacityTier::kSpot});
    }
  }
  EXPECT_EQ(screened.refused_count, expected_refused);
  EXPECT_GT(expected_refused, 0u);
  for (const plan::Option& o : screened.options) {
    EXPECT_TRUE(o.offer->gpu == "L4" || o.offer->gpu == "A100-80GB") << o.offer->Id();
  }
  // Refused options shown are those that outranked the last allowed one, with their old rank.
  for (const plan::RefusedOption& r : screened.refused) {
    EXPECT_FALSE(Check(strict, ForOption(job, r.option)).empty());
    EXPECT_EQ(all.options.at(r.rank - 1).offer, r.option.offer);
  }
  EXPECT_EQ(screened.ranked + screened.refused_count, all.ranked);
}

class PolicyLookupTest : public PolicyTest {
 protected:
  void SetUp() override {
    PolicyTest::SetUp();
    ::setenv("FRUGAL_HOME", home_.path().c_str(), 1);
    ::unsetenv("FRUGAL_POLICY");
  }
  void TearDown() override { ::unsetenv("FRUGAL_POLICY"); }
  TempDir home_;
};

TEST_F(PolicyLookupTest, FlagThenEnvironmentThenConfigDir) {
  EXPECT_FALSE(FindPolicy(""));  // nothing configured: no policy, no error
  EXPECT_FALSE(LoadConfiguredPolicy("", *catalog_).value());
  const auto in_config = UserConfigDir() / "policy.yaml";
  WriteTestFile(in_config, kPolicy);
  ASSERT_TRUE(FindPolicy(""));
  EXPECT_EQ(FindPolicy("")->origin, PolicyOrigin::kConfigDir);
  WriteTestFile(home_ / "env.yaml", kPolicy);
  ::setenv("FRUGAL_POLICY", (home_ / "env.yaml").c_str(), 1);
  EXPECT_EQ(FindPolicy("")->origin, PolicyOrigin::kEnv);
  EXPECT_EQ(FindPolicy("")->path, home_ / "env.yaml");
  EXPECT_EQ(FindPolicy("flag.yaml")->origin, PolicyOrigin::kFlag);
  auto loaded = LoadConfiguredPolicy("", *catalog_).value();
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->Source(), "ml-platform v3 (" + (home_ / "env.yaml").string() + ")");
  ::setenv("FRUGAL_POLICY", "", 1);  // empty: as if unset
  EXPECT_EQ(FindPolicy("")->origin, PolicyOrigin::kConfigDir);
  // A file named explicitly must exist: a typo never turns enforcement off.
  auto typo = LoadConfiguredPolicy((home_ / "polcy.yaml").string(), *catalog_);
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().code, ErrorCode::kBadInput);
  EXPECT_NE(typo.error().message.find("--policy"), std::string::npos) << typo.error().message;
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

TEST_F(PolicyTest, AStudysOfferTextCarriesItsGpuAndTier) {
  TempDir dir;
  for (const auto& [offer, tier] :
       std::vector<std::pair<std::string, std::string>>{{"aws:g4dn.xlarge spot", "spot"},
                                                        {"aws:g4dn.xlarge on_demand", "on_demand"},
                                                        {"aws:g4dn.xlarge", ""}}) {
    WriteTestFile(dir / "study.yaml",
                  "apiVersion: frugal/v1\nkind: Study\nname: s\n"
                  "resources: {offer: \"" +
                      offer + "\"}\n");
    auto s = LoadSubject(dir / "study.yaml", *catalog_);
    ASSERT_TRUE(s) << s.error().message;
    EXPECT_EQ(s->gpus, std::vector<std::string>{"T4"}) << offer;
    std::vector<std::string> tiers;
    for (const CapacityTier t : s->tiers) tiers.emplace_back(CapacityTierName(t));
    EXPECT_EQ(tiers, tier.empty() ? std::vector<std::string>{} : std::vector<std::string>{tier})
        << offer;
  }
}

TEST_F(PolicyTest, AStudyBudgetNoAmountCanHoldIsBadInputNamingTheField) {
  TempDir dir;
  // Converted unchecked, 1e300 became INT64_MIN micro-dollars: a budget far below any maximum.
  WriteTestFile(dir / "study.yaml",
                "apiVersion: frugal/v1\nkind: Study\nname: s\ngates:\n"
                "  budget_usd: 1e300\n");
  auto s = LoadSubject(dir / "study.yaml", *catalog_);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().code, ErrorCode::kBadInput);
  EXPECT_NE(s.error().message.find("study.yaml:5:15: field 'gates.budget_usd'"), std::string::npos)
      << s.error().message;
}

}  // namespace
}  // namespace frugal::policy

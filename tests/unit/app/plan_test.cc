// The plan use case both front ends call: caps named as the front end spells them, caps an
// inference spec refuses, a ledger that cannot be read as a warning, and the policy's refusal
// as a value the front end shows.

#include "frugal/app/plan.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::app {
namespace {

using frugal::testing::ReadTestFile;
using frugal::testing::SourceDir;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

class PlanUseCase : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<catalog::Catalog> c = catalog::Catalog::LoadFrom(SourceDir() / "data", {});
    ASSERT_TRUE(c) << c.error().message;
    catalog_ = std::move(*c);
  }
  PlanContext Context() const {
    PlanContext ctx;
    ctx.catalog = &catalog_;
    ctx.ledger = [this](ledger::CreateMode, const LedgerUse&) -> Result<void> {
      ++ledger_reads_;
      return ledger_;
    };
    return ctx;
  }
  static PlanInput Job() {
    PlanInput in;
    in.spec_path = SourceDir() / "examples/plan/llama-7b-finetune.yaml";
    in.top = 3;
    return in;
  }

  catalog::Catalog catalog_;
  Result<void> ledger_;
  mutable int ledger_reads_ = 0;
  TempDir dir_;
};

TEST_F(PlanUseCase, ALedgerThatCannotBeReadIsAWarningAndThePlanGoesOn) {
  ledger_ = Fail(ErrorCode::kUnavailable, "the database is down");
  const Result<PlanResult> r = Plan(Job(), Context());
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(ledger_reads_, 1);
  ASSERT_EQ(r->warnings.size(), 1U);
  EXPECT_NE(r->warnings[0].find("were not read: the database is down"), std::string::npos)
      << r->warnings[0];
  EXPECT_EQ(r->document["options"].size(), 3U) << r->document.dump();
  EXPECT_TRUE(r->document["policy"].is_null());
}

TEST_F(PlanUseCase, NamesTheFieldAsTheFrontEndSpellsIt) {
  PlanInput in = Job();
  in.deadline = "0h";
  const Result<PlanResult> flag = Plan(in, Context());
  ASSERT_FALSE(flag);
  EXPECT_EQ(flag.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(flag.error().message, "--deadline: must be positive");
  in.spelling = Spelling::kParameter;
  const Result<PlanResult> param = Plan(in, Context());
  ASSERT_FALSE(param);
  EXPECT_EQ(param.error().message, "deadline: must be positive");
  in.deadline.clear();
  in.objective = "speed";
  const Result<PlanResult> objective = Plan(in, Context());
  ASSERT_FALSE(objective);
  EXPECT_EQ(objective.error().message, "objective: expected cost or time, got 'speed'");
}

TEST_F(PlanUseCase, AnInferenceSpecRefusesTheCapsOfAJobPostedOrNot) {
  PlanInput in;
  in.spec_path = SourceDir() / "examples/serving/llama-7b-int4.yaml";
  in.budget = "500";
  const Result<PlanResult> file = Plan(in, Context());
  ASSERT_FALSE(file);
  EXPECT_NE(file.error().message.find("--budget: an inference spec is planned by its workload"),
            std::string::npos)
      << file.error().message;
  in.posted = ReadTestFile(in.spec_path);
  in.spelling = Spelling::kParameter;
  const Result<PlanResult> posted = Plan(in, Context());
  ASSERT_FALSE(posted);
  EXPECT_NE(posted.error().message.find("budget: an inference spec is planned by its workload"),
            std::string::npos)
      << posted.error().message;
  in.budget.clear();
  const Result<PlanResult> planned = Plan(in, Context());
  ASSERT_TRUE(planned) << planned.error().message;
  EXPECT_TRUE(std::holds_alternative<DeploymentPlan>(planned->planned));
  EXPECT_FALSE(planned->document["options"].empty());
}

TEST_F(PlanUseCase, APolicyThatRefusesEveryOptionIsARefusalWithItsDocument) {
  const std::filesystem::path policy = dir_ / "policy.yaml";
  WriteTestFile(policy,
                "apiVersion: frugal/v1\nkind: Policy\nname: ml-platform\nversion: 4\n"
                "required_tags: [team, project, cost_center]\n");
  PlanInput in = Job();
  in.posted = ReadTestFile(in.spec_path);
  PlanContext ctx = Context();
  ctx.policy_flag = policy.string();
  const Result<PlanResult> r = Plan(in, ctx);
  ASSERT_TRUE(r) << r.error().message;
  ASSERT_TRUE(r->refusal);
  EXPECT_EQ(r->refusal->error.code, ErrorCode::kBudget);
  EXPECT_NE(r->refusal->error.message.find("refused by policy ml-platform v4: required-tags"),
            std::string::npos)
      << r->refusal->error.message;
  EXPECT_EQ(r->document["refused"], true);
  EXPECT_EQ(r->document["violations"][0]["rule"], "required-tags");
}

}  // namespace
}  // namespace frugal::app

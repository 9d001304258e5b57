// The supervised run's set-up `frugal run` and `frugal drill` share: a spec priced at the
// planner's pick with the ledger's measurements read through the front end's ledger, capacity
// priced by hand recorded as the flags say, and bad values named by their flag.

#include "frugal/app/supervise.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::app {
namespace {

using frugal::testing::SourceDir;

class SuperviseUseCase : public ::testing::Test {
 protected:
  SuperviseContext Context() {
    SuperviseContext ctx;
    ctx.catalog = [](const std::vector<std::filesystem::path>& extra) {
      return catalog::Catalog::LoadFrom(SourceDir() / "data", extra);
    };
    ctx.ledger = [this](ledger::CreateMode create, const LedgerUse&) -> Result<void> {
      modes_.push_back(create);
      return ledger_;
    };
    return ctx;
  }
  static SuperviseRequest Request() {
    SuperviseRequest r;
    r.run_id = "r-test";
    r.run_dir = "/nonexistent/r-test";
    r.command = {"/bin/true"};
    return r;
  }

  Result<void> ledger_;
  std::vector<ledger::CreateMode> modes_;
};

TEST_F(SuperviseUseCase, ASpecRunsOnThePlannersPickWithItsTagsAndCaps) {
  SuperviseRequest r = Request();
  r.spec = (SourceDir() / "examples/plan/llama-7b-finetune.yaml").string();
  ledger_ = Fail(ErrorCode::kUnavailable, "the database is down");  // a warning only
  const Result<SuperviseSetup> s = SetUpSupervisedRun(r, Context());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_EQ(modes_, std::vector<ledger::CreateMode>{ledger::CreateMode::kMustExist});
  EXPECT_EQ(s->job_name, "llama-7b-finetune");
  EXPECT_EQ(s->config.tags.at("team"), "nlp");
  ASSERT_TRUE(s->config.caps.dollars);
  EXPECT_EQ(*s->config.caps.dollars, Money::FromDollars(2000));
  EXPECT_FALSE(s->offer.cloud.empty());
  EXPECT_FALSE(s->offer.gpu.empty());
  EXPECT_GT(s->config.price.per_hour, Money());
  EXPECT_EQ(s->config.offer.rfind(s->offer.cloud + ":", 0), 0U) << s->config.offer;
  EXPECT_NE(s->spec_text.find("name: llama-7b-finetune"), std::string::npos);
}

TEST_F(SuperviseUseCase, CapacityPricedByHandIsRecordedAsTheFlagsSay) {
  SuperviseRequest r = Request();
  r.price = "12/h";
  r.gpu = "A100-80GB";
  r.gpus = 4;
  r.tier = "owned";
  r.budget = "50";
  const Result<SuperviseSetup> s = SetUpSupervisedRun(r, Context());
  ASSERT_TRUE(s) << s.error().message;
  EXPECT_TRUE(modes_.empty()) << "no spec: no measurement is read";
  EXPECT_EQ(s->offer.cloud, "custom");
  EXPECT_EQ(s->offer.gpu, "A100-80GB");
  EXPECT_EQ(s->offer.gpu_count, 4);
  EXPECT_EQ(s->offer.tier, CapacityTier::kOwned);
  EXPECT_EQ(s->config.gpus, 4);
  EXPECT_EQ(s->config.price.per_hour, Money::FromDollars(12));
  EXPECT_EQ(s->config.run_dir, std::filesystem::path("/nonexistent/r-test"));
}

TEST_F(SuperviseUseCase, BadValuesAreNamedByTheirFlag) {
  const std::pair<void (*)(SuperviseRequest&), const char*> cases[] = {
      {[](SuperviseRequest& r) { r.budget = "-3"; }, "option --budget"},
      {[](SuperviseRequest& r) { r.max_wall = "soon"; }, "option --max-wall"},
      {[](SuperviseRequest& r) { r.tags = {"team"}; }, "option --tag"},
      {[](SuperviseRequest& r) { r.keep_checkpoints = 0; }, "option --keep-checkpoints"},
      {[](SuperviseRequest& r) { r.tier = "sometimes"; }, "option --tier"},
      {[](SuperviseRequest& r) { r.allow_overrun = true; }, "option --allow-overrun"},
  };
  for (const auto& [edit, flag] : cases) {
    SuperviseRequest r = Request();
    r.price = "1/h";
    edit(r);
    const Result<SuperviseSetup> s = SetUpSupervisedRun(r, Context());
    ASSERT_FALSE(s) << flag;
    EXPECT_EQ(s.error().code, ErrorCode::kBadInput) << flag;
    EXPECT_EQ(s.error().message.rfind(flag, 0), 0U) << s.error().message;
  }
  SuperviseRequest none = Request();
  const Result<SuperviseSetup> unpriced = SetUpSupervisedRun(none, Context());
  ASSERT_FALSE(unpriced);
  EXPECT_NE(unpriced.error().message.find("say what the run is priced at"), std::string::npos);
}

}  // namespace
}  // namespace frugal::app

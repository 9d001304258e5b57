// Where a lifetime bill's training cost comes from: flags over the spec, then a stated figure,
// then nothing; retraining from the spec. The ledger is reached through the front end's lookup,
// here one that says which run or study it was asked for (the real ledger path is the run
// layer's RecordedSpend and `frugal tco --run` end to end).

#include "frugal/serving/training_cost.h"

#include <gtest/gtest.h>

namespace frugal::serving {
namespace {

struct Asked {
  std::vector<LedgerTrainingRef> refs;
};

TrainingLookups Lookups(Asked& asked) {
  TrainingLookups l;
  l.ledger_spend = [&asked](const LedgerTrainingRef& ref) -> Result<TrainingCost> {
    asked.refs.push_back(ref);
    TrainingCost t;
    t.first = Money::FromCents(ref.run.empty() ? 700 : 300);
    t.source = ref.run.empty() ? "study " + ref.study : "run " + ref.run;
    return t;
  };
  l.catalog = [](const std::vector<std::filesystem::path>&) -> Result<catalog::Catalog> {
    return Fail(ErrorCode::kFailed, "no catalog needed");
  };
  return l;
}

TEST(TrainingCost, AFlagReplacesTheSpecsSourceOfEitherKind) {
  TrainingSource src;
  src.study = "spec-study";
  src.cost = Money::FromCents(9900);
  Asked asked;
  const TrainingCost by_run = ResolveTrainingCost(src, "r-7", "", Lookups(asked)).value();
  EXPECT_EQ(by_run.source, "run r-7");
  ASSERT_EQ(asked.refs.size(), 1u);
  EXPECT_TRUE(asked.refs[0].study.empty());  // --run drops the spec's study
  const TrainingCost by_spec = ResolveTrainingCost(src, "", "", Lookups(asked)).value();
  EXPECT_EQ(by_spec.source, "study spec-study");  // the ledger before the stated cost
  EXPECT_EQ(by_spec.first, Money::FromCents(700));
  const auto both = ResolveTrainingCost(src, "r-7", "s", Lookups(asked));
  ASSERT_FALSE(both);
  EXPECT_EQ(both.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(both.error().message, "--run and --study: give at most one");
}

TEST(TrainingCost, StatedThenNothingWithTheSpecsRetraining) {
  Asked asked;
  TrainingSource src;
  src.cost = Money::FromCents(12000);
  src.retrain_every_months = 3;
  const TrainingCost stated = ResolveTrainingCost(src, "", "", Lookups(asked)).value();
  EXPECT_EQ(stated.source, "stated");
  EXPECT_EQ(stated.first, Money::FromCents(12000));
  EXPECT_EQ(stated.retrain_every_months, 3);
  EXPECT_EQ(stated.retrain, Money::FromCents(12000));  // each retraining costs the first
  src.retrain_cost = Money::FromCents(4000);
  EXPECT_EQ(ResolveTrainingCost(src, "", "", Lookups(asked))->retrain, Money::FromCents(4000));
  const TrainingCost none = ResolveTrainingCost({}, "", "", Lookups(asked)).value();
  EXPECT_EQ(none.first, Money());
  EXPECT_EQ(none.source, "not given (training: in the spec, or --run/--study)");
  EXPECT_EQ(none.retrain_every_months, 0);
  EXPECT_TRUE(asked.refs.empty());
}

}  // namespace
}  // namespace frugal::serving

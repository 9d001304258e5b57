// A lifetime bill's training from the ledger: a run's or a study's actual spend, in a real
// SQLite ledger.

#include "frugal/run/recorded_spend.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::run {
namespace {

const ledger::Timestamp kT0 = ledger::FromMillis(1'767'225'600'000);  // 2026-01-01T00:00:00Z

std::unique_ptr<ledger::Ledger> OpenLedger(const testing::TempDir& dir) {
  auto db = ledger::Ledger::Open((dir / "ledger.db").string());
  EXPECT_TRUE(db) << db.error().message;
  return std::move(*db);
}

/// A finished run named `name` that ran `hours` at $2.50/h: $2.50 × hours.
ledger::RunId FinishedRun(ledger::Ledger& db, const std::string& name, int hours) {
  ledger::NewRun r;
  r.name = name;
  r.command = "python3 train.py";
  r.start = kT0;
  const ledger::RunId id = db.BeginRun(r).value();
  ledger::SegmentOffer offer;
  offer.cloud = "aws";
  offer.instance_type = "g5.xlarge";
  offer.region = "us-east-1";
  offer.gpu = "A10G";
  offer.gpu_count = 1;
  offer.price = Rate{Money::FromCents(250)};
  EXPECT_TRUE(db.OpenSegment(id, offer, kT0));
  EXPECT_TRUE(db.FinishRun(id, ledger::RunStatus::kSucceeded, kT0 + std::chrono::hours(hours)));
  return id;
}

TEST(RecordedSpend, ARunByItsNumberOrItsNewestName) {
  testing::TempDir dir;
  auto db = OpenLedger(dir);
  const ledger::RunId old_id = FinishedRun(*db, "r-bert", 2);
  const ledger::RunId new_id = FinishedRun(*db, "r-bert", 4);
  const RecordedSpend by_name = RunSpend(*db, "r-bert").value();
  EXPECT_EQ(by_name.cost, Money::FromCents(1000));  // $2.50 × 4 h
  EXPECT_EQ(by_name.source, "ledger run " + std::to_string(new_id) + " (r-bert)");
  const RecordedSpend by_number = RunSpend(*db, std::to_string(old_id)).value();
  EXPECT_EQ(by_number.cost, Money::FromCents(500));  // $2.50 × 2 h
  const auto missing = RunSpend(*db, "r-nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(missing.error().message, "no run 'r-nope' in the ledger (see 'frugal runs list')");
}

TEST(RecordedSpend, AStudyIsItsTrialsSummed) {
  testing::TempDir dir;
  auto db = OpenLedger(dir);
  ledger::NewStudy s;
  s.name = "lr-sweep";
  s.objective = "loss";
  s.created = kT0;
  const ledger::StudyId study = db->CreateStudy(s).value();
  for (const int64_t cents : {125, 300, 75}) {
    const ledger::TrialId t = db->AddTrial(study, {{"lr", 0.1}}, kT0).value();
    ASSERT_TRUE(db->UpdateTrial(t, ledger::TrialState::kCompleted, Money::FromCents(cents),
                                std::nullopt, kT0));
  }
  const RecordedSpend spend = StudySpend(*db, "lr-sweep").value();
  EXPECT_EQ(spend.cost, Money::FromCents(500));
  EXPECT_EQ(spend.source, "ledger study lr-sweep");
  const auto missing = StudySpend(*db, "nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message, "no study 'nope' in the ledger");
}

}  // namespace
}  // namespace frugal::run

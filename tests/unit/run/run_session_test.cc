#include "frugal/run/run_session.h"

#include <gtest/gtest.h>

#include <fstream>

#include "frugal/ledger/ledger.h"
#include "frugal/run/ledger_recorder.h"
#include "run_test_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

using std::chrono::milliseconds;
using testing::Records;
using testing::Shell;

SupervisorConfig Config(const std::filesystem::path& run_dir) {
  SupervisorConfig c;
  c.command = Shell("exit 0");
  c.run_id = "session-run";
  c.run_dir = run_dir;
  c.price = Rate{Money::FromCents(360)};
  c.stop_grace = milliseconds(500);
  return c;
}

RunSessionOptions Options(RunHold hold = RunHold::kLockAndClaim) {
  RunSessionOptions o;
  o.hold = hold;
  o.sampling = RunSampling::kNone;
  o.offer.cloud = "custom";
  o.offer.gpu_count = 1;
  o.offer.tier = CapacityTier::kOnDemand;
  o.offer.price = Rate{Money::FromCents(360)};
  return o;
}

std::unique_ptr<ledger::Ledger> OpenLedger(const std::filesystem::path& path) {
  Result<std::unique_ptr<ledger::Ledger>> opened = ledger::Ledger::Open(path.string());
  EXPECT_TRUE(opened.has_value()) << opened.error().message;
  return opened ? std::move(*opened) : nullptr;
}

TEST(RunSession, ASecondSupervisorOfTheRunIsRefusedWhileTheFirstHoldsIt) {
  frugal::testing::TempDir dir;
  const SupervisorConfig config = Config(dir / "run");
  {
    Result<std::unique_ptr<RunSession>> first = RunSession::Open(config, nullptr, Options());
    ASSERT_TRUE(first.has_value()) << first.error().message;
    Result<std::unique_ptr<RunSession>> second = RunSession::Open(config, nullptr, Options());
    ASSERT_FALSE(second.has_value());
    EXPECT_EQ(second.error().code, ErrorCode::kBadInput);
    EXPECT_NE(second.error().message.find("run 'session-run'"), std::string::npos)
        << second.error().message;
  }
  // The first one gone, the run is free again.
  EXPECT_TRUE(RunSession::Open(config, nullptr, Options()).has_value());
}

TEST(RunSession, RecordsTheRunInTheJournalAndTheLedger) {
  frugal::testing::TempDir dir;
  const std::unique_ptr<ledger::Ledger> db = OpenLedger(dir / "ledger.db");
  ASSERT_NE(db, nullptr);
  const SupervisorConfig config = Config(dir / "run");
  Result<std::unique_ptr<RunSession>> session = RunSession::Open(config, db.get(), Options());
  ASSERT_TRUE(session.has_value()) << session.error().message;
  Result<RunResult> ran = (*session)->NewSupervisor().Run();
  ASSERT_TRUE(ran.has_value()) << ran.error().message;
  EXPECT_EQ(ran->outcome, RunOutcome::kFinished);
  EXPECT_TRUE((*session)->Flush(milliseconds(500)));
  EXPECT_EQ((*session)->pending(), 0u);
  ASSERT_TRUE((*session)->ledger_run_id().has_value());
  const Result<ledger::Run> run = db->GetRun(*(*session)->ledger_run_id());
  ASSERT_TRUE(run.has_value()) << run.error().message;
  EXPECT_EQ(run->name, "session-run");
  EXPECT_EQ(run->status, ledger::RunStatus::kSucceeded);
  EXPECT_EQ(Records(config.run_dir / "journal.jsonl", "run_finished").size(), 1u);
}

TEST(RunSession, AJournalThatCannotBeWrittenStopsTheRunBeforeTheLedgerHearsOfIt) {
  frugal::testing::TempDir dir;
  const std::unique_ptr<ledger::Ledger> db = OpenLedger(dir / "ledger.db");
  ASSERT_NE(db, nullptr);
  std::ofstream(dir / "not-a-folder") << "x";
  int caught_up = 0;
  RunSessionOptions options = Options(RunHold::kCallerHolds);
  options.catch_up = [&caught_up](ledger::Ledger&) { ++caught_up; };
  Result<std::unique_ptr<RunSession>> session =
      RunSession::Open(Config(dir / "not-a-folder" / "run"), db.get(), options);
  ASSERT_FALSE(session.has_value());
  EXPECT_EQ(session.error().code, ErrorCode::kFailed);
  EXPECT_EQ(caught_up, 0);
  const auto runs = db->ListRuns({}, ledger::Now());
  ASSERT_TRUE(runs.has_value());
  EXPECT_TRUE(runs->empty());
  // A trial's session starts anyway, its journal's failures only warned about.
  options.journal_check = JournalCheck::kWarnOnly;
  session = RunSession::Open(Config(dir / "not-a-folder" / "run"), db.get(), options);
  ASSERT_TRUE(session.has_value()) << session.error().message;
  EXPECT_EQ(caught_up, 1);
}

}  // namespace
}  // namespace frugal::run

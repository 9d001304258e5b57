// frugal audit end to end: a ledger written through the ledger API, the real binary reading
// it, its formats, its output file and its bad-input errors.

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "../../unit/audit/audit_fixture.h"
#include "frugal/core/atomic_file.h"
#include "frugal/ledger/ledger.h"
#include "support/test_support.h"

namespace frugal::audit {
namespace {

using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;
using std::chrono::hours;
using std::chrono::minutes;

class AuditE2e : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteTestFile(dir_ / "offers.yaml", fixture::kTestOffers);
    auto ledger = ledger::Ledger::Open(db_.string());
    ASSERT_TRUE(ledger) << ledger.error().message;
    // An A100 run 2 days ago at 30% for 10 h peaking at 20 GiB: L4 saves $3/h.
    ledger::NewRun run;
    run.name = "under";
    run.command = "train";
    run.tags.team = "ml";
    run.start = ledger::Now() - hours(48);
    const ledger::RunId id = *(*ledger)->BeginRun(run);
    const auto seg =
        *(*ledger)->OpenSegment(id, fixture::TestOffer("big-a100", "A100-80GB", 4.0), run.start);
    std::vector<ledger::Sample> samples;
    for (auto t = run.start; t < run.start + hours(10); t += minutes(10)) {
      ledger::Sample s;
      s.time = t;
      s.gpu_util = 30;
      s.gpu_mem_bytes = 20.0 * 1024 * 1024 * 1024;
      samples.push_back(s);
    }
    ASSERT_TRUE((*ledger)->AddSamples(id, samples));
    ASSERT_TRUE((*ledger)->CloseSegment(seg, run.start + hours(10), ledger::EndReason::kFinished));
    ASSERT_TRUE((*ledger)->FinishRun(id, ledger::RunStatus::kSucceeded, run.start + hours(10)));
  }

  frugal::testing::CommandResult Audit(std::vector<std::string> args) {
    std::vector<std::string> all = {"--db", db_.string(), "--catalog",
                                    (dir_ / "offers.yaml").string(), "audit"};
    all.insert(all.end(), args.begin(), args.end());
    return RunFrugal(all, dir_.path());
  }

  TempDir dir_;
  std::filesystem::path db_ = dir_ / "ledger.sqlite";
};

TEST_F(AuditE2e, ReportsTheUnderUsedRunInEveryFormat) {
  auto table = Audit({});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("underutilized-job"), std::string::npos) << table.out;
  // $30 over a 90-day window: $10.00 a month.
  EXPECT_NE(table.out.find("$10.00/mo"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("L4"), std::string::npos);

  auto json = Audit({"--format", "json"});
  ASSERT_EQ(json.exit_code, 0) << json.err;
  const auto doc = nlohmann::json::parse(json.out);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_EQ(doc["findings"].size(), 1u);
  EXPECT_EQ(doc["findings"][0]["saving_per_month"], "10");

  auto md = Audit({"--format", "md", "-o", (dir_ / "audit.md").string()});
  ASSERT_EQ(md.exit_code, 0) << md.err;
  auto written = ReadFile(dir_ / "audit.md");
  ASSERT_TRUE(written);
  EXPECT_TRUE(written->starts_with("# GPU spend audit"));
  EXPECT_NE(written->find("| 1 | underutilized-job |"), std::string::npos) << *written;

  // A shorter window scales the same $30 to a month differently: 30 days → $30.00.
  auto month = Audit({"--since", "30d"});
  EXPECT_NE(month.out.find("$30.00/mo"), std::string::npos) << month.out;
}

TEST_F(AuditE2e, BadInputExitsTwoNamingFileLineAndField) {
  WriteTestFile(dir_ / "t.yaml", "version: 1\nunderutil_gpu_util_pct: 120\n");
  auto range = Audit({"--thresholds", (dir_ / "t.yaml").string()});
  EXPECT_EQ(range.exit_code, 2);
  EXPECT_NE(range.err.find("t.yaml:2:"), std::string::npos) << range.err;
  EXPECT_NE(range.err.find("underutil_gpu_util_pct"), std::string::npos) << range.err;

  WriteTestFile(dir_ / "u.yaml", "idle_min_hourz: 3\n");
  auto unknown = Audit({"--thresholds", (dir_ / "u.yaml").string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.err.find("u.yaml:1:"), std::string::npos) << unknown.err;
  EXPECT_NE(unknown.err.find("did you mean 'idle_min_hours'"), std::string::npos) << unknown.err;

  WriteTestFile(dir_ / "bill.csv", "Cost,Date\n1,2026-01-01\n");
  auto bill = Audit({"--billing", (dir_ / "bill.csv").string()});
  EXPECT_EQ(bill.exit_code, 2) << bill.err;
  EXPECT_NE(bill.err.find("bill.csv"), std::string::npos) << bill.err;

  // Nothing half-written: a failed audit leaves no output file.
  auto out = Audit({"--thresholds", (dir_ / "t.yaml").string(), "-o", (dir_ / "x.md").string()});
  EXPECT_EQ(out.exit_code, 2);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "x.md"));
}

}  // namespace
}  // namespace frugal::audit

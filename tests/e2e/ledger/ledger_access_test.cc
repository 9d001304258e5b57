// End-to-end: a ledger as another user, a full disk and imported bills — the real binary on
// real SQLite files. Read-only commands work on a ledger this user may read but not write; a
// disk with no byte left says "disk full"; `frugal report` shows imported bills apart from
// what frugal measured.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/mount.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/small_disk.h"
#include "support/test_support.h"

namespace frugal::ledger {
namespace {

namespace fs = std::filesystem;
using frugal::testing::CommandResult;
using frugal::testing::RunFrugal;
using frugal::testing::RunProgram;
using frugal::testing::TempDir;
using nlohmann::json;

std::vector<std::string> Concat(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

/// Runs the frugal binary as user nobody (setpriv), with FRUGAL_HOME at `home`.
CommandResult RunFrugalAsNobody(const std::vector<std::string>& args, const fs::path& home) {
  return RunProgram(Concat({"/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
                            FRUGAL_BINARY},
                           args),
                    {"FRUGAL_HOME=" + home.string()});
}

void OpenToOthers(const fs::path& dir) {
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
}

TEST(LedgerAccess, ReadOnlyCommandsWorkOnALedgerThisUserMayReadButNotWrite) {
  TempDir dir;
  OpenToOthers(dir.path());
  const fs::path db = dir / "team" / "ledger.sqlite";
  fs::create_directories(db.parent_path());
  OpenToOthers(db.parent_path());
  // root records a run; the file and its folder stay root's (0644, 0755).
  auto recorded = RunFrugal({"--db", db.string(), "run", "--price", "3.6/h", "--run-id", "RO1",
                             "--tag", "team=nlp", "--", "/bin/sh", "-c", "sleep 0.2"},
                            dir.path());
  ASSERT_EQ(recorded.exit_code, 0) << recorded.err;
  fs::permissions(db, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read |
                          fs::perms::others_read);
  if (RunFrugalAsNobody({"--version"}, dir.path()).exit_code != 0) {
    GTEST_SKIP() << "cannot run frugal as user nobody here (setpriv)";
  }
  const auto before = fs::last_write_time(db);
  for (const std::vector<std::string>& command :
       std::vector<std::vector<std::string>>{{"runs", "list"},
                                             {"runs", "show", "RO1"},
                                             {"report", "--by", "team"},
                                             {"ledger", "info"}}) {
    SCOPED_TRACE(command.front());
    const CommandResult r =
        RunFrugalAsNobody(Concat({"--json", "--db", db.string()}, command), dir.path());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const json doc = json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(r.err.find("readonly"), std::string::npos) << r.err;
    if (command.front() == "runs" && command[1] == "list") {
      ASSERT_EQ(doc["runs"].size(), 1u) << r.out;
      EXPECT_EQ(doc["runs"][0]["name"], "RO1");
    }
    if (command.front() == "report") {
      EXPECT_EQ(doc["rows"][0]["team"], "nlp") << r.out;
    }
  }
  EXPECT_EQ(fs::last_write_time(db), before);
  EXPECT_FALSE(fs::exists(db.string() + "-wal"));
  // A command that writes says plainly that this user cannot.
  const CommandResult sweep =
      RunFrugalAsNobody({"--db", db.string(), "ledger", "sweep"}, dir.path());
  EXPECT_EQ(sweep.exit_code, 1) << sweep.err;
  EXPECT_NE(sweep.err.find("not writable by this user"), std::string::npos) << sweep.err;
}

using testing::SmallDisk;

TEST(LedgerAccess, ADiskWithNoByteFreeIsReportedAsDiskFull) {
  TempDir home;
  const SmallDisk disk(home / "disk", "size=1m");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs here to fill a disk";
  const fs::path db = home / "disk" / "ledger.sqlite";
  auto first =
      RunFrugal({"--db", db.string(), "run", "--price", "1/h", "--", "/bin/true"}, home.path());
  ASSERT_EQ(first.exit_code, 0) << first.err;
  disk.Fill();
  auto full =
      RunFrugal({"--db", db.string(), "run", "--price", "1/h", "--", "/bin/true"}, home.path());
  EXPECT_EQ(full.exit_code, 1) << full.err;
  EXPECT_NE(full.err.find("disk full"), std::string::npos) << full.err;
  EXPECT_EQ(full.err.find("disk I/O error"), std::string::npos) << full.err;
}

/// ChargePeriodStart/End text for an hour `days_ago` days back.
std::pair<std::string, std::string> HourAgo(int days_ago) {
  const std::time_t start = std::time(nullptr) - days_ago * 86'400;
  auto text = [](std::time_t t) {
    std::tm tm{};
    ::gmtime_r(&t, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:00:00Z", tm.tm_year + 1900, tm.tm_mon + 1,
                       tm.tm_mday, tm.tm_hour);
  };
  return {text(start), text(start + 3600)};
}

TEST(LedgerAccess, TheReportShowsImportedBillsApartFromWhatFrugalMeasured) {
  TempDir home;
  // 24 hourly charges for team nlp, 9725 micro-dollars each ($0.2334 in all), in the window.
  std::string csv =
      "BilledCost,BillingCurrency,ChargePeriodStart,ChargePeriodEnd,PricingCategory,"
      "ProviderName,Tags\n";
  for (int i = 0; i < 24; ++i) {
    const auto [start, end] = HourAgo(i + 1);
    csv += fmt::format("0.009725,USD,{},{},Dynamic,AWS,\"{{\"\"team\"\":\"\"nlp\"\"}}\"\n", start,
                       end);
  }
  frugal::testing::WriteTestFile(home / "bill.csv", csv);
  auto imported = RunFrugal({"ledger", "import", "--format", "focus", (home / "bill.csv").string()},
                            home.path());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  // frugal measured one run of its own, for another team.
  auto ran =
      RunFrugal({"run", "--price", "36/h", "--tag", "team=cv", "--", "/bin/sh", "-c", "sleep 0.3"},
                home.path());
  ASSERT_EQ(ran.exit_code, 0) << ran.err;

  const CommandResult r = RunFrugal({"--json", "report", "--by", "team"}, home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  // The measured spend is frugal's run alone; the bill is beside it, never summed in.
  ASSERT_EQ(doc["rows"].size(), 1u) << r.out;
  EXPECT_EQ(doc["rows"][0]["team"], "cv");
  const int64_t measured = doc["total"]["spend_micros"].get<int64_t>();
  EXPECT_GT(measured, 0);
  EXPECT_LT(measured, 10'000);
  ASSERT_EQ(doc["billed"]["rows"].size(), 1u) << r.out;
  EXPECT_EQ(doc["billed"]["rows"][0]["team"], "nlp");
  EXPECT_EQ(doc["billed"]["total"]["billed_micros"], 233'400);
  EXPECT_EQ(doc["billed"]["total"]["billed_usd"], "0.2334");
  EXPECT_EQ(doc["billed"]["total"]["charges"], 24);
  EXPECT_EQ(doc["billed"]["total"]["linked_to_runs_micros"], 0);

  const CommandResult table = RunFrugal({"report", "--by", "team"}, home.path());
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("billed"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("$0.2334"), std::string::npos) << table.out;
}

}  // namespace
}  // namespace frugal::ledger

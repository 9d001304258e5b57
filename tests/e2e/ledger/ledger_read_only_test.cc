// Read-only commands on a ledger that does not exist yet: they never create one or lay a
// schema into an empty file. An explicit --db that is empty is bad input naming the file; the
// default ledger missing or empty reads as an empty ledger, and stays as it was.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "frugal/ledger/ledger.h"
#include "frugal/ledger/schema.h"
#include "support/test_support.h"

namespace frugal::ledger {
namespace {

namespace fs = std::filesystem;
using frugal::testing::CommandResult;
using frugal::testing::RunFrugal;
using frugal::testing::TempDir;

/// Every command that only reads the ledger, as its arguments.
const std::vector<std::vector<std::string>>& ReadOnlyCommands() {
  static const std::vector<std::vector<std::string>> commands = {
      {"runs", "list"},        {"report"},
      {"ledger", "info"},      {"ledger", "export", "--format", "focus"},
      {"policy", "overrides"}, {"tune", "status", "some-study"},
  };
  return commands;
}

std::string Joined(const std::vector<std::string>& args) {
  std::string out;
  for (const std::string& a : args) out += (out.empty() ? "" : " ") + a;
  return out;
}

void Touch(const fs::path& path) {
  fs::create_directories(path.parent_path());
  std::ofstream(path).flush();
}

TEST(LedgerReadOnly, AnEmptyDbFileIsBadInputAndStaysEmpty) {
  TempDir home;
  const fs::path db = home / "team.sqlite";
  Touch(db);
  for (const std::vector<std::string>& command : ReadOnlyCommands()) {
    SCOPED_TRACE(Joined(command));
    std::vector<std::string> args = {"--db", db.string()};
    args.insert(args.end(), command.begin(), command.end());
    const CommandResult r = RunFrugal(args, home.path());
    EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
    EXPECT_NE(r.err.find(db.string() + " is empty: no ledger there yet"), std::string::npos)
        << r.err;
    EXPECT_EQ(fs::file_size(db), 0u) << "a read-only command wrote into the file";
    EXPECT_FALSE(fs::exists(db.string() + "-wal"));
  }
  // FRUGAL_DB names a ledger as explicitly as --db does.
  const CommandResult env = RunFrugal({"runs", "list"}, home.path(), {"FRUGAL_DB=" + db.string()});
  EXPECT_EQ(env.exit_code, 2) << env.err;
  EXPECT_EQ(fs::file_size(db), 0u);
}

TEST(LedgerReadOnly, AMissingOrEmptyDefaultLedgerReadsAsEmptyAndIsNotCreated) {
  TempDir home;
  const fs::path ledger = home / "data" / "ledger.sqlite";
  for (const bool touched : {false, true}) {
    if (touched) Touch(ledger);
    for (const std::vector<std::string>& command : ReadOnlyCommands()) {
      if (command[0] == "tune") continue;  // without --db a study lives in a JSON file
      SCOPED_TRACE(Joined(command) + (touched ? " (empty file)" : " (no file)"));
      const CommandResult r = RunFrugal(command, home.path());
      EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
      EXPECT_EQ(fs::exists(ledger), touched);
      if (touched) {
        EXPECT_EQ(fs::file_size(ledger), 0u);
      }
      EXPECT_FALSE(fs::exists(ledger.string() + "-wal"));
    }
  }
  const CommandResult info = RunFrugal({"--json", "ledger", "info"}, home.path());
  ASSERT_EQ(info.exit_code, 0) << info.err;
  const nlohmann::json doc = nlohmann::json::parse(info.out);
  EXPECT_EQ(doc["location"], ledger.string() + " (none yet)");
  EXPECT_EQ(doc["rows"]["runs"], 0);
  const CommandResult runs = RunFrugal({"runs", "list"}, home.path());
  EXPECT_NE(runs.out.find("No runs"), std::string::npos) << runs.out;
}

TEST(LedgerReadOnly, AWritingCommandStillCreatesTheLedgerInAnEmptyFile) {
  TempDir home;
  const fs::path db = home / "team.sqlite";
  Touch(db);
  const fs::path bill = home / "bill.csv";
  frugal::testing::WriteTestFile(bill,
                                 "BilledCost,ChargePeriodStart,ChargePeriodEnd,ResourceId\n"
                                 "1.50,2026-01-01T00:00:00Z,2026-01-01T01:00:00Z,i-1\n");
  const CommandResult imported = RunFrugal(
      {"--db", db.string(), "ledger", "import", "--format", "focus", bill.string()}, home.path());
  ASSERT_EQ(imported.exit_code, 0) << imported.err;
  auto opened = Ledger::Open(db.string());
  ASSERT_TRUE(opened) << opened.error().message;
  EXPECT_EQ(SchemaVersion((*opened)->connection()).value(), kSchemaVersion);
  EXPECT_EQ((*opened)->CountRows("billing_rows").value(), 1);
}

}  // namespace
}  // namespace frugal::ledger

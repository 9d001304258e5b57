// Bad ledgers and unavailable servers: clear errors with the right exit code, nothing written.

#include <gtest/gtest.h>
#include <sys/mount.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "frugal/ledger/ledger.h"
#include "frugal/ledger/schema.h"
#include "support/test_support.h"

namespace frugal::ledger::testing {
namespace {

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

TEST(LedgerFaults, ForeignFileIsRefusedAndLeftUntouched) {
  TempDir dir;
  const std::string contents = "name,price\nA100,3.06\n";
  WriteTestFile(dir / "prices.csv", contents);
  auto ledger = Ledger::Open((dir / "prices.csv").string());
  ASSERT_FALSE(ledger.has_value());
  EXPECT_EQ(ledger.error().code, ErrorCode::kBadInput);
  EXPECT_NE(ledger.error().message.find("prices.csv"), std::string::npos);
  EXPECT_NE(ledger.error().message.find("not a usable frugal ledger"), std::string::npos);
  std::ifstream in(dir / "prices.csv");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), contents);
}

TEST(LedgerFaults, CorruptLedgerIsRefused) {
  TempDir dir;
  const std::string path = (dir / "ledger.sqlite").string();
  {
    auto ledger = Ledger::Open(path).value();
    NewRun run;
    run.name = "x";
    ASSERT_TRUE(ledger->BeginRun(run).has_value());
  }
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  // Overwrite the header and the first pages with garbage.
  std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
  const std::string garbage(8192, '\x5a');
  f.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  f.close();
  auto broken = Ledger::Open(path);
  ASSERT_FALSE(broken.has_value());
  EXPECT_EQ(broken.error().code, ErrorCode::kBadInput);
}

TEST(LedgerFaults, MissingLedgerIsNotCreatedWhenItMustExist) {
  TempDir dir;
  OpenOptions options;
  options.create = CreateMode::kMustExist;
  auto ledger = Ledger::Open((dir / "typo.sqlite").string(), options);
  ASSERT_FALSE(ledger.has_value());
  EXPECT_EQ(ledger.error().code, ErrorCode::kBadInput);
  EXPECT_FALSE(std::filesystem::exists(dir / "typo.sqlite"));
}

TEST(LedgerFaults, UnreachablePostgresIsUnavailableAndHidesThePassword) {
  // Port 1 on loopback: nothing listens there.
  auto ledger = Ledger::Open("postgresql://frugal:s3cret@127.0.0.1:1/ledger?connect_timeout=2");
  ASSERT_FALSE(ledger.has_value());
  EXPECT_EQ(ledger.error().code, ErrorCode::kUnavailable);
  EXPECT_EQ(ledger.error().message.find("s3cret"), std::string::npos);
  EXPECT_NE(ledger.error().message.find("cannot connect"), std::string::npos);
}

TEST(LedgerFaults, MalformedPostgresUrlIsBadInputAndHidesThePassword) {
  auto ledger = Ledger::Open("postgresql://frugal:s3cret@[::1/ledger");
  ASSERT_FALSE(ledger.has_value());
  EXPECT_EQ(ledger.error().code, ErrorCode::kBadInput) << ledger.error().message;
  EXPECT_EQ(ledger.error().message.find("s3cret"), std::string::npos) << ledger.error().message;
  EXPECT_NE(ledger.error().message.find("not a valid PostgreSQL URL"), std::string::npos);
}

TEST(LedgerFaults, MalformedPortSslmodeOrTimeoutIsBadInputNotUnavailable) {
  // libpq parses these URLs and fails only at connect time; they are the user's typos.
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"postgresql://frugal:s3cret@127.0.0.1:notaport/x", "port 'notaport'"},
      {"postgresql://frugal:s3cret@127.0.0.1:70000/x", "port '70000'"},
      {"postgresql://frugal:s3cret@127.0.0.1:5432/x?sslmode=bogus", "sslmode 'bogus'"},
      {"postgresql://frugal:s3cret@127.0.0.1:5432/x?connect_timeout=abc", "connect_timeout 'abc'"}};
  for (const auto& [url, named] : cases) {
    auto ledger = Ledger::Open(url);
    ASSERT_FALSE(ledger.has_value()) << url;
    EXPECT_EQ(ledger.error().code, ErrorCode::kBadInput) << url << ": " << ledger.error().message;
    EXPECT_NE(ledger.error().message.find(named), std::string::npos) << ledger.error().message;
    EXPECT_EQ(ledger.error().message.find("s3cret"), std::string::npos) << ledger.error().message;
  }
}

TEST(LedgerFaults, OtherUrlSchemesAndDirectoriesAreBadInputNotFiles) {
  TempDir dir;
  auto mysql = Ledger::Open("mysql://host/ledger");
  ASSERT_FALSE(mysql.has_value());
  EXPECT_EQ(mysql.error().code, ErrorCode::kBadInput);
  EXPECT_NE(mysql.error().message.find("unsupported ledger URL scheme 'mysql'"), std::string::npos)
      << mysql.error().message;
  EXPECT_FALSE(std::filesystem::exists("mysql:"));
  auto directory = Ledger::Open(dir.path().string());
  ASSERT_FALSE(directory.has_value());
  EXPECT_EQ(directory.error().code, ErrorCode::kBadInput);
  EXPECT_NE(directory.error().message.find("is a directory"), std::string::npos);
}

TEST(LedgerFaults, FullDiskFailsCleanlyAndKeepsCommittedRows) {
  TempDir dir;
  const std::filesystem::path mnt = dir / "small";
  std::filesystem::create_directories(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=512k") != 0) {
    GTEST_SKIP() << "cannot mount a small tmpfs here to fill the disk";
  }
  Money committed_samples;
  {
    auto ledger = Ledger::Open((mnt / "ledger.sqlite").string()).value();
    NewRun run;
    run.name = "full";
    const RunId id = ledger->BeginRun(run).value();
    std::vector<Sample> batch(500);
    for (size_t i = 0; i < batch.size(); ++i) {
      batch[i].time = FromMillis(static_cast<int64_t>(i) * 1000);
      batch[i].gpu_util = 50;
    }
    Result<void> written;
    int batches = 0;
    while ((written = ledger->AddSamples(id, batch)).has_value()) ++batches;
    EXPECT_EQ(written.error().code, ErrorCode::kFailed);
    EXPECT_NE(written.error().message.find("disk full"), std::string::npos)
        << written.error().message;
    EXPECT_EQ(ledger->CountRows("samples").value(), batches * 500);
  }
  ::umount2(mnt.c_str(), MNT_DETACH);
}

}  // namespace
}  // namespace frugal::ledger::testing

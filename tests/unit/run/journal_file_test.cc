// The run journal on a full disk: a record lands whole or not at all, a torn last line is cut
// off before the next append, and records kept in memory land in order once there is room.

#include "frugal/run/journal_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "frugal/run/run_journal.h"
#include "support/small_disk.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;

using testing::SmallDisk;

/// The journal's lines: each must be one whole JSON record.
std::vector<nlohmann::json> WholeRecords(const fs::path& journal, std::string* bad) {
  const std::string text = testing::ReadTestFile(journal);
  if (!text.empty() && text.back() != '\n') *bad = "the journal ends in a partial line";
  std::vector<nlohmann::json> records;
  size_t at = 0;
  for (size_t end; (end = text.find('\n', at)) != std::string::npos; at = end + 1) {
    nlohmann::json r = nlohmann::json::parse(text.substr(at, end - at), nullptr, false);
    if (r.is_discarded() && bad->empty()) *bad = "a torn line: " + text.substr(at, end - at);
    records.push_back(std::move(r));
  }
  return records;
}

Heartbeat BeatAt(int64_t step) {
  Heartbeat h;
  h.at = std::chrono::system_clock::now();
  h.segment = 1;
  h.step = step;
  return h;
}

TEST(JournalFile, ATornLastLineIsCutOffBeforeTheNextRecord) {
  testing::TempDir dir;
  const fs::path path = dir / "journal.jsonl";
  testing::WriteTestFile(path, "{\"record\":\"a\"}\n{\"record\":\"heart");
  const int fd = ::open(path.c_str(), O_RDWR | O_APPEND);
  ASSERT_GE(fd, 0);
  EXPECT_EQ(CutTornLastLine(fd), 16);
  EXPECT_EQ(CutTornLastLine(fd), 0);  // whole now
  EXPECT_EQ(AppendWholeLine(fd, "{\"record\":\"b\"}\n"), 0);
  ::close(fd);
  EXPECT_EQ(testing::ReadTestFile(path), "{\"record\":\"a\"}\n{\"record\":\"b\"}\n");
  // A journal reopened after a crash mid-record appends its next record on a line of its own.
  testing::WriteTestFile(path, "{\"record\":\"a\"}\n{\"rec");
  {
    RunJournal journal(path);
    journal.RecordHeartbeat(BeatAt(7));
  }
  std::string bad;
  const std::vector<nlohmann::json> records = WholeRecords(path, &bad);
  EXPECT_TRUE(bad.empty()) << bad;
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[1]["step"], 7);
}

TEST(JournalFile, OnAFullDiskEveryRecordLandsWholeOrNotAtAllAndTheRestLandInOrderLater) {
  testing::TempDir dir;
  const SmallDisk disk(dir / "disk", "size=64k");
  if (!disk.mounted()) GTEST_SKIP() << "cannot mount a small tmpfs here to fill a disk";
  const fs::path path = dir / "disk" / "run" / "journal.jsonl";
  RunJournal journal(path);
  ASSERT_TRUE(journal.Open());
  journal.RecordHeartbeat(BeatAt(0));
  disk.Fill();
  // Past the journal's reserve, the disk refuses records; none may land in part.
  int64_t step = 1;
  for (; journal.pending() == 0 && step < 10'000; ++step) journal.RecordHeartbeat(BeatAt(step));
  ASSERT_GT(journal.pending(), 0u) << "the disk never filled";
  const int64_t first_refused = step - 1;
  for (int i = 0; i < 5; ++i) journal.RecordHeartbeat(BeatAt(step++));
  std::string bad;
  std::vector<nlohmann::json> records = WholeRecords(path, &bad);
  EXPECT_TRUE(bad.empty()) << bad;
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(records.back()["step"], first_refused - 1);
  // The records the reserve took after the disk filled are there (the run's last ones would be).
  EXPECT_GT(first_refused, 10) << "the reserve kept nothing past the fill";
  // Freed, the kept records land after the last whole one, in order, each on its own line.
  disk.Free();
  journal.Retry();
  EXPECT_EQ(journal.pending(), 0u);
  records = WholeRecords(path, &bad);
  EXPECT_TRUE(bad.empty()) << bad;
  ASSERT_EQ(static_cast<int64_t>(records.size()), step);
  for (int64_t i = 0; i < step; ++i) EXPECT_EQ(records[static_cast<size_t>(i)]["step"], i);
}

}  // namespace
}  // namespace frugal::run

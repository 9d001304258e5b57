#include "frugal/run/checkpoint_store.h"

#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>
#include <fstream>

#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

CheckpointReport Staged(const CheckpointStore& store, const std::string& name, int64_t step,
                        const std::string& contents) {
  WriteTestFile(store.staging_dir() / name / "state.bin", contents);
  WriteTestFile(store.staging_dir() / name / "sub" / "opt.bin", contents + contents);
  return CheckpointReport{name, step, std::nullopt};
}

TEST(CheckpointStore, CommitsWithAManifestThatVerifies) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  auto c = store.Commit(Staged(store, "s10", 10, "hello"));
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->step, 10);
  EXPECT_EQ(c->bytes, 15u);
  EXPECT_FALSE(fs::exists(store.staging_dir() / "s10"));
  EXPECT_TRUE(fs::exists(c->resume_path / "sub" / "opt.bin"));
  auto m = VerifyCheckpoint(c->dir);
  ASSERT_TRUE(m.has_value()) << m.error().message;
  ASSERT_EQ(m->files.size(), 2u);
  // SHA-256("hello")
  EXPECT_EQ(m->files[0].sha256, "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824");
}

TEST(CheckpointStore, SingleFileCheckpointResumesFromTheFile) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  WriteTestFile(store.staging_dir() / "model.pt", "weights");
  auto c = store.Commit({"model.pt", 5, std::map<std::string, uint64_t>{{"model.pt", 7}}});
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->resume_path.filename(), "model.pt");
  EXPECT_EQ(*ReadFile(c->resume_path), "weights");
  EXPECT_EQ(store.LatestValid(nullptr)->resume_path, c->resume_path);
}

TEST(CheckpointStore, RejectsWhatTheChildDidNotFinishOrCannotBeFound) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  CheckpointReport r = Staged(store, "s1", 1, "abc");
  r.files = std::map<std::string, uint64_t>{{"state.bin", 4}};
  auto size_mismatch = store.Commit(r);
  ASSERT_FALSE(size_mismatch.has_value());
  EXPECT_NE(size_mismatch.error().message.find("has 3 bytes, the child reported 4"),
            std::string::npos);
  auto missing = store.Commit({"nope", 2, std::nullopt});
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("does not exist"), std::string::npos);
  WriteTestFile(dir / "outside" / "x", "1");
  auto outside = store.Commit({(dir / "outside").string(), 3, std::nullopt});
  ASSERT_FALSE(outside.has_value());
  EXPECT_NE(outside.error().message.find("is not inside"), std::string::npos);
  EXPECT_TRUE(store.ListCommitted().empty());
}

TEST(CheckpointStore, VanishedCheckpointDirectoryIsAClearError) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  ASSERT_TRUE(store.Commit(Staged(store, "s1", 1, "a")).has_value());
  fs::remove_all(store.staging_dir());
  auto r = store.Commit({"s2", 2, std::nullopt});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("vanished"), std::string::npos) << r.error().message;
  ASSERT_TRUE(store.Prepare().has_value());  // the next segment recreates it
  EXPECT_TRUE(fs::is_directory(store.staging_dir()));
  EXPECT_EQ(store.LatestValid(nullptr)->step, 1);
}

TEST(CheckpointStore, KeepsTheLastKAndFallsBackWhenTheNewestIsDamaged) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 2);
  ASSERT_TRUE(store.Prepare().has_value());
  for (int step = 1; step <= 4; ++step) {
    ASSERT_TRUE(
        store.Commit(Staged(store, "s" + std::to_string(step), step, "v" + std::to_string(step)))
            .has_value());
  }
  const auto committed = store.ListCommitted();
  ASSERT_EQ(committed.size(), 2u);
  EXPECT_EQ(store.LatestValid(nullptr)->step, 4);
  // Flip the newest checkpoint's contents without changing its size.
  WriteTestFile(committed.back() / "state.bin", "XX");
  std::vector<std::string> problems;
  auto latest = store.LatestValid(&problems);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->step, 3);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("checksum mismatch"), std::string::npos) << problems[0];
  // A truncated file and a missing manifest are damage too.
  WriteTestFile(committed.front() / "sub" / "opt.bin", "v");
  problems.clear();
  EXPECT_FALSE(store.LatestValid(&problems).has_value());
  EXPECT_EQ(problems.size(), 2u);
}

TEST(CheckpointStore, FullDiskWhileCommittingLeavesTheCommittedSetIntact) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  ASSERT_TRUE(store.Commit(Staged(store, "s1", 1, "first")).has_value());
  const CheckpointReport second = Staged(store, "s2", 2, "second");
  // A file-size limit makes the manifest write fail as a full disk does.
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 64;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  auto r = store.Commit(second);
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("write failed"), std::string::npos) << r.error().message;
  ASSERT_EQ(store.ListCommitted().size(), 1u);
  EXPECT_EQ(store.LatestValid(nullptr)->step, 1);
}

TEST(CheckpointStore, PrepareClearsLeftoversOfAnInterruptedCommit) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  ASSERT_TRUE(store.Commit(Staged(store, "s1", 1, "first")).has_value());
  Staged(store, "half", 2, "half-written");
  WriteTestFile(store.committed_dir() / ".trash-ckpt-000000" / "x", "old");
  ASSERT_TRUE(store.Prepare().has_value());
  EXPECT_TRUE(fs::is_empty(store.staging_dir()));
  EXPECT_FALSE(fs::exists(store.committed_dir() / ".trash-ckpt-000000"));
  EXPECT_EQ(store.ListCommitted().size(), 1u);
}

}  // namespace
}  // namespace frugal::run

#include "frugal/run/checkpoint_store.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#define XXH_INLINE_ALL
#include <fmt/format.h>
#include <xxhash.h>

#include <csignal>
#include <fstream>

#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

/// XXH3's 128-bit hash of `text`, canonical hex: what a version-2 manifest lists.
std::string Xxh128Hex(std::string_view text) {
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits(text.data(), text.size()));
  std::string hex;
  for (unsigned char byte : canonical.digest) hex += fmt::format("{:02x}", byte);
  return hex;
}

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
  EXPECT_EQ(m->checksum, Checksum::kXxh128);
  EXPECT_EQ(m->files[0].digest, "b5e9c1ad071b3e7fc779cfaa5e523818");  // xxhsum -H2 of "hello"
  EXPECT_EQ(m->files[1].digest, Xxh128Hex("hellohello"));
  const std::string text = *ReadFile(c->dir / kManifestName);
  EXPECT_NE(text.find("\"version\": 2"), std::string::npos) << text;
  EXPECT_NE(text.find("\"xxh128\""), std::string::npos) << text;
}

TEST(CheckpointStore, ResumesFromACheckpointWhoseManifestIsVersion1WithSha256) {
  TempDir dir;
  CheckpointStore store(dir / "ckpt", 3);
  ASSERT_TRUE(store.Prepare().has_value());
  // Written as frugal wrote manifests before version 2: SHA-256 of every file.
  const fs::path old = store.committed_dir() / "ckpt-000004";
  WriteTestFile(old / "state.bin", "hello");
  WriteTestFile(old / kManifestName,
                R"({"format":"frugal-checkpoint","version":1,"seq":4,"step":40,"kind":"dir",)"
                R"("name":"s40","created_unix_ms":1,"total_bytes":5,"files":[{"path":"state.bin",)"
                R"("bytes":5,"sha256":)"
                R"("2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"}]})");
  auto latest = store.LatestValid(nullptr);
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->step, 40);
  // Its checksum is checked too: same size, other bytes.
  WriteTestFile(old / "state.bin", "hellO");
  std::vector<std::string> problems;
  EXPECT_FALSE(store.LatestValid(&problems).has_value());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("checksum mismatch"), std::string::npos) << problems[0];
  // A new commit beside it takes the next sequence number and the current version.
  auto c = store.Commit(Staged(store, "s50", 50, "new"));
  ASSERT_TRUE(c.has_value()) << c.error().message;
  EXPECT_EQ(c->seq, 5);
  EXPECT_EQ(VerifyCheckpoint(c->dir)->checksum, Checksum::kXxh128);
}

TEST(CheckpointManifest, RefusesAnUnknownVersionOrChecksum) {
  const std::string base =
      R"({"format":"frugal-checkpoint","seq":1,"step":1,"kind":"dir","name":"a",)"
      R"("created_unix_ms":1,"files":[]})";
  auto with = [&](const std::string& fields) { return "{" + fields + "," + base.substr(1); };
  EXPECT_TRUE(Manifest::Parse(with(R"("version":2,"checksum":"xxh128")"), "m").has_value());
  auto v3 = Manifest::Parse(with(R"("version":3,"checksum":"xxh128")"), "m");
  ASSERT_FALSE(v3.has_value());
  EXPECT_NE(v3.error().message.find("version 3"), std::string::npos) << v3.error().message;
  auto md5 = Manifest::Parse(with(R"("version":2,"checksum":"md5")"), "m");
  ASSERT_FALSE(md5.has_value());
  EXPECT_NE(md5.error().message.find("unknown checksum"), std::string::npos);
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

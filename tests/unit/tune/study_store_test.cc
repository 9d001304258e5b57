#include "frugal/tune/study_store.h"

#include <gtest/gtest.h>

#include "frugal/core/atomic_file.h"
#include "support/test_support.h"

namespace frugal::tune {
namespace {

TEST(JsonFileStudyStore, SavesAtomicallyAndLoadsBack) {
  frugal::testing::TempDir dir;
  JsonFileStudyStore store(dir.path() / "studies");
  const nlohmann::json state = {
      {"version", kStudyStateVersion}, {"name", "s"}, {"trials", {1, 2, 3}}};
  ASSERT_TRUE(store.Save("s", state));
  auto loaded = store.Load("s");
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(*loaded, state);
  // Nothing but the state file is left behind (no temporaries).
  int files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir.path() / "studies")) {
    EXPECT_EQ(entry.path().filename(), "s.json");
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST(JsonFileStudyStore, MissingCorruptOrForeignStateIsBadInput) {
  frugal::testing::TempDir dir;
  JsonFileStudyStore store(dir.path());
  auto missing = store.Load("nope");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_NE(missing.error().message.find("no study named 'nope'"), std::string::npos);

  frugal::testing::WriteTestFile(store.PathOf("torn"), "{\"version\": 1, \"trials\": [");
  auto torn = store.Load("torn");
  ASSERT_FALSE(torn);
  EXPECT_EQ(torn.error().code, ErrorCode::kBadInput);

  frugal::testing::WriteTestFile(store.PathOf("future"), "{\"version\": 99}");
  auto future = store.Load("future");
  ASSERT_FALSE(future);
  EXPECT_NE(future.error().message.find("version"), std::string::npos);
}

TEST(JsonFileStudyStore, RetireKeepsTheEarlierStudyUnderTheFirstFreeName) {
  frugal::testing::TempDir dir;
  JsonFileStudyStore store(dir.path());
  EXPECT_EQ(*store.Retire("s"), "");  // nothing to keep
  const nlohmann::json first = {{"version", kStudyStateVersion}, {"name", "s"}, {"n", 1}};
  const nlohmann::json second = {{"version", kStudyStateVersion}, {"name", "s"}, {"n", 2}};
  ASSERT_TRUE(store.Save("s", first));
  EXPECT_EQ(*store.Retire("s"), "s@1");
  ASSERT_TRUE(store.Save("s", second));
  EXPECT_EQ(*store.Retire("s"), "s@2");
  EXPECT_FALSE(store.Load("s"));
  EXPECT_EQ(*store.Load("s@1"), first);
  EXPECT_EQ(*store.Load("s@2"), second);
}

TEST(MemoryStudyStore, KeepsTheLastSave) {
  MemoryStudyStore store;
  ASSERT_TRUE(store.Save("a", {{"n", 1}}));
  ASSERT_TRUE(store.Save("a", {{"n", 2}}));
  EXPECT_EQ((*store.Load("a"))["n"], 2);
  EXPECT_FALSE(store.Load("b"));
}

}  // namespace
}  // namespace frugal::tune

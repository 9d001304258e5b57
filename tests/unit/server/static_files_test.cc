#include "frugal/server/static_files.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::server {
namespace {

using Kind = ByteRange::Kind;

TEST(ChooseRange, OneRangeInsideTheFileIsAPart) {
  const ByteRange a = ChooseRange("bytes=10-19", 100);
  EXPECT_EQ(a.kind, Kind::kPart);
  EXPECT_EQ(a.first, 10U);
  EXPECT_EQ(a.length, 10U);
  const ByteRange open = ChooseRange("bytes=90-", 100);
  EXPECT_EQ(open.kind, Kind::kPart);
  EXPECT_EQ(open.length, 10U);
  const ByteRange past_end = ChooseRange("bytes=90-500", 100);
  EXPECT_EQ(past_end.length, 10U);
  const ByteRange suffix = ChooseRange("bytes=-30", 100);
  EXPECT_EQ(suffix.kind, Kind::kPart);
  EXPECT_EQ(suffix.first, 70U);
  EXPECT_EQ(suffix.length, 30U);
}

TEST(ChooseRange, ManyOrOverlappingRangesAreTheWholeFileOnce) {
  // 2,600 copies of "0-" asked 2,600 copies of the file in one multipart answer.
  std::string many = "bytes=0-";
  for (int i = 1; i < 2600; ++i) many += ",0-";
  EXPECT_EQ(ChooseRange(many, 84'000).kind, Kind::kWhole);
  EXPECT_EQ(ChooseRange("bytes=0-10,5-20", 100).kind, Kind::kWhole);
  EXPECT_EQ(ChooseRange("bytes=0-1,50-51", 100).kind, Kind::kWhole);
}

TEST(ChooseRange, WhatCannotBeSentIs416AndWhatCannotBeReadIsIgnored) {
  EXPECT_EQ(ChooseRange("bytes=100-", 100).kind, Kind::kUnsatisfiable);
  EXPECT_EQ(ChooseRange("bytes=-0", 100).kind, Kind::kUnsatisfiable);
  EXPECT_EQ(ChooseRange("bytes=0-", 0).kind, Kind::kUnsatisfiable);
  for (const char* ignored : {"", "items=0-1", "bytes=", "bytes=5", "bytes=9-3", "bytes=a-b",
                              "bytes=-", "bytes= 1-2", "bytes=1-2x"}) {
    EXPECT_EQ(ChooseRange(ignored, 100).kind, Kind::kWhole) << ignored;
  }
}

TEST(ResolveStatic, FindsFilesAndIndexesButNeverLeavesTheDirectory) {
  frugal::testing::TempDir dir;
  const std::filesystem::path web = dir / "web";
  frugal::testing::WriteTestFile(web / "index.html", "<html>");
  frugal::testing::WriteTestFile(web / "assets/index-1a2b.js", "js");
  frugal::testing::WriteTestFile(dir / "secret.txt", "secret");
  std::filesystem::create_symlink(dir / "secret.txt", web / "link.txt");

  const auto index = ResolveStatic(web, "/");
  ASSERT_TRUE(index);
  EXPECT_EQ(index->path.filename(), "index.html");
  EXPECT_EQ(index->cache_control, "no-cache");
  const auto js = ResolveStatic(web, "/assets/index-1a2b.js");
  ASSERT_TRUE(js);
  EXPECT_EQ(js->content_type, "text/javascript; charset=utf-8");
  EXPECT_NE(js->cache_control.find("immutable"), std::string::npos);
  for (const std::string& bad :
       {std::string("/../secret.txt"), std::string("/assets/../../secret.txt"),
        std::string("/./index.html"), std::string("/link.txt"), std::string("/missing.js"),
        std::string("/index.html\0.js", 15), std::string("/..\\secret.txt"),
        std::string("index.html")}) {
    EXPECT_FALSE(ResolveStatic(web, bad)) << bad;
  }
}

}  // namespace
}  // namespace frugal::server

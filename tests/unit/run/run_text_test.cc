#include "frugal/run/run_text.h"

#include <gtest/gtest.h>

namespace frugal::run {
namespace {

TEST(RunText, TellsWellFormedUtf8FromBytesThatAreNot) {
  EXPECT_TRUE(IsUtf8(""));
  EXPECT_TRUE(IsUtf8("train.py --lr 3e-4"));
  EXPECT_TRUE(IsUtf8("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));  // é € 😀
  EXPECT_FALSE(IsUtf8("\xff"));
  EXPECT_FALSE(IsUtf8("ab\xc3"));            // cut short
  EXPECT_FALSE(IsUtf8("\xc0\xaf"));          // overlong '/'
  EXPECT_FALSE(IsUtf8("\xed\xa0\x80"));      // a surrogate
  EXPECT_FALSE(IsUtf8("\xf4\x90\x80\x80"));  // past U+10FFFF
}

TEST(RunText, EscapesOnlyTheBytesThatAreNotUtf8) {
  EXPECT_EQ(EscapeNonUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(EscapeNonUtf8("a\xff"
                          "b"),
            "a\\xffb");
  EXPECT_EQ(EscapeNonUtf8("\xc3(\xe2\x82"), "\\xc3(\\xe2\\x82");
  EXPECT_TRUE(IsUtf8(EscapeNonUtf8("\x80\x81\xfe\xff")));
}

TEST(RunText, RunIdsThatCannotNameAFolderOrBeShownAreBadInput) {
  EXPECT_TRUE(CheckRunId("bert-base-7", "--run-id").has_value());
  EXPECT_TRUE(CheckRunId(std::string(kMaxRunIdBytes, 'a'), "--run-id").has_value());
  for (const std::string& bad :
       {std::string(kMaxRunIdBytes + 1, 'a'), std::string(300, 'x'), std::string("a/b"),
        std::string(".."), std::string("r\xff"), std::string()}) {
    const Result<void> checked = CheckRunId(bad, "--run-id");
    ASSERT_FALSE(checked.has_value()) << bad;
    EXPECT_EQ(checked.error().code, ErrorCode::kBadInput);
    EXPECT_NE(checked.error().message.find("--run-id"), std::string::npos);
    EXPECT_TRUE(IsUtf8(checked.error().message));
  }
  const Result<void> tag = CheckTagText("team", "nl\xff", "--tag");
  ASSERT_FALSE(tag.has_value());
  EXPECT_EQ(tag.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(tag.error().message, "option --tag: 'team=nl\\xff' is not UTF-8 text");
}

}  // namespace
}  // namespace frugal::run

#include "frugal/core/text.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "frugal/core/file_name.h"

namespace frugal {
namespace {

TEST(Text, ParsesCountsWithSuffixes) {
  EXPECT_DOUBLE_EQ(*ParseCount("7b"), 7e9);
  EXPECT_DOUBLE_EQ(*ParseCount("2t"), 2e12);
  EXPECT_DOUBLE_EQ(*ParseCount("350m"), 350e6);
  EXPECT_DOUBLE_EQ(*ParseCount("7e9"), 7e9);
  EXPECT_DOUBLE_EQ(*ParseCount("1.5k"), 1500);
  EXPECT_DOUBLE_EQ(*ParseCount("8.2g"), 8.2e9);  // SI giga, as FLOPs are written
  EXPECT_FALSE(ParseCount("-7b").has_value());
  EXPECT_FALSE(ParseCount("7x").has_value());
  EXPECT_FALSE(ParseCount("").has_value());
}

TEST(Text, ANameThatBecomesAFileStaysInItsFolder) {
  for (const std::string& name :
       std::vector<std::string>{"llama-7b", "run.v2", "a b", "名前", std::string(200, 'n')}) {
    EXPECT_TRUE(CheckFileName(name, "option --name")) << name;
  }
  for (const std::string& name :
       std::vector<std::string>{std::string(), std::string("."), std::string(".."),
                                std::string("../../x"), std::string("/abs"), std::string("a/b"),
                                std::string("a\nb"), std::string(201, 'n'), std::string("\xff")}) {
    const Result<void> r = CheckFileName(name, "option --name");
    ASSERT_FALSE(r) << name;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_EQ(r.error().message.rfind("option --name: ", 0), 0u) << r.error().message;
  }
}

TEST(Text, SubnormalNumbersAreOutOfRangeNotTinyPositives) {
  // 1e-320 has lost its precision: read as a rate it priced to infinity.
  EXPECT_FALSE(ParseDouble("1e-320"));
  EXPECT_FALSE(ParseDouble("-4e-310"));
  EXPECT_FALSE(ParseCount("1e-320"));
  EXPECT_EQ(*ParseDouble("1e-300"), 1e-300);
  EXPECT_EQ(*ParseDouble("0"), 0.0);
}

TEST(Text, CountsTheirNoun) {
  EXPECT_EQ(Counted(1, "GPU"), "1 GPU");
  EXPECT_EQ(Counted(2, "GPU"), "2 GPUs");
  EXPECT_EQ(Counted(0, "run"), "0 runs");
}

TEST(Text, StrictNumbers) {
  EXPECT_DOUBLE_EQ(*ParseDouble("2.5"), 2.5);
  EXPECT_FALSE(ParseDouble("2.5x").has_value());
  EXPECT_FALSE(ParseDouble("inf").has_value());
  // A number too large or too small for a double is one, out of range.
  EXPECT_EQ(ParseDouble("1e400").error().message, "'1e400' is out of range");
  EXPECT_EQ(ParseDouble("1e-400").error().message, "'1e-400' is out of range");
  EXPECT_EQ(ParseDouble("tiny").error().message, "'tiny' is not a number");
  EXPECT_EQ(*ParseInt("42"), 42);
  EXPECT_FALSE(ParseInt("4.2").has_value());
}

TEST(Text, SuggestsCloseNamesOnly) {
  const std::vector<std::string> names = {"gpus", "gpu", "tier", "deadline"};
  EXPECT_EQ(Suggest("gpuz", names).value_or(""), "gpus");
  EXPECT_EQ(Suggest("dedline", names).value_or(""), "deadline");
  EXPECT_FALSE(Suggest("zebra", names).has_value());
  EXPECT_EQ(DidYouMean("teir", names), " (did you mean 'tier'?)");
}

TEST(Text, SuggestionWorkIsBoundedForLongValues) {
  std::vector<std::string> names;
  for (int i = 0; i < 2000; ++i) names.push_back("aws-us-east-1-p4d.24xlarge-" + std::to_string(i));
  const std::string value(20000, 'z');
  const auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(DidYouMean(value, names), "");
  // Guards against the quadratic edit distance (16 s before); not a speed target.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  // Short typos still get their suggestion.
  EXPECT_EQ(DidYouMean("aws-us-east-1-p4d.24xlarge-17x", names),
            " (did you mean 'aws-us-east-1-p4d.24xlarge-17'?)");
}

TEST(Text, FindsTheFirstByteThatIsNotUtf8) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80"), std::nullopt);
  EXPECT_EQ(FirstInvalidUtf8("ab\xE9"), 2u);            // Latin-1
  EXPECT_EQ(FirstInvalidUtf8("\xC0\xAF"), 0u);          // overlong '/'
  EXPECT_EQ(FirstInvalidUtf8("x\xED\xA0\x80"), 1u);     // surrogate
  EXPECT_EQ(FirstInvalidUtf8("\xE2\x82"), 0u);          // cut off
  EXPECT_EQ(FirstInvalidUtf8("\xF4\x90\x80\x80"), 0u);  // past U+10FFFF
  auto r = RequireUtf8("a\nb\xFF", "f.csv");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message.rfind("f.csv:2:2: byte 0xFF is not UTF-8", 0), 0u);
}

TEST(Text, AbbreviateKeepsShortValuesAndCutsLongOnes) {
  EXPECT_EQ(Abbreviate("short"), "short");
  const std::string cut = Abbreviate(std::string(1000, 'a'), 10);
  EXPECT_EQ(cut, "aaaaaaaaaa… (1000 bytes)");
  // Never splits a UTF-8 sequence.
  EXPECT_EQ(FirstInvalidUtf8(Abbreviate("\xC3\xA9\xC3\xA9\xC3\xA9", 3)), std::nullopt);
}

}  // namespace
}  // namespace frugal

#include "frugal/core/text.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(Text, ParsesCountsWithSuffixes) {
  EXPECT_DOUBLE_EQ(*ParseCount("7b"), 7e9);
  EXPECT_DOUBLE_EQ(*ParseCount("2t"), 2e12);
  EXPECT_DOUBLE_EQ(*ParseCount("350m"), 350e6);
  EXPECT_DOUBLE_EQ(*ParseCount("7e9"), 7e9);
  EXPECT_DOUBLE_EQ(*ParseCount("1.5k"), 1500);
  EXPECT_FALSE(ParseCount("-7b").has_value());
  EXPECT_FALSE(ParseCount("7x").has_value());
  EXPECT_FALSE(ParseCount("").has_value());
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

}  // namespace
}  // namespace frugal

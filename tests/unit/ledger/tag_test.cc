// The one reading of a "key=value" tag: --tag, a queue budget's tag:, a runs filter.

#include <gtest/gtest.h>

#include "frugal/ledger/run_json.h"
#include "frugal/ledger/types.h"

namespace frugal::ledger {
namespace {

TEST(ParseTag, TrimsBothSidesAndKeepsAnEqualsSignInTheValue) {
  const Result<Tag> t = ParseTag(" team = nlp ");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(t->key, "team");
  EXPECT_EQ(t->value, "nlp");
  const Result<Tag> eq = ParseTag("query=a=b");
  ASSERT_TRUE(eq) << eq.error().message;
  EXPECT_EQ(eq->key, "query");
  EXPECT_EQ(eq->value, "a=b");
  const Result<Tag> empty_value = ParseTag("team=");
  ASSERT_TRUE(empty_value) << empty_value.error().message;
  EXPECT_EQ(empty_value->value, "");
}

TEST(ParseTag, NoEqualsSignOrNoKeyIsBadInput) {
  for (const char* bad : {"team", "=nlp", " =nlp", ""}) {
    const Result<Tag> t = ParseTag(bad);
    ASSERT_FALSE(t) << bad;
    EXPECT_EQ(t.error().code, ErrorCode::kBadInput);
    EXPECT_NE(t.error().message.find("is not key=value"), std::string::npos) << t.error().message;
  }
}

TEST(ParseTag, ARunsFilterMatchesTheTrimmedTagItChecked) {
  // `runs list --tag "team = nlp"` filters on team=nlp, as the run was tagged.
  RunFilterText text;
  text.tags = {"team = nlp"};
  const Result<RunFilter> f = ParseRunFilter(text, Timestamp{}, "--");
  ASSERT_TRUE(f) << f.error().message;
  ASSERT_EQ(f->tags.size(), 1u);
  EXPECT_EQ(f->tags[0].first, "team");
  EXPECT_EQ(f->tags[0].second, "nlp");
  text.tags = {"team"};
  const Result<RunFilter> bad = ParseRunFilter(text, Timestamp{}, "--");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("--tag: 'team' is not key=value"), std::string::npos)
      << bad.error().message;
}

}  // namespace
}  // namespace frugal::ledger

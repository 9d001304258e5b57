#include "frugal/core/yaml.h"

#include <gtest/gtest.h>

namespace frugal {
namespace {

TEST(YamlDoc, UnknownKeyNamesLocationAndSuggests) {
  auto doc = YamlDoc::Parse("apiVersion: v1\nresources:\n  gpuz: 8\n", "job.yaml");
  ASSERT_TRUE(doc.has_value());
  auto r = doc->CheckKeys(doc->root()["resources"], "resources", {"gpus", "gpu", "tier"});
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message,
            "job.yaml:3:3: unknown key 'gpuz' in resources (did you mean 'gpus'?)");
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
}

TEST(YamlDoc, DuplicateKeyIsAnErrorNotASilentlyIgnoredValue) {
  auto doc = YamlDoc::Parse("gates: {budget_usd: 5}\nname: a\ngates: {budget_usd: 500}\n", "s.yaml");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().message, "s.yaml:3:1: duplicate key 'gates' (first at line 1)");
  // At any depth, in mappings no parser checks the keys of (a study's parameters).
  auto nested = YamlDoc::Parse("space:\n  lr: {type: float}\n  lr: {type: int}\n", "s.yaml");
  ASSERT_FALSE(nested.has_value());
  EXPECT_EQ(nested.error().message, "s.yaml:3:3: duplicate key 'lr' (first at line 2)");
  auto in_list = YamlDoc::Parse("steps:\n  - {a: 1, a: 2}\n", "s.yaml");
  ASSERT_FALSE(in_list.has_value());
  EXPECT_NE(in_list.error().message.find("duplicate key 'a'"), std::string::npos);
}

TEST(YamlDoc, TypedFieldsReportField) {
  auto doc = YamlDoc::Parse("budget: lots\ndeadline: 36h\nprice: $3.06\nn: 4\n", "s.yaml");
  ASSERT_TRUE(doc.has_value());
  auto budget = doc->OptionalMoney(doc->root(), "budget");
  ASSERT_FALSE(budget.has_value());
  EXPECT_NE(budget.error().message.find("s.yaml:1:9: field 'budget'"), std::string::npos)
      << budget.error().message;
  EXPECT_EQ(**doc->OptionalDuration(doc->root(), "deadline"), std::chrono::hours(36));
  EXPECT_EQ(**doc->OptionalMoney(doc->root(), "price"), Money::FromCents(306));
  EXPECT_EQ(**doc->OptionalInt(doc->root(), "n"), 4);
  EXPECT_FALSE(doc->OptionalInt(doc->root(), "missing")->has_value());
  auto required = doc->RequiredString(doc->root(), "name");
  ASSERT_FALSE(required.has_value());
  EXPECT_NE(required.error().message.find("missing required field 'name'"), std::string::npos);
}

TEST(YamlDoc, SyntaxErrorsAreLocated) {
  auto doc = YamlDoc::Parse("a: [1, 2\nb: 3\n", "bad.yaml");
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(doc.error().message.rfind("bad.yaml:", 0), 0u) << doc.error().message;
}

}  // namespace
}  // namespace frugal

#include "frugal/core/yaml.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "frugal/core/yaml_guard.h"

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
  auto doc =
      YamlDoc::Parse("gates: {budget_usd: 5}\nname: a\ngates: {budget_usd: 500}\n", "s.yaml");
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

TEST(YamlDoc, ASecondDocumentIsRefusedAtItsLineNotIgnored) {
  // The loader reads the first document only: the second one's keys would be lost unseen.
  auto second = YamlDoc::Parse("kind: Job\nname: a\n---\nname: b\n", "job.yaml");
  ASSERT_FALSE(second.has_value());
  EXPECT_EQ(second.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(second.error().message.rfind("job.yaml:3:", 0), 0u) << second.error().message;
  EXPECT_NE(second.error().message.find("second YAML document"), std::string::npos);
  auto after_end = YamlDoc::Parse("kind: Job\n...\njunk: 1\n", "job.yaml");
  ASSERT_FALSE(after_end.has_value());
  EXPECT_EQ(after_end.error().message.rfind("job.yaml:3:", 0), 0u) << after_end.error().message;
  // One document, with its markers or with three dots inside a value, is read as before.
  auto one = YamlDoc::Parse("---\nkind: Job\nnote: wait...\n...\n", "job.yaml");
  ASSERT_TRUE(one.has_value()) << one.error().message;
  EXPECT_EQ(one->root()["note"].Scalar(), "wait...");
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

// Nine levels of ten aliases: a billion nodes for a reader that walks every alias.
std::string AliasBomb(int levels) {
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= levels; ++i) {
    text += fmt::format("a{}: &a{} [", i, i);
    for (int k = 0; k < 10; ++k) text += fmt::format("{}*a{}", k ? ", " : "", i - 1);
    text += "]\n";
  }
  return text;
}

TEST(YamlDoc, AliasBombIsRefusedQuicklyAtTheAlias) {
  const auto start = std::chrono::steady_clock::now();
  auto doc = YamlDoc::Parse(AliasBomb(9), "offers.yaml");
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(doc.has_value());
  EXPECT_EQ(doc.error().code, ErrorCode::kBadInput);
  EXPECT_NE(doc.error().message.find("aliases expand the document past"), std::string::npos)
      << doc.error().message;
  EXPECT_EQ(doc.error().message.rfind("offers.yaml:", 0), 0u) << doc.error().message;
  // Not a timing assertion on speed, a guard against the exponential walk (tens of seconds).
  EXPECT_LT(took, std::chrono::seconds(5));
  // A few aliases of a small anchor stay fine.
  auto small = YamlDoc::Parse(AliasBomb(2), "offers.yaml");
  EXPECT_TRUE(small.has_value()) << small.error().message;
}

TEST(YamlDoc, AliasInsideItsOwnAnchorIsRefused) {
  auto doc = YamlDoc::Parse("a: &x [1, *x]\n", "c.yaml");
  ASSERT_FALSE(doc.has_value());
  EXPECT_NE(doc.error().message.find("c.yaml:1:"), std::string::npos) << doc.error().message;
}

TEST(YamlDoc, GuardTurnsAReaderAskingAnAbsentKeyIntoBadInput) {
  auto doc = YamlDoc::Parse("utilization: {start: 2026-03-01}\n", "inv.yaml");
  ASSERT_TRUE(doc.has_value());
  const YAML::Node& root = doc->root();
  auto r = GuardYaml(doc->source(), [&]() -> Result<size_t> {
    return root["utilization"]["gpu_util"].size();  // an invalid node: yaml-cpp throws
  });
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(r.error().message.rfind("inv.yaml: malformed or missing field", 0), 0u)
      << r.error().message;
}

TEST(YamlDoc, KeysThatAreListsOrMappingsAreRefusedAtTheirLine) {
  // Found by the fuzzer: a reader taking this key as a name threw "bad conversion".
  auto complex = YamlDoc::Parse("objective:\n  metric: m\n?   watch: [a]\n", "study.yaml");
  ASSERT_FALSE(complex.has_value());
  EXPECT_EQ(complex.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(complex.error().message.rfind("study.yaml:3:5: a key must be a name", 0), 0u)
      << complex.error().message;
  auto flow = YamlDoc::Parse("space: {[a, b]: 1}\n", "s.yaml");
  ASSERT_FALSE(flow.has_value());
  EXPECT_NE(flow.error().message.find("a key must be a name"), std::string::npos);
}

TEST(YamlDoc, NonUtf8ByteIsBadInputWithItsLine) {
  // In a value and in a comment alike.
  auto value = YamlDoc::Parse("name: a\nteam: caf\xE9\n", "study.yaml");
  ASSERT_FALSE(value.has_value());
  EXPECT_EQ(value.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(value.error().message.rfind("study.yaml:2:10: byte 0xE9 is not UTF-8", 0), 0u)
      << value.error().message;
  auto comment = YamlDoc::Parse("# \xFF\nname: a\n", "study.yaml");
  ASSERT_FALSE(comment.has_value());
  EXPECT_EQ(comment.error().message.rfind("study.yaml:1:3:", 0), 0u) << comment.error().message;
  EXPECT_TRUE(YamlDoc::Parse("name: caf\xC3\xA9\n", "study.yaml").has_value());
}

TEST(YamlDoc, EmptyDocumentAndMissingFieldHaveALocation) {
  auto empty = YamlDoc::Parse("# nothing\n", "job.yaml");
  ASSERT_FALSE(empty.has_value());
  EXPECT_EQ(empty.error().message.rfind("job.yaml:1:1: empty document", 0), 0u)
      << empty.error().message;
  auto doc = YamlDoc::Parse("name: a\n", "job.yaml");
  ASSERT_TRUE(doc.has_value());
  // An absent section is located at the document's start, a present one at its own line.
  EXPECT_EQ(doc->Missing(doc->root()["trial"], "command").message,
            "job.yaml:1:1: missing required field 'command'");
  auto nested = YamlDoc::Parse("name: a\ntrial:\n  gpus: 1\n", "job.yaml");
  ASSERT_TRUE(nested.has_value());
  auto missing = nested->RequiredString(nested->root()["trial"], "command");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().message, "job.yaml:3:3: missing required field 'command'");
}

TEST(YamlDoc, DeepNestingSaysSoAtItsLine) {
  for (const std::string& text : {"a: " + std::string(5000, '[') + std::string(5000, ']') + "\n",
                                  "x: 1\nb: " + std::string(5000, '{') + "\n"}) {
    auto doc = YamlDoc::Parse(text, "deep.yaml");
    ASSERT_FALSE(doc.has_value());
    EXPECT_EQ(doc.error().code, ErrorCode::kBadInput);
    EXPECT_NE(doc.error().message.find("deep.yaml:"), std::string::npos) << doc.error().message;
    EXPECT_NE(doc.error().message.find("nested too deeply"), std::string::npos)
        << doc.error().message;
  }
}

TEST(YamlDoc, LongUnknownKeyIsCutInTheMessage) {
  const std::string key(1000, 'q');  // YAML's longest plain key is 1024 characters
  auto doc = YamlDoc::Parse(key + ": 1\n", "job.yaml");
  ASSERT_TRUE(doc.has_value());
  auto r = doc->CheckKeys(doc->root(), "job", {"name", "resources"});
  ASSERT_FALSE(r.has_value());
  EXPECT_LT(r.error().message.size(), 300u) << r.error().message.size();
  EXPECT_NE(r.error().message.find("(1000 bytes)"), std::string::npos);
}

}  // namespace
}  // namespace frugal

#include "frugal/estimate/model_yaml.h"

#include <gtest/gtest.h>

#include <string>

namespace frugal::estimate {
namespace {

YamlDoc Doc(const std::string& text) {
  Result<YamlDoc> doc = YamlDoc::Parse(text, "spec.yaml");
  EXPECT_TRUE(doc) << doc.error().message;
  return std::move(*doc);
}

Result<void> Check(const std::string& model, std::string_view own,
                   std::initializer_list<std::string_view> extra = {}) {
  const YamlDoc doc = Doc("kind: X\nmodel:\n" + model);
  const YAML::Node m = FRUGAL_TRY(ModelSection(doc, doc.root()));
  return CheckModelKeys(doc, m, own, extra);
}

TEST(ModelYaml, TheSpecsOwnKeyTheShapeKeysAndItsExtrasPass) {
  std::string every = "  family: transformer\n  weights: int4\n";
  for (std::string_view key : kModelShapeKeys) every += "  " + std::string(key) + ": 1\n";
  const Result<void> all = Check(every, "family", {"weights"});
  EXPECT_TRUE(all) << all.error().message;

  // Another spec's key is refused at its line, with the nearest known key.
  const Result<void> other = Check("  layers: 2\n  hidden: 64\n  type: decoder\n", "family");
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ErrorCode::kBadInput);
  EXPECT_NE(other.error().message.find("spec.yaml:5:"), std::string::npos) << other.error().message;
  EXPECT_NE(other.error().message.find("unknown key 'type' in model"), std::string::npos)
      << other.error().message;
  const Result<void> extra = Check("  params: 7b\n  weights: int4\n", "type");
  ASSERT_FALSE(extra);
  EXPECT_NE(extra.error().message.find("unknown key 'weights'"), std::string::npos);
  const Result<void> typo = Check("  layers: 2\n  hiden: 64\n", "type");
  ASSERT_FALSE(typo);
  EXPECT_NE(typo.error().message.find("did you mean 'hidden'"), std::string::npos)
      << typo.error().message;
}

TEST(ModelYaml, AMissingSectionAndAShapeThatDoesNotResolveAreRefused) {
  const YamlDoc none = Doc("kind: X\nwork: {tokens: 1}\n");
  const Result<YAML::Node> missing = ModelSection(none, none.root());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("field 'model': missing (params, or layers and hidden)"),
            std::string::npos)
      << missing.error().message;

  const YamlDoc shaped = Doc("kind: X\nmodel: {layers: 2, hidden: 64, vocab: 100}\n");
  const Result<Model> model = ReadModelShape(shaped, shaped.root()["model"]);
  ASSERT_TRUE(model) << model.error().message;
  EXPECT_EQ(model->layers, 2);
  EXPECT_EQ(model->hidden, 64);
  EXPECT_GT(model->params, 0);

  const YamlDoc bare = Doc("kind: X\nmodel: {seq: 128}\n");
  const Result<Model> unresolved = ReadModelShape(bare, bare.root()["model"]);
  ASSERT_FALSE(unresolved);
  EXPECT_EQ(unresolved.error().code, ErrorCode::kBadInput);
  EXPECT_NE(unresolved.error().message.find("spec.yaml:2:"), std::string::npos)
      << unresolved.error().message;
  EXPECT_NE(unresolved.error().message.find("field 'model'"), std::string::npos)
      << unresolved.error().message;
}

}  // namespace
}  // namespace frugal::estimate

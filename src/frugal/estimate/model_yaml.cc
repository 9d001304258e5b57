#include "frugal/estimate/model_yaml.h"

#include <fmt/format.h>

#include <vector>

#include "frugal/core/yaml_bounds.h"

namespace frugal::estimate {
namespace {

constexpr double kMinSpecParams = 1;
constexpr double kMaxSpecParams = 1e15;
constexpr int kMaxSpecTokens = 100'000'000;

}  // namespace

Result<ModelSpec> ReadModelSpec(const YamlDoc& doc, const YAML::Node& m) {
  ModelSpec spec;
  spec.params = FRUGAL_TRY(doc.OptionalCount(m, "params"));
  if (spec.params && !(*spec.params >= kMinSpecParams && *spec.params <= kMaxSpecParams)) {
    return Fail(doc.ErrorAt(m["params"], "params",
                            fmt::format("must be between {:g} and {:g} parameters, got {:g}",
                                        kMinSpecParams, kMaxSpecParams, *spec.params)));
  }
  spec.layers = FRUGAL_TRY(OptionalIntIn(doc, m, "layers", 1, 10'000));
  spec.hidden = FRUGAL_TRY(OptionalIntIn(doc, m, "hidden", 1, 1'000'000));
  spec.heads = FRUGAL_TRY(OptionalIntIn(doc, m, "heads", 1, 100'000));
  spec.kv_heads = FRUGAL_TRY(OptionalIntIn(doc, m, "kv_heads", 1, 100'000));
  spec.ffn = FRUGAL_TRY(OptionalIntIn(doc, m, "ffn", 1, 10'000'000));
  spec.vocab = FRUGAL_TRY(OptionalIntIn(doc, m, "vocab", 1, kMaxSpecTokens));
  spec.seq = FRUGAL_TRY(OptionalIntIn(doc, m, "seq", 1, kMaxSpecTokens)).value_or(spec.seq);
  if (auto mlp = FRUGAL_TRY(doc.OptionalString(m, "mlp"))) {
    auto parsed = ParseMlp(*mlp);
    if (!parsed) return Fail(doc.ErrorAt(m["mlp"], "mlp", parsed.error().message));
    spec.mlp = *parsed;
  }
  spec.tied_embeddings = FRUGAL_TRY(doc.OptionalBool(m, "tied_embeddings")).value_or(false);
  spec.experts = FRUGAL_TRY(OptionalIntIn(doc, m, "experts", 1, 100'000));
  spec.experts_per_token = FRUGAL_TRY(OptionalIntIn(doc, m, "experts_per_token", 1, 100'000));
  return spec;
}

Result<YAML::Node> ModelSection(const YamlDoc& doc, const YAML::Node& root) {
  const YAML::Node m = root["model"];
  if (!m.IsDefined())
    return Fail(doc.ErrorAt(root, "model", "missing (params, or layers and hidden)"));
  return m;
}

Result<void> CheckModelKeys(const YamlDoc& doc, const YAML::Node& m, std::string_view own,
                            std::initializer_list<std::string_view> extra) {
  std::vector<std::string_view> allowed = {own};
  allowed.insert(allowed.end(), kModelShapeKeys.begin(), kModelShapeKeys.end());
  allowed.insert(allowed.end(), extra.begin(), extra.end());
  return doc.CheckKeys(m, "model", allowed);
}

Result<Model> ReadModelShape(const YamlDoc& doc, const YAML::Node& m) {
  const ModelSpec spec = FRUGAL_TRY(ReadModelSpec(doc, m));
  Result<Model> model = ResolveModel(spec);
  if (!model) return Fail(doc.ErrorAt(m, "model", model.error().message));
  return model;
}

}  // namespace frugal::estimate

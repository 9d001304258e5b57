#pragma once
// The one reader of a spec's `model:` shape keys, shared by the job spec (plan/job_spec.cc)
// and the inference spec (serving/served_model.cc): both find the section, check its keys and
// read the transformer's shape here; each reads its own extra keys.

#include <yaml-cpp/yaml.h>

#include <array>
#include <initializer_list>
#include <string_view>

#include "frugal/core/yaml.h"
#include "frugal/estimate/model.h"

namespace frugal::estimate {

/// The shape keys of the mapping `m` (kModelShapeKeys; unknown keys are CheckModelKeys's to
/// refuse). Bounds, each refused at its line: params 1 to 1e15, layers 1 to
/// 10,000, hidden 1 to 1e6, heads and kv_heads 1 to 1e5, ffn 1 to 1e7, vocab and seq 1 to 1e8,
/// experts and experts_per_token 1 to 1e5.
[[nodiscard]] Result<ModelSpec> ReadModelSpec(const YamlDoc& doc, const YAML::Node& m);

/// The keys ReadModelSpec reads.
inline constexpr std::array<std::string_view, 12> kModelShapeKeys = {
    "params", "layers", "hidden", "heads",           "kv_heads", "ffn",
    "vocab",  "seq",    "mlp",    "tied_embeddings", "experts",  "experts_per_token"};

/// The spec's `model:` section under `root`; refused at the document when it is missing.
[[nodiscard]] Result<YAML::Node> ModelSection(const YamlDoc& doc, const YAML::Node& root);
/// Every key of the `model:` mapping `m` must be `own` (the spec's key read before the shape: the
/// job spec's family, the inference spec's type), a shape key or one of `extra` (the spec's own,
/// read after the shape).
[[nodiscard]] Result<void> CheckModelKeys(const YamlDoc& doc, const YAML::Node& m,
                                          std::string_view own,
                                          std::initializer_list<std::string_view> extra = {});
/// The shape ReadModelSpec reads, resolved (ResolveModel); one that does not resolve is refused
/// at `model`.
[[nodiscard]] Result<Model> ReadModelShape(const YamlDoc& doc, const YAML::Node& m);

}  // namespace frugal::estimate

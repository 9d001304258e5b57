#pragma once
// The one reader of a spec's `model:` shape keys, shared by the job spec (plan/job_spec.cc)
// and the inference spec (serving/inference_spec.cc): each checks its own set of keys and
// reads its own extra ones, and both read the transformer's shape here.

#include <yaml-cpp/yaml.h>

#include "frugal/core/yaml.h"
#include "frugal/estimate/model.h"

namespace frugal::estimate {

/// The shape keys of the mapping `m`: params, layers, hidden, heads, kv_heads, ffn, vocab, seq,
/// mlp, tied_embeddings, experts, experts_per_token (not checked for unknown keys: the caller
/// does, with its own extra keys). Bounds, each refused at its line: params 1 to 1e15, layers 1 to
/// 10,000, hidden 1 to 1e6, heads and kv_heads 1 to 1e5, ffn 1 to 1e7, vocab and seq 1 to 1e8,
/// experts and experts_per_token 1 to 1e5.
[[nodiscard]] Result<ModelSpec> ReadModelSpec(const YamlDoc& doc, const YAML::Node& m);

}  // namespace frugal::estimate

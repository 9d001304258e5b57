#pragma once
// The inference spec's `model:` section: the architecture, the transformer's shape (read by
// the shared estimate/model_yaml.h), a mixture of experts' active parameters, the forward
// FLOPs of a cnn, the weights' format and the KV cache's element. Used by inference_spec.cc.

#include <yaml-cpp/yaml.h>

#include "frugal/core/yaml.h"
#include "frugal/serving/inference_spec.h"

namespace frugal::serving {

/// The `model:` section of `root`; kBadInput "file:line:col: field 'x': ..." on any error.
[[nodiscard]] Result<ServedModel> ReadServedModel(const YamlDoc& doc, const YAML::Node& root);

}  // namespace frugal::serving

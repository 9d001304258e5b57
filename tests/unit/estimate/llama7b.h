#pragma once
// The model several estimator tests check against: Llama-2 7B's shape at a 4096 context.

#include "frugal/estimate/model.h"

namespace frugal::estimate::testing {

inline Model Llama7b() {
  ModelSpec spec;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.heads = 32;
  spec.ffn = 11008;
  spec.vocab = 32000;
  spec.seq = 4096;
  return *ResolveModel(spec);
}

}  // namespace frugal::estimate::testing

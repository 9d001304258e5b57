#include "frugal/estimate/flops.h"

#include <algorithm>

#include "frugal/estimate/memory.h"

namespace frugal::estimate {

Flops TrainingFlops(const Model& m, const Training& t, double tokens) {
  const double n = m.MatmulParams();
  const double attention_forward = 4.0 * static_cast<double>(m.layers) *
                                   static_cast<double>(m.hidden) * static_cast<double>(m.seq);
  const double dense_forward = 2.0 * n;
  Flops f;
  if (t.method == Method::kFull) {
    // Never below 6·N·D: every parameter takes part in forward, backward and the update, and
    // the input-lookup subtraction is only a refinement above that floor.
    f.model = std::max(3.0 * (dense_forward + attention_forward), 6.0 * m.params) * tokens;
  } else {
    f.model =
        (2.0 * dense_forward + 3.0 * attention_forward + 6.0 * TrainableParams(m, t)) * tokens;
  }
  if (t.recompute == Recompute::kFull) {
    f.recompute = (dense_forward + attention_forward) * tokens;
  }
  return f;
}

}  // namespace frugal::estimate

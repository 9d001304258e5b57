#include "frugal/estimate/flops.h"

#include <algorithm>

#include "frugal/estimate/memory.h"

namespace frugal::estimate {

Flops TrainingFlops(const Model& m, const Training& t, double tokens) {
  // Experts a token is not routed to hold memory but do no work for it.
  const double n = m.MatmulParams() - m.InactiveExpertParams();
  const double attention_forward = 4.0 * static_cast<double>(m.layers) *
                                   static_cast<double>(m.hidden) * static_cast<double>(m.seq);
  const double dense_forward = 2.0 * n;
  Flops f;
  if (t.method == Method::kFull) {
    // Never below 6·N·D over the parameters a token uses: every one of them takes part in
    // forward, backward and the update; the input-lookup subtraction is a refinement above it.
    const double active = m.params - m.InactiveExpertParams();
    f.model = std::max(3.0 * (dense_forward + attention_forward), 6.0 * active) * tokens;
  } else if (t.method == Method::kInference) {
    f.model = (dense_forward + attention_forward) * tokens;  // one forward pass, no backward
    return f;
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

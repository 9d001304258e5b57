#include "frugal/estimate/flops.h"

#include <algorithm>

#include "frugal/estimate/memory.h"

namespace frugal::estimate {

namespace {

/// QKᵀ and AV of one forward pass per token, over every layer.
double AttentionForward(const Model& m) {
  return 4.0 * static_cast<double>(m.layers) * static_cast<double>(m.hidden) *
         static_cast<double>(m.seq);
}

}  // namespace

Flops TrainingFlops(const Model& m, const Training& t, double tokens) {
  // Experts a token is not routed to hold memory but do no work for it.
  const double n = m.MatmulParams() - m.InactiveExpertParams();
  const double attention_forward = AttentionForward(m);
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

double AttentionShare(const Model& m, const Training& t) {
  const double total = TrainingFlops(m, t, 1.0).Total();
  if (!(total > 0)) return 0.0;
  double passes = t.method == Method::kInference ? 1.0 : 3.0;
  if (t.method != Method::kInference && t.recompute == Recompute::kFull) passes += 1.0;
  return std::min(1.0, passes * AttentionForward(m) / total);
}

double ForwardShare(const Model& m, const Training& t) {
  Training forward = t;
  forward.method = Method::kInference;
  forward.recompute = Recompute::kNone;
  const double total = TrainingFlops(m, t, 1.0).Total();
  if (!(total > 0)) return 1.0;
  return std::min(1.0, TrainingFlops(m, forward, 1.0).model / total);
}

}  // namespace frugal::estimate

#include "frugal/estimate/flops.h"

#include <gtest/gtest.h>

#include "llama7b.h"

namespace frugal::estimate {
namespace {

using testing::Llama7b;

TEST(Flops, FullTrainingIsSixNDPlusTheAttentionTerm) {
  const Model m = Llama7b();
  const double n = 6'738'415'616.0 - 32000.0 * 4096;  // input embedding is a lookup
  const double tokens = 2e12;
  const Flops f = TrainingFlops(m, Training{}, tokens);
  EXPECT_DOUBLE_EQ(f.model, 6 * n * tokens + 12.0 * 32 * 4096 * 4096 * tokens);
  EXPECT_DOUBLE_EQ(f.recompute, 0);
  // Llama 2 7B on 2T tokens at 4k context: about 7.9e22 dense + 1.3e22 attention.
  EXPECT_NEAR(f.Total(), 9.2e22, 0.05e22);
}

TEST(Flops, LoraSkipsWeightGradientsOfTheFrozenBase) {
  const Model m = Llama7b();
  Training t;
  t.method = Method::kLora;
  t.lora_rank = 16;
  const double n = 6'738'415'616.0 - 32000.0 * 4096;
  // widths per rank per layer: 4·(4096+4096) + 3·(4096+11008) = 78080
  const double adapters = 32.0 * 16 * 78080;
  const double tokens = 1e9;
  const Flops f = TrainingFlops(m, t, tokens);
  EXPECT_DOUBLE_EQ(f.model, (4 * n + 12.0 * 32 * 4096 * 4096 + 6 * adapters) * tokens);
}

TEST(Flops, FullRecomputeAddsOneForwardSelectiveAddsNone) {
  const Model m = Llama7b();
  const double n = 6'738'415'616.0 - 32000.0 * 4096;
  Training t;
  t.recompute = Recompute::kFull;
  const Flops full = TrainingFlops(m, t, 1.0);
  EXPECT_DOUBLE_EQ(full.recompute, 2 * n + 4.0 * 32 * 4096 * 4096);
  EXPECT_DOUBLE_EQ(full.model, TrainingFlops(m, Training{}, 1.0).model);
  t.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(TrainingFlops(m, t, 1.0).recompute, 0);
}

}  // namespace
}  // namespace frugal::estimate

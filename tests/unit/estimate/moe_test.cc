// Mixture of experts: parameter count, FLOPs of the routed experts only, expert-parallel
// sharding and the all-to-all token exchange.

#include <gtest/gtest.h>

#include "frugal/estimate/estimator.h"

namespace frugal::estimate {
namespace {

// Mixtral 8x7B: 32 layers, hidden 4096, 32 heads, 8 KV heads, SwiGLU ffn 14336, vocab 32000,
// 8 experts, 2 per token.
Model Mixtral() {
  ModelSpec spec;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.heads = 32;
  spec.kv_heads = 8;
  spec.ffn = 14336;
  spec.vocab = 32000;
  spec.seq = 4096;
  spec.experts = 8;
  return *ResolveModel(spec);
}

Hardware H100() { return Hardware{"H100-80GB-SXM", "Hopper", 80, 989e12, true, 900, 3200}; }

TEST(MixtureOfExperts, MixtralHasItsPublishedParameterCounts) {
  const Model m = Mixtral();
  EXPECT_EQ(m.experts_per_token, 2);  // the default for a mixture of experts
  EXPECT_DOUBLE_EQ(m.params, 46'702'792'704.0);
  // Six of eight experts idle for each token: 12.9B active.
  const double active = m.params - m.InactiveExpertParams();
  EXPECT_NEAR(active / 1e9, 12.9, 0.05);
  const Flops f = TrainingFlops(m, Training{}, 1.0);
  EXPECT_DOUBLE_EQ(f.model,
                   6.0 * (m.MatmulParams() - m.InactiveExpertParams()) + 12.0 * 32 * 4096 * 4096);
}

TEST(MixtureOfExperts, ExpertParallelismShardsTheExpertsOnly) {
  const Model m = Mixtral();
  Training t;
  t.gpus = 8;
  t.expert_parallel = 8;
  const double per_gpu_experts = 32.0 * m.ExpertParams();  // one expert of eight per layer
  // Attention, router, norms and embeddings (the final norm, 4096, is in no stage's count).
  const double dense = ArchitectureParams(m) - 32.0 * 8 * m.ExpertParams() - 4096;
  EXPECT_DOUBLE_EQ(ModelShare(m, t) * m.params, dense + per_gpu_experts);
  EXPECT_DOUBLE_EQ(EstimateMemory(m, t).weights, 2 * (dense + per_gpu_experts));
}

TEST(MixtureOfExperts, AllToAllTrafficLengthensTheStepAndIsValidated) {
  const Model m = Mixtral();
  Training t;
  t.gpus = 8;
  t.zero_stage = 3;
  t.expert_parallel = 8;
  t.micro_batch = 1;
  t.global_batch = 8;
  // Per layer: dispatch and combine, forward and backward, of s·b·h × 2 experts in bf16, 7/8
  // leaving each GPU.
  const double bytes = 32.0 * 4 * 7.0 / 8 * 4096 * 4096 * 2 * 2;
  EXPECT_DOUBLE_EQ(ExpertParallelBytes(m, t), bytes);
  auto e = EstimateTraining(m, t, H100(), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_NEAR(e->step.expert_parallel, bytes / (450e9 * 0.75), 1e-12);
  t.expert_parallel = 3;  // does not divide 8 data-parallel GPUs
  EXPECT_FALSE(EstimateTraining(m, t, H100(), 1e9));
  Model odd = m;
  odd.experts = 6;
  t.expert_parallel = 4;  // divides the GPUs but not six experts
  EXPECT_FALSE(EstimateTraining(odd, t, H100(), 1e9));
  ModelSpec bad;
  bad.layers = 2;
  bad.hidden = 256;
  bad.experts = 2;
  bad.experts_per_token = 3;
  EXPECT_FALSE(ResolveModel(bad));
}

}  // namespace
}  // namespace frugal::estimate

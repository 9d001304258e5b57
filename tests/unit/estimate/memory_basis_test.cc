// What a memory peak counts (allocated, reserved, nvidia-smi), torch AMP's fp32 weights and
// gradients, paged 32-bit AdamW and the LoRA targets q,k,v and a fused QKV.

#include <gtest/gtest.h>

#include "frugal/estimate/memory.h"
#include "llama7b.h"

namespace frugal::estimate {
namespace {

using testing::Llama7b;

TEST(MemoryBasis, AllocatedLeavesOutFragmentationAndReservedTheContext) {
  const Model m = Llama7b();
  Training t;
  const MemoryBreakdown b = EstimateMemory(m, t);
  const double tensors = b.weights + b.gradients + b.optimizer_states + b.activations + b.logits;
  EXPECT_DOUBLE_EQ(b.context, kFixedOverheadBytes);
  EXPECT_DOUBLE_EQ(MemoryInBasis(b, MemoryBasis::kAllocated), tensors);
  EXPECT_DOUBLE_EQ(MemoryInBasis(b, MemoryBasis::kReserved),
                   tensors * (1 + kAllocatorOverheadShare));
  EXPECT_DOUBLE_EQ(MemoryInBasis(b, MemoryBasis::kNvidiaSmi), b.Total());
  EXPECT_DOUBLE_EQ(b.Total(), tensors * (1 + kAllocatorOverheadShare) + kFixedOverheadBytes);
}

TEST(MemoryBasis, ParsesItsThreeNamesAndRefusesOthers) {
  EXPECT_EQ(*ParseMemoryBasis("allocated"), MemoryBasis::kAllocated);
  EXPECT_EQ(*ParseMemoryBasis("Reserved"), MemoryBasis::kReserved);
  EXPECT_EQ(*ParseMemoryBasis("nvidia-smi"), MemoryBasis::kNvidiaSmi);
  EXPECT_EQ(*ParseMemoryBasis("nvidia_smi"), MemoryBasis::kNvidiaSmi);
  auto bad = ParseMemoryBasis("peak");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("allocated, reserved or nvidia-smi"), std::string::npos);
  for (MemoryBasis b : {MemoryBasis::kAllocated, MemoryBasis::kReserved, MemoryBasis::kNvidiaSmi})
    EXPECT_EQ(*ParseMemoryBasis(MemoryBasisName(b)), b);
}

// torch AMP: fp32 weights (4) and gradients (4), AdamW's moments (8), no master copy, and the
// 16-bit copy of every matmul weight autocast saves for backward (2): 18 bytes a parameter
// where 16-bit weights with an fp32 master count 2 + 2 + 12 = 16.
TEST(MemoryBasis, AmpKeepsFp32WeightsAndGradientsAndAutocastCopies) {
  const Model m = Llama7b();
  Training t;
  t.master_weights = MasterWeights::kAmp;
  const MemoryBreakdown amp = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(amp.weights, 4.0 * m.params + 2.0 * m.MatmulParams());
  EXPECT_DOUBLE_EQ(amp.gradients, 4.0 * m.params);
  EXPECT_DOUBLE_EQ(amp.optimizer_states, 8.0 * m.params);
  t.master_weights = MasterWeights::kFp32;
  const MemoryBreakdown master = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(master.weights, 2.0 * m.params);
  EXPECT_DOUBLE_EQ(master.gradients, 2.0 * m.params);
  EXPECT_DOUBLE_EQ(master.optimizer_states, 12.0 * m.params);
  EXPECT_DOUBLE_EQ(amp.activations, master.activations);  // autocast computes in 16 bits
  EXPECT_EQ(*ParseMasterWeights("amp"), MasterWeights::kAmp);
}

TEST(MemoryBasis, PagedAdamWKeepsOnlyTheMasterCopyOnTheGpu) {
  const Model m = Llama7b();
  Training t;
  t.optimizer = *ParseOptimizer("paged_adamw");
  EXPECT_EQ(t.optimizer, Optimizer::kPagedAdamW);
  EXPECT_DOUBLE_EQ(EstimateMemory(m, t).optimizer_states, 4.0 * m.params);
}

// Llama 2 7B: h = kv = 4096. q, k, v as three layers: r·(3·(h + h)); fused: r·(h + 3h).
TEST(MemoryBasis, LoraOnQkvOrAFusedQkvCountsTheirAdapters) {
  const Model m = Llama7b();
  Training t;
  t.method = Method::kLora;
  t.lora_rank = 8;
  t.lora_targets = *ParseLoraTargets("qkv");
  EXPECT_DOUBLE_EQ(TrainableParams(m, t), 32.0 * 8 * 3 * (4096 + 4096));
  t.lora_targets = *ParseLoraTargets("qkv_fused");
  EXPECT_DOUBLE_EQ(TrainableParams(m, t), 32.0 * 8 * (4096 + 3 * 4096));
  t.lora_targets = LoraTargets::kAttentionQv;
  EXPECT_DOUBLE_EQ(TrainableParams(m, t), 32.0 * 8 * 2 * (4096 + 4096));
}

}  // namespace
}  // namespace frugal::estimate

#include "frugal/estimate/memory.h"

#include <gtest/gtest.h>

namespace frugal::estimate {
namespace {

// A small model whose every term is easy to compute by hand: h = 256, 4 heads, 2 KV heads
// (g = 0.5), SwiGLU ffn 512, vocab 1000, seq 128, 2 layers.
Model Small() {
  ModelSpec spec;
  spec.layers = 2;
  spec.hidden = 256;
  spec.heads = 4;
  spec.kv_heads = 2;
  spec.ffn = 512;
  spec.vocab = 1000;
  spec.seq = 128;
  return *ResolveModel(spec);
}

constexpr double kSmallParams = 2.0 * 1000 * 256 + 2.0 * (589'824 + 512) + 256;  // 1,692,928

TEST(Memory, SmallModelParameterCount) { EXPECT_DOUBLE_EQ(Small().params, kSmallParams); }

TEST(Memory, FullAdamWMixedPrecisionIsSixteenBytesPerParameter) {
  Training t;
  const MemoryBreakdown b = EstimateMemory(Small(), t);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.gradients, 2 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.optimizer_states, 12 * kSmallParams);
}

TEST(Memory, Fp32AndOtherOptimizers) {
  Training t;
  t.precision = Precision::kFp32;
  MemoryBreakdown b = EstimateMemory(Small(), t);
  EXPECT_DOUBLE_EQ(b.weights, 4 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.gradients, 4 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.optimizer_states, 8 * kSmallParams);
  t.optimizer = Optimizer::kSgd;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).optimizer_states, 4 * kSmallParams);
  t.precision = Precision::kBf16;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).optimizer_states, 8 * kSmallParams);
  t.optimizer = Optimizer::kAdam8bit;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).optimizer_states, 6 * kSmallParams);
  t.optimizer = Optimizer::kAdafactor;  // master 4 + 8/h
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).optimizer_states, (4.0 + 8.0 / 256) * kSmallParams);
}

TEST(Memory, ZeroStagesShardOptimizerThenGradientsThenWeights) {
  const Model m = Small();
  Training t;
  t.gpus = 4;
  t.zero_stage = 0;  // DDP: gradients plus same-sized buckets
  MemoryBreakdown b = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(b.gradients, 4 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.optimizer_states, 12 * kSmallParams);
  t.zero_stage = 1;
  b = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(b.gradients, 2 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.optimizer_states, 3 * kSmallParams);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kSmallParams);
  t.zero_stage = 2;
  b = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(b.gradients, 0.5 * kSmallParams);
  t.zero_stage = 3;  // sharded weights plus two gathered layers (2 bytes each)
  b = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(b.weights, 0.5 * kSmallParams + 2.0 * (589'824 + 512) * 2.0);
}

TEST(Memory, LoraTrainsOnlyAdaptersOnEveryLinearLayer) {
  const Model m = Small();
  Training t;
  t.method = Method::kLora;
  t.lora_rank = 8;
  // q (256+256), k (256+128), v (256+128), o (256+256), 3 × (256+512) = 4096 per rank per layer
  const double adapters = 2.0 * 8 * 4096;
  EXPECT_DOUBLE_EQ(TrainableParams(m, t), adapters);
  const MemoryBreakdown b = EstimateMemory(m, t);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kSmallParams + 2 * adapters);
  EXPECT_DOUBLE_EQ(b.gradients, 2 * adapters);
  EXPECT_DOUBLE_EQ(b.optimizer_states, 12 * adapters);
}

TEST(Memory, QloraStoresBlockLinearLayersInNf4) {
  const Model m = Small();
  Training t;
  t.method = Method::kQlora;
  t.lora_rank = 8;
  const double adapters = 2.0 * 8 * 4096;
  const double linear = 2.0 * 589'824;
  const double expected = linear * (4.127 / 8) + (kSmallParams - linear) * 2 + adapters * 2;
  EXPECT_DOUBLE_EQ(EstimateMemory(m, t).weights, expected);
}

TEST(Memory, ActivationsPerLayerWithoutRecompute) {
  const Model m = Small();
  Training t;
  // Per position, in bytes: attention (2+2+2+4·0.5+2)·256 = 2560; MLP 4·256 + 8·512 = 5120;
  // × s·b = 128, plus the fp32 log-sum-exp 4·128·4 heads = 2048.
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t), 128.0 * 7680 + 2048);
  t.micro_batch = 2;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t), 256.0 * 7680 + 4096);
  // All layers plus embedding output and final-norm input (2·s·b·h·2 bytes).
  EXPECT_DOUBLE_EQ(ActivationBytes(m, t), 2 * (256.0 * 7680 + 4096) + 2.0 * 256 * 256 * 2);
}

TEST(Memory, ActivationsMatchKorthikantiWithoutDropoutOrSoftmaxTerms) {
  // A GELU model with full multi-head attention and ffn = 4h: Korthikanti et al. give
  // sbh(34 + 5as/h); flash attention drops the 5as/h term, no dropout drops 2 sbh.
  ModelSpec spec;
  spec.layers = 1;
  spec.hidden = 1024;
  spec.heads = 8;
  spec.mlp = Mlp::kGelu;
  spec.seq = 512;
  const Model m = *ResolveModel(spec);
  Training t;
  const double sbh = 512.0 * 1024;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t), 32 * sbh + 4.0 * 512 * 8);
}

TEST(Memory, SelectiveAndFullRecompute) {
  const Model m = Small();
  Training t;
  t.recompute = Recompute::kSelective;
  // attention (2+4·0.5+2+2)·256 = 2048; MLP 2·256 + 4·512 = 2560
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t), 128.0 * 4608 + 2048);
  t.recompute = Recompute::kFull;
  // Layer inputs (s·b·h·2 per layer) plus one layer rebuilt in full plus the two ends.
  const double sbh2 = 128.0 * 256 * 2;
  EXPECT_DOUBLE_EQ(ActivationBytes(m, t), 2 * sbh2 + (128.0 * 7680 + 2048) + 2 * sbh2);
}

TEST(Memory, Fp32DoublesActivations) {
  const Model m = Small();
  Training t;
  t.precision = Precision::kFp32;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(m, t), 2 * 128.0 * 7680 + 2048);
}

TEST(Memory, LogitsAreTenBytesPerElementUnderMixedPrecision) {
  const Model m = Small();
  Training t;
  t.micro_batch = 4;
  EXPECT_DOUBLE_EQ(EstimateMemory(m, t).logits, 128.0 * 4 * 1000 * 10);
  t.precision = Precision::kFp32;
  EXPECT_DOUBLE_EQ(EstimateMemory(m, t).logits, 128.0 * 4 * 1000 * 8);
}

TEST(Memory, OverheadIsFixedContextPlusAllocatorShare) {
  const MemoryBreakdown b = EstimateMemory(Small(), Training{});
  const double dynamic = b.weights + b.gradients + b.optimizer_states + b.activations + b.logits;
  EXPECT_DOUBLE_EQ(b.overhead, 1.3 * kBytesPerGib + 0.05 * dynamic);
  EXPECT_DOUBLE_EQ(b.Total(), dynamic + b.overhead);
}

}  // namespace
}  // namespace frugal::estimate

namespace frugal::estimate {
namespace {

TEST(Memory, PureBf16HasNoMasterCopyAndQvLoraAdaptsTwoMatrices) {
  ModelSpec spec;
  spec.layers = 2;
  spec.hidden = 256;
  spec.heads = 4;
  spec.kv_heads = 2;
  spec.ffn = 512;
  spec.vocab = 1000;
  const Model m = *ResolveModel(spec);
  Training t;
  t.master_weights = MasterWeights::kNone;
  EXPECT_DOUBLE_EQ(EstimateMemory(m, t).optimizer_states, 8 * m.params);
  t.method = Method::kLora;
  t.lora_rank = 8;
  t.lora_targets = LoraTargets::kAttentionQv;
  // q (256+256) and v (256+128) per rank per layer
  EXPECT_DOUBLE_EQ(TrainableParams(m, t), 2.0 * 8 * (512 + 384));
}

}  // namespace
}  // namespace frugal::estimate

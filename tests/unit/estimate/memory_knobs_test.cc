// Memory terms of the parallelism and memory-saving knobs, each computed by hand on a model
// small enough to follow: h = 256, 4 heads, 2 KV heads (g = 0.5), SwiGLU ffn 512, vocab 1000,
// seq 128, 2 layers.

#include <gtest/gtest.h>

#include "frugal/estimate/memory.h"

namespace frugal::estimate {
namespace {

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

constexpr double kParams = 1'692'928;
constexpr double kLayerParams = 590'336;
constexpr double kEnds = 2.0 * 128 * 256 * 2;  // embedding output and final-norm input

TEST(MemoryKnobs, TensorParallelSplitsWeightsAndMostActivations) {
  Training t;
  t.gpus = 2;
  t.tensor_parallel = 2;
  const double share = (kParams - 256) / 2 / kParams;  // all but the final norm, split in two
  EXPECT_DOUBLE_EQ(ModelShare(Small(), t), share);
  const MemoryBreakdown b = EstimateMemory(Small(), t);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kParams * share);
  EXPECT_DOUBLE_EQ(b.optimizer_states, 12 * kParams * share);
  EXPECT_DOUBLE_EQ(b.gradients, 2 * kParams * share);  // DP degree 1: no DDP buckets
  // Per position: norm inputs, QKV and MLP inputs (8h) whole; Q, K, V, output and the SwiGLU
  // terms ((4 + 4g)h + 8·ffn) split; the log-sum-exp split by heads.
  const double layer = 128 * (8.0 * 256 + (6.0 * 256 + 8 * 512) / 2) + 4.0 * 128 * 4 / 2;
  EXPECT_DOUBLE_EQ(LayerActivationBytes(Small(), t), layer);
  EXPECT_DOUBLE_EQ(b.activations, 2 * layer + kEnds);
  EXPECT_DOUBLE_EQ(b.logits, 128.0 * 1000 / 2 * 10);
  // Sequence parallelism splits the whole-width tensors too.
  t.sequence_parallel = true;
  const double sp_layer = 128 * (8.0 * 256 + 6.0 * 256 + 8 * 512) / 2 + 4.0 * 128 * 4 / 2;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).activations, 2 * sp_layer + kEnds / 2);
}

TEST(MemoryKnobs, PipelineStagesHoldTheirLayersForEveryMicroBatchInFlight) {
  Training t;
  t.gpus = 2;
  t.pipeline_parallel = 2;
  t.global_batch = 4;  // four micro-batches: two in flight on the first stage
  EXPECT_DOUBLE_EQ(ModelShare(Small(), t), (kLayerParams + 1000.0 * 256) / kParams);
  const double layer = LayerActivationBytes(Small(), t);
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).activations, 2 * layer + kEnds);
  t.global_batch = 1;  // one micro-batch: only the stage's own layer
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).activations, layer + kEnds);
}

TEST(MemoryKnobs, ZeroShardsOverTheDataParallelDegreeOnly) {
  Training t;
  t.gpus = 8;
  t.tensor_parallel = 2;
  t.zero_stage = 1;
  EXPECT_EQ(t.DataParallel(), 4);
  const double share = ModelShare(Small(), t);
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).optimizer_states, 12 * kParams * share / 4);
}

TEST(MemoryKnobs, EagerAttentionKeepsTheScoreMatrices) {
  Training t;
  const double flash = EstimateMemory(Small(), t).activations;
  t.attention = Attention::kEager;
  // Korthikanti's 5·a·s² per sequence replaces the fp32 log-sum-exp, in each layer.
  const double per_layer = 5.0 * 4 * 128 * 128 - 4.0 * 128 * 4;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).activations, flash + 2 * per_layer);
  // Selective recompute rebuilds the scores.
  t.recompute = Recompute::kSelective;
  Training flash_selective;
  flash_selective.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).activations,
                   EstimateMemory(Small(), flash_selective).activations - 2 * 4.0 * 128 * 4);
}

TEST(MemoryKnobs, ChunkedAndFusedLossDoNotMaterialiseFp32Logits) {
  Training t;
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).logits, 128.0 * 1000 * (2 + 4 + 4));
  t.loss = Loss::kChunked;  // 16-bit logits kept, one of 8 chunks upcast with its gradient
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).logits, 128.0 * 1000 * (2 + 1));
  t.loss = Loss::kFused;  // one chunk of the whole pipeline
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).logits, 128.0 * 1000 * 10 / 8);
}

TEST(MemoryKnobs, PagedOptimizerInBackwardAndOffload) {
  Training t;
  t.optimizer = Optimizer::kPagedAdam8bit;  // moments page out; the fp32 master stays
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).optimizer_states, 4 * kParams);
  t.optimizer = Optimizer::kAdamW;
  t.optimizer_in_backward = true;  // the largest matrix's gradient at a time: the embedding
  EXPECT_DOUBLE_EQ(EstimateMemory(Small(), t).gradients, 1000.0 * 256 * 2);
  t.optimizer_in_backward = false;
  t.offload = Offload::kOptimizer;
  MemoryBreakdown b = EstimateMemory(Small(), t);
  EXPECT_EQ(b.optimizer_states, 0);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kParams);
  t.offload = Offload::kAll;  // two layers gathered on the GPU, the rest on the host
  b = EstimateMemory(Small(), t);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kLayerParams * 2);
  EXPECT_DOUBLE_EQ(b.gradients, 2 * kLayerParams * 2);
  EXPECT_EQ(b.optimizer_states, 0);
}

TEST(MemoryKnobs, InferenceLoadsWeightsOnly) {
  Training t;
  t.method = Method::kInference;
  const MemoryBreakdown b = EstimateMemory(Small(), t);
  EXPECT_DOUBLE_EQ(b.weights, 2 * kParams);
  EXPECT_EQ(b.gradients, 0);
  EXPECT_EQ(b.optimizer_states, 0);
  // One layer's working set, nothing saved for backward.
  const double layer = 128 * (8.0 * 256 + 6.0 * 256 + 8 * 512) + 4.0 * 128 * 4;
  EXPECT_DOUBLE_EQ(b.activations, layer + kEnds);
  EXPECT_DOUBLE_EQ(b.logits, 128.0 * 1000 * (2 + 4));
}

TEST(MemoryKnobs, FixedOverheadIsTheCudaContextOfARecentStack) {
  const MemoryBreakdown b = EstimateMemory(Small(), Training{});
  const double dynamic = b.weights + b.gradients + b.optimizer_states + b.activations + b.logits;
  EXPECT_DOUBLE_EQ(b.overhead, 1.3 * kBytesPerGib + 0.05 * dynamic);
}

}  // namespace
}  // namespace frugal::estimate

// Scale-out that costs what it costs: ZeRO-3 traffic the compute of a small per-GPU batch cannot
// hide, tensor parallelism across nodes at the network's per-GPU rate, and the warnings that
// name the knob when a layout makes utilization collapse.

#include <gtest/gtest.h>

#include "frugal/estimate/estimator.h"
#include "frugal/estimate/flops.h"
#include "frugal/estimate/memory.h"
#include "llama7b.h"

namespace frugal::estimate {
namespace {

using testing::Llama7b;

Hardware A100(double network_gbps) {
  return Hardware{"A100-80GB", "Ampere", 80, 312e12, true, 600, network_gbps};
}

// GPT-3 175B as the Megatron-LM paper's ZeRO-3 comparison ran it (Narayanan et al. 2021).
Model Gpt3() {
  ModelSpec spec;
  spec.layers = 96;
  spec.hidden = 12288;
  spec.heads = 96;
  spec.vocab = 51200;
  spec.seq = 2048;
  spec.mlp = Mlp::kGelu;
  return *ResolveModel(spec);
}

bool Warns(const Estimate& e, const std::string& words) {
  for (const std::string& w : e.warnings)
    if (w.find(words) != std::string::npos) return true;
  return false;
}

TEST(ScaleOut, ForwardShareIsTheForwardPassOfTheStepsFlops) {
  const Model m = Llama7b();
  Training t;
  const Flops f = TrainingFlops(m, t, 1.0);
  Training fwd = t;
  fwd.method = Method::kInference;
  EXPECT_DOUBLE_EQ(ForwardShare(m, t), TrainingFlops(m, fwd, 1.0).model / f.Total());
  EXPECT_NEAR(ForwardShare(m, t), 1.0 / 3, 0.01);
  t.recompute = Recompute::kFull;
  EXPECT_NEAR(ForwardShare(m, t), 1.0 / 4, 0.01);
  t.recompute = Recompute::kNone;
  t.method = Method::kLora;
  // The frozen base's forward and input gradients; attention's backward is still twice its forward.
  EXPECT_NEAR(ForwardShare(m, t), 1.0 / 2, 0.05);
}

// At a fixed global batch of 1536 sequences, 384 GPUs run 4 per GPU and 1536 GPUs one: each
// GPU moves the whole model three times per micro-batch either way, so with a quarter of the
// compute to hide it behind, throughput per GPU falls (the paper measured 144 -> 44 TFLOP/s).
TEST(ScaleOut, ZeroThreeAtOneSequencePerGpuExposesItsGathers) {
  const Model m = Gpt3();
  Training t;
  t.precision = Precision::kFp16;
  t.zero_stage = 3;
  t.recompute = Recompute::kFull;
  t.global_batch = 1536;
  const Hardware hw = A100(1600);
  const auto run = [&](int gpus) {
    t.gpus = gpus;
    t.micro_batch = 1536 / gpus;
    auto e = EstimateTraining(m, t, hw, 300e9);
    EXPECT_TRUE(e) << e.error().message;
    return *e;
  };
  const Estimate few = run(384);
  const Estimate many = run(1536);
  const double per_gpu_few = few.flops.Total() / few.GpuHours();
  const double per_gpu_many = many.flops.Total() / many.GpuHours();
  EXPECT_GT(per_gpu_few / per_gpu_many, 2.0);
  // What is exposed is what the passes' compute cannot cover, never more than the traffic.
  EXPECT_GT(many.step.exposed_data_parallel, 0.5 * many.step.data_parallel);
  EXPECT_LE(many.step.exposed_data_parallel, many.step.data_parallel);
  EXPECT_GE(many.step.exposed_data_parallel, many.step.data_parallel - many.step.compute);
  EXPECT_GT(many.GpuHours(), 1.5 * few.GpuHours());
  EXPECT_TRUE(Warns(many, "ZeRO-3 over 1536 GPUs (192 nodes)"));
  EXPECT_TRUE(Warns(many, "--micro-batch"));
}

// ZeRO-3 on one NVLink node at a 7B model's batch: prefetching hides all but the first layer's
// gathers of each pass.
TEST(ScaleOut, ZeroThreeInsideANodeHidesAllButTheFirstGatherOfEachPass) {
  const Model m = Llama7b();
  Training t;
  t.zero_stage = 3;
  t.gpus = 8;
  t.micro_batch = 2;
  t.global_batch = 16;
  auto e = EstimateTraining(m, t, A100(0), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  const double per_layer_per_micro_batch = e->step.data_parallel / (1.0 * m.layers);
  EXPECT_GT(e->step.exposed_data_parallel, 0);
  EXPECT_NEAR(e->step.exposed_data_parallel, per_layer_per_micro_batch, 1e-9);
}

// Tensor parallelism over 16 GPUs spans two nodes: every layer's all-reduces cross the network
// at each GPU's share of the node's NICs, not at NVLink speed and not at the whole node's.
TEST(ScaleOut, TensorParallelAcrossNodesRunsAtEachGpusShareOfTheNetwork) {
  const Model m = Gpt3();
  Training t;
  t.gpus = 16;
  t.tensor_parallel = 16;
  t.micro_batch = 1;
  t.global_batch = 8;
  const Hardware hw = A100(1600);
  auto e = EstimateTraining(m, t, hw, 1e9);
  ASSERT_TRUE(e) << e.error().message;
  const double per_gpu_network = 1600e9 / 8 / 8 * 0.75;
  EXPECT_NEAR(e->step.tensor_parallel, TensorParallelBytes(m, t) / per_gpu_network, 1e-9);
  EXPECT_TRUE(Warns(*e, "tensor parallel 16 spans 2 nodes"));
  t.gpus = 8;
  t.tensor_parallel = 8;
  auto node = EstimateTraining(m, t, hw, 1e9);
  ASSERT_TRUE(node) << node.error().message;
  EXPECT_NEAR(node->step.tensor_parallel, TensorParallelBytes(m, t) / (300e9 * 0.75), 1e-9);
  EXPECT_FALSE(Warns(*node, "spans"));
}

// TP 4 x PP 12 on 384 GPUs with no global batch: one micro-batch per pipeline, the bubble is
// 11/12 of the step, and both warnings say which global batch brings it down.
TEST(ScaleOut, DefaultMicroBatchCountUnderAPipelineIsSaidWithTheBatchThatFixesIt) {
  const Model m = Gpt3();
  Training t;
  t.gpus = 384;
  t.tensor_parallel = 4;
  t.pipeline_parallel = 12;
  t.micro_batch = 1;
  t.recompute = Recompute::kFull;
  auto e = EstimateTraining(m, t, A100(1600), 300e9);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->training.AccumulationSteps(), 1);
  EXPECT_TRUE(Warns(*e, "no global_batch given: one micro-batch per pipeline"));
  // 3 × (12 − 1) = 33 micro-batches per pipeline × 8 data-parallel replicas.
  EXPECT_TRUE(Warns(*e, "global_batch (--global-batch) 264 (or more)"));
  EXPECT_TRUE(Warns(*e, "the time goes to the pipeline bubble"));
  t.global_batch = 264;
  auto fixed = EstimateTraining(m, t, A100(1600), 300e9);
  ASSERT_TRUE(fixed) << fixed.error().message;
  EXPECT_LE(fixed->step.bubble / fixed->step.Total(), kBubbleWarnShare);
  EXPECT_FALSE(Warns(*fixed, "pipeline parallel"));
  EXPECT_FALSE(Warns(*fixed, "the time goes to"));
  EXPECT_LT(fixed->GpuHours(), 0.3 * e->GpuHours());
}

// Context parallelism 4 at a 32k context: activations and logits per GPU are a quarter, the
// weights are not; K and V go round the ring three times a layer, hidden behind attention
// while it takes longer than the exchange; ZeRO shards over the data-parallel and CP ranks.
TEST(ScaleOut, ContextParallelSplitsTheSequenceAndPassesKeysAndValuesAround) {
  Model m = Llama7b();
  m.seq = 32768;
  Training t;
  t.gpus = 8;
  t.micro_batch = 1;
  t.recompute = Recompute::kSelective;
  t.zero_stage = 1;
  Training cp = t;
  cp.context_parallel = 4;
  EXPECT_EQ(cp.DataParallel(), 2);
  EXPECT_EQ(cp.ShardParallel(), 8);
  const MemoryBreakdown whole = EstimateMemory(m, t);
  const MemoryBreakdown split = EstimateMemory(m, cp);
  EXPECT_DOUBLE_EQ(split.weights, whole.weights);
  EXPECT_DOUBLE_EQ(split.optimizer_states, whole.optimizer_states);  // 8 shards either way
  EXPECT_NEAR(split.activations, whole.activations / 4, 1e-6 * whole.activations);
  EXPECT_DOUBLE_EQ(split.logits, whole.logits / 4);
  // Per layer: three passes of 2·s·b·h_kv bf16, 3/4 of it from the other ranks.
  EXPECT_DOUBLE_EQ(ContextParallelBytes(m, cp), 32.0 * 3 * 0.75 * 2 * 32768 * 4096 * 2);
  EXPECT_EQ(ContextParallelBytes(m, t), 0);
  auto e = EstimateTraining(m, cp, A100(0), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_NEAR(e->step.context_parallel, ContextParallelBytes(m, cp) / (300e9 * 0.75), 1e-12);
  EXPECT_EQ(e->step.exposed_context_parallel, 0);  // 32k attention outlasts the exchange
  EXPECT_GT(AttentionShare(m, cp) * e->step.compute, e->step.context_parallel);
  // Across nodes the ring is slow enough to show.
  Training far = cp;
  far.gpus = 64;
  far.tensor_parallel = 8;
  far.context_parallel = 8;
  auto slow = EstimateTraining(m, far, A100(100), 1e9);
  ASSERT_TRUE(slow) << slow.error().message;
  EXPECT_GT(slow->step.exposed_context_parallel, 0);
  EXPECT_DOUBLE_EQ(slow->step.Total(), slow->step.compute + slow->step.bubble +
                                           slow->step.tensor_parallel + slow->step.expert_parallel +
                                           slow->step.exposed_context_parallel +
                                           slow->step.exposed_data_parallel);
  // A sequence the ranks cannot split evenly, or more GPUs than the layout divides, is refused.
  Model odd = m;
  odd.seq = 4098;
  auto bad = EstimateTraining(odd, cp, A100(0), 1e9);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("context_parallel 4 does not divide"), std::string::npos);
  cp.gpus = 6;
  auto uneven = cp.Validate();
  ASSERT_FALSE(uneven);
  EXPECT_NE(uneven.error().message.find("× context_parallel 4"), std::string::npos);
}

}  // namespace
}  // namespace frugal::estimate

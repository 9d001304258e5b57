#include "frugal/estimate/estimator.h"

#include <gtest/gtest.h>

#include "frugal/estimate/small_work.h"
#include "llama7b.h"

namespace {
// The prior's compute utilization after the small-work factor (small_work.h): the share of a
// micro-step spent on math rather than on launching kernels, close to 1 for a 7B model.
double WithSmallWork(double base, const frugal::estimate::Estimate& e,
                     const frugal::estimate::Model& m, const frugal::estimate::Training& t) {
  const double micro_step_flops =
      e.flops.Total() / e.tokens * static_cast<double>(t.micro_batch) * static_cast<double>(m.seq);
  return base * frugal::estimate::SmallWorkFactor(micro_step_flops, 312e12, base, m.layers);
}
}  // namespace

namespace frugal::estimate {
namespace {

using testing::Llama7b;

// A100-80GB SXM figures from gpus.csv: 80 GiB, 312 dense bf16 TFLOPS, NVLink 600 GB/s.
Hardware A100() { return Hardware{"A100-80GB", "Ampere", 80, 312e12, true, 600, 0}; }
// L4 from gpus.csv: 24 GiB, 121 dense bf16 TFLOPS, PCIe only.
Hardware L4() { return Hardware{"L4", "Ada Lovelace", 24, 121e12, false, 0, 0}; }

TEST(Estimator, PriorUtilizationMultipliesItsFactors) {
  const double ampere = FamilyBaseUtilization("Ampere");
  const double ada = FamilyBaseUtilization("Ada Lovelace");
  Training t;
  t.gpus = 8;
  // Ampere base × bf16 1.0 × ≥3B 1.0 × full 1.0: the GPU count is the step model's business.
  EXPECT_DOUBLE_EQ(PriorUtilization(A100(), t, 7e9).hfu, ampere);
  t.gpus = 4;
  t.method = Method::kQlora;
  // Ada × 0.75 (0.3-1B) × QLoRA 0.6
  EXPECT_DOUBLE_EQ(PriorUtilization(L4(), t, 0.5e9).hfu, ada * 0.75 * 0.6);
  t.gpus = 16;
  t.method = Method::kFull;
  t.precision = Precision::kFp8;
  t.recompute = Recompute::kSelective;
  t.offload = Offload::kOptimizer;
  const double fp8 = PriorUtilization(A100(), t, 70e9).factors[1].factor;
  EXPECT_DOUBLE_EQ(PriorUtilization(A100(), t, 70e9).hfu, ampere * fp8 * 0.8 * 0.97);
  EXPECT_EQ(FamilyBaseUtilization("Unknown-Arch"), 0.35);
  EXPECT_DOUBLE_EQ(PriorHfu(A100(), t, 70e9), PriorUtilization(A100(), t, 70e9).hfu);
}

TEST(Estimator, OneGpuRuntimeIsFlopsOverPeakTimesUtilization) {
  const Model m = Llama7b();
  Training t;
  t.recompute = Recompute::kFull;
  auto e = EstimateTraining(m, t, A100(), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  const double hfu = WithSmallWork(FamilyBaseUtilization("Ampere"), *e, m, t);
  EXPECT_DOUBLE_EQ(e->wall_seconds, e->flops.Total() / (312e12 * hfu));
  // MFU counts model FLOPs only, so full recompute lowers it below the hardware utilization.
  EXPECT_DOUBLE_EQ(e->mfu, hfu * e->flops.model / e->flops.Total());
  EXPECT_DOUBLE_EQ(e->step.data_parallel, 0);
}

TEST(Estimator, RuntimeIsStepsTimesComputePlusExposedCommunication) {
  const Model m = Llama7b();
  Training t;
  t.gpus = 8;
  t.micro_batch = 1;
  t.global_batch = 64;
  t.recompute = Recompute::kFull;
  auto e = EstimateTraining(m, t, A100(), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  const double hfu = WithSmallWork(FamilyBaseUtilization("Ampere"), *e, m, t);
  const double compute_per_step = e->flops.Total() / (8 * 312e12 * hfu) / e->steps;
  EXPECT_DOUBLE_EQ(e->step.compute, compute_per_step);
  // DDP on one NVLink node: 2·7/8 of the bf16 gradients at 600/2 × 0.75 GB/s, hidden behind
  // the backward pass of eight micro-batches.
  EXPECT_NEAR(e->step.data_parallel, 2.0 * 7 / 8 * 2 * m.params / (300e9 * 0.75), 1e-9);
  EXPECT_EQ(DataParallelLatency(m, t), 0);  // one node
  EXPECT_EQ(e->step.exposed_data_parallel, 0);
  EXPECT_DOUBLE_EQ(e->wall_seconds, e->steps * e->step.Total());
  EXPECT_DOUBLE_EQ(e->GpuHours(), 8 * e->wall_seconds / 3600);
  EXPECT_DOUBLE_EQ(e->steps, 1e9 / (64.0 * 4096));
  EXPECT_EQ(e->training.AccumulationSteps(), 8);
  EXPECT_EQ(e->source, UtilizationSource::kPrior);
}

// The finding that motivated the step model: ZeRO-3 over hundreds of GPUs at a fixed per-GPU
// batch keeps each GPU's compute per step constant while every GPU still moves the whole model
// three times a step, and each ring collective takes one more hop per GPU added.
TEST(Estimator, ZeroThreeOverHundredsOfGpusLosesThroughputAtScale) {
  const Model m = Llama7b();
  Training t;
  t.zero_stage = 3;
  t.micro_batch = 1;
  Hardware hw = A100();
  hw.network_gbps = 400;  // AWS p4d
  const auto per_gpu = [&](int gpus) {
    t.gpus = gpus;
    t.global_batch = gpus;
    auto e = EstimateTraining(m, t, hw, 1e10);
    EXPECT_TRUE(e) << e.error().message;
    return e ? 1e10 / e->GpuHours() : 0.0;
  };
  const double node = per_gpu(8);
  const double g256 = per_gpu(256);
  const double g1024 = per_gpu(1024);
  EXPECT_LT(g256, node);
  EXPECT_LT(g1024, 0.7 * node);
  EXPECT_LT(g1024, g256);
  // A faster fabric (InfiniBand 8 x 400) narrows the gap; DDP has no per-layer collectives.
  hw.network_gbps = 3200;
  EXPECT_GT(per_gpu(1024), g1024);
  t.zero_stage = 0;
  hw.network_gbps = 400;
  EXPECT_GT(per_gpu(1024), g1024);
}

TEST(Estimator, PipelineBubbleAndTensorParallelTrafficLengthenTheStep) {
  const Model m = Llama7b();
  Training t;
  t.gpus = 32;
  t.tensor_parallel = 8;
  t.pipeline_parallel = 4;
  t.micro_batch = 1;
  t.global_batch = 8;  // one data-parallel replica, 8 micro-batches
  auto e = EstimateTraining(m, t, A100(), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_EQ(e->training.DataParallel(), 1);
  EXPECT_DOUBLE_EQ(e->step.bubble, e->step.compute * 3.0 / 8.0);
  // Per micro-batch and layer of the stage: 4 all-reduces of s·b·h bf16, 2·7/8 each on NVLink.
  const double bytes = 8.0 * (32.0 / 4) * 4 * 2 * 7.0 / 8 * 4096 * 4096 * 2;
  EXPECT_NEAR(e->step.tensor_parallel, bytes / (300e9 * 0.75), 1e-12);
  EXPECT_EQ(e->step.data_parallel, 0);
}

bool Warns(const Estimate& e, const std::string& words) {
  for (const std::string& w : e.warnings)
    if (w.find(words) != std::string::npos) return true;
  return false;
}

TEST(Estimator, WarnsOfZeroThreeAcrossNodesABigBubbleAndATinyBatch) {
  const Model m = Llama7b();
  Hardware hw = A100();
  hw.network_gbps = 400;
  Training t;
  t.micro_batch = 1;
  // ZeRO-3 on one node: nothing to say; across 32 nodes: the gathers go over the network.
  t.zero_stage = 3;
  t.gpus = 8;
  t.global_batch = 64;
  auto node = EstimateTraining(m, t, hw, 1e10);
  ASSERT_TRUE(node) << node.error().message;
  EXPECT_FALSE(Warns(*node, "ZeRO-3")) << node->warnings.size();
  t.gpus = 256;
  t.global_batch = 256;
  auto nodes = EstimateTraining(m, t, hw, 1e10);
  ASSERT_TRUE(nodes) << nodes.error().message;
  EXPECT_TRUE(Warns(*nodes, "ZeRO-3 over 256 GPUs (32 nodes)"));
  // Pipeline parallel 4 with 2 micro-steps: the bubble is 3/5 of the step.
  Training p;
  p.gpus = 32;
  p.tensor_parallel = 8;
  p.pipeline_parallel = 4;
  p.micro_batch = 1;
  p.global_batch = 2;
  auto bubble = EstimateTraining(m, p, A100(), 1e9);
  ASSERT_TRUE(bubble) << bubble.error().message;
  EXPECT_TRUE(Warns(*bubble, "pipeline parallel 4 with 2 micro-step(s) per step"));
  p.global_batch = 64;
  auto full = EstimateTraining(m, p, A100(), 1e9);
  ASSERT_TRUE(full) << full.error().message;
  EXPECT_FALSE(Warns(*full, "pipeline parallel"));
  // A tiny model with one short sequence per GPU per step: the MFU collapses, and it is said.
  Model tiny = m;
  tiny.layers = 2;
  tiny.hidden = 256;
  tiny.heads = 4;
  tiny.ffn = 1024;
  tiny.seq = 128;
  tiny.params = 2e6;
  Training small;
  small.gpus = 8;
  small.micro_batch = 1;
  small.global_batch = 8;
  auto low = EstimateTraining(tiny, small, hw, 1e8);
  ASSERT_TRUE(low) << low.error().message;
  ASSERT_LT(low->mfu, kLowMfuWarn);
  EXPECT_TRUE(Warns(*low, "raise global_batch (--global-batch)"));
}

TEST(Estimator, FrameworksDefaultToFullRecomputeForVeryLargeModels) {
  EXPECT_EQ(DefaultRecompute(175e9), Recompute::kFull);
  EXPECT_EQ(DefaultRecompute(176e9), Recompute::kFull);
  EXPECT_EQ(DefaultRecompute(70e9), Recompute::kNone);
}

TEST(Estimator, InferenceIsOneForwardPass) {
  const Model m = Llama7b();
  Training t;
  t.method = Method::kInference;
  auto e = EstimateTraining(m, t, A100(), 1e6);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_DOUBLE_EQ(e->flops.model, (2 * m.MatmulParams() + 4.0 * 32 * 4096 * 4096) * 1e6);
  EXPECT_EQ(e->memory.gradients, 0);
  EXPECT_EQ(e->memory.optimizer_states, 0);
}

TEST(Estimator, MeasuredThroughputAndMfuOverrideThePrior) {
  const Model m = Llama7b();
  Training t;
  t.gpus = 8;
  Measured measured;
  measured.tokens_per_second = 25000;
  auto e = EstimateTraining(m, t, A100(), 9e8, measured);
  ASSERT_TRUE(e) << e.error().message;
  EXPECT_DOUBLE_EQ(e->wall_seconds, 36000);
  EXPECT_EQ(e->source, UtilizationSource::kMeasuredThroughput);
  EXPECT_DOUBLE_EQ(e->mfu, e->flops.model / (8 * 312e12 * 36000));
  Measured mfu;
  mfu.mfu = 0.5;
  e = EstimateTraining(m, t, A100(), 9e8, mfu);
  ASSERT_TRUE(e);
  EXPECT_DOUBLE_EQ(e->mfu, 0.5);
  mfu.mfu = 1.5;
  EXPECT_FALSE(EstimateTraining(m, t, A100(), 9e8, mfu));
}

// Small models on big GPUs: a 1M-parameter model's micro-step is shorter than its kernel
// launches, so utilization falls, and falls further with a smaller per-GPU batch.
TEST(Estimator, UtilizationFallsWithModelSizeAndPerGpuBatch) {
  Training t;
  t.micro_batch = 32;
  auto prior_for = [&](double params, int micro_batch) {
    ModelSpec spec;
    spec.params = params;
    t.micro_batch = micro_batch;
    t.global_batch = micro_batch;
    auto e = EstimateTraining(*ResolveModel(spec), t, A100(), 1e9);
    EXPECT_TRUE(e) << e.error().message;
    return e->prior_hfu;
  };
  const double tiny = prior_for(1e6, 1);
  const double tiny_big_batch = prior_for(1e6, 32);
  const double small = prior_for(110e6, 1);
  const double large = prior_for(7e9, 1);
  EXPECT_LT(tiny, tiny_big_batch);
  EXPECT_LT(tiny, small);
  EXPECT_LT(small, large);
  EXPECT_LT(tiny, 0.1);  // far below the 0.05-0.75 clamp's floor factor of a big model
  EXPECT_GT(tiny, 0);
}

TEST(Estimator, SevenBFullTrainingDoesNotFitOneA100ButQloraFitsAnL4) {
  ModelSpec spec;
  spec.params = 7e9;
  const Model m = *ResolveModel(spec);
  auto full = EstimateTraining(m, Training{}, A100(), 1e6);
  ASSERT_TRUE(full);
  EXPECT_FALSE(full->fits);  // 16 bytes/param alone is 104 GiB
  EXPECT_LT(full->HeadroomBytes(), 0);
  Training q;
  q.method = Method::kQlora;
  q.recompute = Recompute::kFull;
  auto qlora = EstimateTraining(m, q, L4(), 1e6);
  ASSERT_TRUE(qlora);
  EXPECT_TRUE(qlora->fits) << qlora->memory.Total() / kBytesPerGib;
}

TEST(Estimator, WorkTokensFromSamplesOrSteps) {
  ModelSpec spec;
  spec.params = 1e9;
  spec.seq = 1024;
  const Model m = *ResolveModel(spec);
  Training t;
  t.micro_batch = 4;
  t.gpus = 2;
  Work w;
  w.samples = 1000;
  w.epochs = 3;
  EXPECT_DOUBLE_EQ(*WorkTokens(w, m, t), 1000.0 * 3 * 1024);
  w.tokens_per_sample = 300;
  EXPECT_DOUBLE_EQ(*WorkTokens(w, m, t), 1000.0 * 3 * 300);
  Work steps;
  steps.steps = 100;
  EXPECT_DOUBLE_EQ(*WorkTokens(steps, m, t), 100.0 * 8 * 1024);
  t.global_batch = 32;
  EXPECT_DOUBLE_EQ(*WorkTokens(steps, m, t), 100.0 * 32 * 1024);
  steps.tokens = 5;
  EXPECT_FALSE(WorkTokens(steps, m, t));
  EXPECT_FALSE(WorkTokens(Work{}, m, t));
  Work negative;
  negative.tokens = -1;
  EXPECT_EQ(WorkTokens(negative, m, t).error().code, ErrorCode::kBadInput);
}

TEST(Estimator, RejectsBadTrainingConfigs) {
  const Model m = Llama7b();
  Training t;
  t.micro_batch = -2;
  EXPECT_FALSE(EstimateTraining(m, t, A100(), 1e9));
  t.micro_batch = 3;
  t.gpus = 2;
  t.global_batch = 10;  // not a multiple of 6
  EXPECT_FALSE(EstimateTraining(m, t, A100(), 1e9));
  t.global_batch = 12;
  t.zero_stage = 4;
  EXPECT_FALSE(EstimateTraining(m, t, A100(), 1e9));
  t.zero_stage = 0;
  t.gpus = 8;
  t.global_batch = 0;
  t.tensor_parallel = 3;  // 8 GPUs are not a multiple of 3
  EXPECT_FALSE(EstimateTraining(m, t, A100(), 1e9));
  t.tensor_parallel = 1;
  t.sequence_parallel = true;  // needs tensor parallelism
  EXPECT_FALSE(EstimateTraining(m, t, A100(), 1e9));
  Hardware no_peak = A100();
  no_peak.peak_flops = 0;
  EXPECT_FALSE(EstimateTraining(m, Training{}, no_peak, 1e9));
}

}  // namespace
}  // namespace frugal::estimate

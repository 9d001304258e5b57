#include "frugal/estimate/estimator.h"

#include <gtest/gtest.h>

#include "llama7b.h"

namespace frugal::estimate {
namespace {

using testing::Llama7b;

// A100-80GB SXM figures from gpus.csv: 80 GiB, 312 dense bf16 TFLOPS, NVLink.
Hardware A100() { return Hardware{"A100-80GB", "Ampere", 80, 312e12, true}; }
// L4 from gpus.csv: 24 GiB, 121 dense bf16 TFLOPS, PCIe only.
Hardware L4() { return Hardware{"L4", "Ada Lovelace", 24, 121e12, false}; }

TEST(Estimator, PriorUtilizationMultipliesItsFactors) {
  Training t;
  t.gpus = 8;
  // Ampere base 0.55 × bf16 1.0 × ≥3B 1.0 × NVLink node 0.95 × full 1.0
  EXPECT_DOUBLE_EQ(PriorUtilization(A100(), t, 7e9).hfu, 0.55 * 0.95);
  t.gpus = 4;
  t.method = Method::kQlora;
  // Ada 0.35 × 0.75 (0.3-1B) × PCIe 0.85 × QLoRA 0.6
  EXPECT_DOUBLE_EQ(PriorUtilization(L4(), t, 0.5e9).hfu, 0.35 * 0.75 * 0.85 * 0.6);
  t.gpus = 16;
  t.method = Method::kFull;
  t.precision = Precision::kFp8;
  t.recompute = Recompute::kSelective;
  EXPECT_DOUBLE_EQ(PriorUtilization(A100(), t, 70e9).hfu, 0.55 * 0.65 * 0.9 * 0.97);
  EXPECT_EQ(FamilyBaseUtilization("Unknown-Arch"), 0.35);
  EXPECT_DOUBLE_EQ(PriorHfu(A100(), t, 70e9), PriorUtilization(A100(), t, 70e9).hfu);
}

TEST(Estimator, RuntimeIsFlopsOverGpusTimesPeakTimesUtilization) {
  const Model m = Llama7b();
  Training t;
  t.gpus = 8;
  t.micro_batch = 1;
  t.global_batch = 64;
  t.recompute = Recompute::kFull;
  auto e = EstimateTraining(m, t, A100(), 1e9);
  ASSERT_TRUE(e) << e.error().message;
  // The prior, times the share of a micro-step (1 sequence of 4096 tokens) spent on math
  // rather than on launching 32 layers' kernels: ~1.5 s of math against 9 ms.
  const double prior = 0.55 * 0.95;
  const double step_flops = e->flops.Total() / 1e9 * 4096;
  const double math_seconds = step_flops / (312e12 * prior);
  const double hfu = prior * math_seconds / (math_seconds + 32 * 0.25e-3 + 1e-3);
  EXPECT_GT(hfu, 0.99 * prior);
  EXPECT_DOUBLE_EQ(e->prior_hfu, hfu);
  EXPECT_DOUBLE_EQ(e->wall_seconds, e->flops.Total() / (8 * 312e12 * hfu));
  EXPECT_DOUBLE_EQ(e->GpuHours(), 8 * e->wall_seconds / 3600);
  // MFU counts model FLOPs only, so full recompute lowers it below the hardware utilization.
  EXPECT_DOUBLE_EQ(e->mfu, hfu * e->flops.model / e->flops.Total());
  EXPECT_DOUBLE_EQ(e->steps, 1e9 / (64.0 * 4096));
  EXPECT_EQ(e->training.AccumulationSteps(), 8);
  EXPECT_EQ(e->source, UtilizationSource::kPrior);
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
  Hardware no_peak = A100();
  no_peak.peak_flops = 0;
  EXPECT_FALSE(EstimateTraining(m, Training{}, no_peak, 1e9));
}

}  // namespace
}  // namespace frugal::estimate

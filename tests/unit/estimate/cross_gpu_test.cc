#include "frugal/estimate/cross_gpu.h"

#include <gtest/gtest.h>

#include <cmath>

#include "frugal/estimate/sustained_clock.h"
#include "support/test_support.h"

namespace frugal::estimate {
namespace {

using catalog::GpuSpec;
using catalog::Precision;

GpuSpec Gpu(std::string name, double bf16, double tf32, double fp32, double bw, double watts,
            bool bf16_ok = true, std::optional<double> nvlink = std::nullopt) {
  GpuSpec g;
  g.name = std::move(name);
  g.memory_gib = 24;
  g.bf16_tflops = bf16;
  if (tf32 > 0) g.tf32_tflops = tf32;
  g.fp32_tflops = fp32;
  g.memory_bandwidth_gbps = bw;
  g.tdp_watts = watts;
  g.supports_bf16 = bf16_ok;
  g.nvlink_gbps = nvlink;
  return g;
}

const GpuSpec kA100 = Gpu("A100-80GB", 312, 156, 19.5, 2039, 400, true, 600.0);
const GpuSpec kV100 = Gpu("V100-16GB", 125, 0, 15.7, 900, 300, false, 300.0);
const GpuSpec kT4 = Gpu("T4", 65, 0, 8.1, 320, 70, false);

WorkloadShape Shape(double flops, double bytes, Precision p = Precision::kFp16) {
  WorkloadShape s;
  s.family = ModelFamily::kCnn;
  s.precision = p;
  s.flops_per_unit = flops;
  s.bytes_per_unit = bytes;
  return s;
}

TEST(CrossGpu, SameGpuGivesTheMeasurementBack) {
  auto p = PredictThroughput({{&kA100, 1, 1450}}, kA100, 1, WorkloadShape{});
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_NEAR(p->per_second, 1450, 1e-6);
  EXPECT_FALSE(p->fitted);
}

// The part of a step no GPU speeds up is 0.2 of the job's roofline time on the reference GPU
// (an A100-80GB: 312 TFLOPS at 16 bits, 156 on TF32, 2039 GB/s), the same seconds everywhere.
constexpr double kFixed = 0.2;

TEST(CrossGpu, ComputeBoundScalesByPeakMemoryBoundByBandwidth) {
  // 1e12 FLOPs per byte: all compute, plus the fixed part: 0.2 of the A100's compute time.
  // V100 -> A100 at fp16: (1/125 + 0.2/312) / (1/312 + 0.2/312) = 2.25, not the peak ratio 2.50.
  auto compute = PredictThroughput({{&kV100, 1, 100}}, kA100, 1, Shape(1e15, 1e3));
  ASSERT_TRUE(compute);
  EXPECT_NEAR(compute->per_second, 100 * (1 / 125.0 + kFixed / 312) / ((1 + kFixed) / 312), 1e-3);
  EXPECT_NEAR(compute->compute_share_target, 1 / (1 + kFixed), 1e-6);
  EXPECT_NEAR(compute->fixed_share_target, kFixed / (1 + kFixed), 1e-6);
  // 1e-6 FLOPs per byte: all memory traffic. V100 -> A100: 2.07 where bandwidth says 2.27.
  auto memory = PredictThroughput({{&kV100, 1, 100}}, kA100, 1, Shape(1, 1e6));
  ASSERT_TRUE(memory);
  EXPECT_NEAR(memory->per_second, 100 * (1 / 900.0 + kFixed / 2039) / ((1 + kFixed) / 2039), 1e-3);
  // A 70 W T4 keeps 55% of its listed peak under sustained load: compute-bound V100 → T4.
  auto t4 = PredictThroughput({{&kV100, 1, 100}}, kT4, 1, Shape(1e15, 1e3));
  ASSERT_TRUE(t4);
  EXPECT_NEAR(t4->per_second, 100 * (1 / 125.0 + kFixed / 312) / (1 / (65.0 * 0.55) + kFixed / 312),
              1e-3);
  EXPECT_NE(t4->basis.find("sustained clock"), std::string::npos) << t4->basis;
}

TEST(CrossGpu, AGeForceBoardRunsItsComputeAndMemoryFasterThanItsListedFigures) {
  // The same listed figures as a data-centre board and as a GeForce one: the GeForce board's
  // compute and memory rates are kConsumerSpeed times its listed ones; the fixed part is not.
  GpuSpec listed = Gpu("RTX3090", 71, 35.6, 35.6, 936, 350);
  GpuSpec geforce = listed;
  geforce.segment = catalog::GpuSegment::kConsumer;
  const WorkloadShape shape = Shape(40, 1);  // a CNN's intensity: both terms count
  auto as_listed = PredictThroughput({{&kA100, 1, 100}}, listed, 1, shape);
  auto as_geforce = PredictThroughput({{&kA100, 1, 100}}, geforce, 1, shape);
  ASSERT_TRUE(as_listed && as_geforce);
  const double fixed = as_listed->fixed_share_target;
  ASSERT_GT(fixed, 0.0);
  // Seconds per unit: the roofline part shrinks by the speed-up, the fixed part stays.
  EXPECT_NEAR(100 / as_geforce->per_second,
              100 / as_listed->per_second * ((1 - fixed) / kConsumerSpeed + fixed), 1e-9);
  // Measured on the GeForce board and carried back to the A100, the same factor divides.
  auto back = PredictThroughput({{&geforce, 1, as_geforce->per_second}}, kA100, 1, shape);
  ASSERT_TRUE(back);
  EXPECT_NEAR(back->per_second, 100, 1e-6);
  // A workstation board keeps its listed figures.
  GpuSpec workstation = listed;
  workstation.segment = catalog::GpuSegment::kWorkstation;
  auto as_workstation = PredictThroughput({{&kA100, 1, 100}}, workstation, 1, shape);
  ASSERT_TRUE(as_workstation);
  EXPECT_DOUBLE_EQ(as_workstation->per_second, as_listed->per_second);
}

TEST(CrossGpu, FixedPartTakesTheSameSecondsOnEveryGpu) {
  // Measured on the reference GPU itself, the fixed part is 0.2 / 1.2 of the step whatever the
  // family. A GPU with twice its compute and twice its bandwidth halves the rest only:
  // 1 / (5/6 / 2 + 1/6) = 1.71x, not 2x (launches and the host do not get faster).
  const GpuSpec twice = Gpu("2xA100", 624, 312, 39, 4078, 400, true, 600.0);
  for (ModelFamily f : {ModelFamily::kTransformer, ModelFamily::kCnn, ModelFamily::kRnn,
                        ModelFamily::kRecommender}) {
    WorkloadShape s;
    s.family = f;
    s.precision = Precision::kBf16;
    auto same = PredictThroughput({{&kA100, 1, 600}}, kA100, 1, s);
    auto fast = PredictThroughput({{&kA100, 1, 600}}, twice, 1, s);
    ASSERT_TRUE(same && fast);
    EXPECT_NEAR(same->fixed_share_target, kFixed / (1 + kFixed), 1e-9) << ModelFamilyName(f);
    EXPECT_NEAR(fast->per_second / 600, 1 / (1 / (1 + kFixed) / 2 + kFixed / (1 + kFixed)), 1e-9)
        << ModelFamilyName(f);
    EXPECT_NEAR(fast->fixed_share_target, 2 * kFixed / (1 + 2 * kFixed), 1e-9);
    EXPECT_NE(fast->basis.find("fixed share 0.17 there"), std::string::npos) << fast->basis;
    // The prediction is consistent both ways: back from the fast GPU to the reference.
    auto back = PredictThroughput({{&twice, 1, fast->per_second}}, kA100, 1, s);
    ASSERT_TRUE(back);
    EXPECT_NEAR(back->per_second, 600, 1e-6);
  }
}

TEST(CrossGpu, BandwidthOnlyStepGainsLessThanTheBandwidthRatio) {
  // H100 SXM -> H200: the same compute at every precision, 3350 -> 4800 GB/s (1.43x). A
  // transformer's bf16 step is part compute and part fixed, so it gains far less than 1.43x.
  const GpuSpec h100 = Gpu("H100-80GB-SXM", 989.5, 494.5, 67, 3350, 700, true, 900.0);
  const GpuSpec h200 = Gpu("H200", 989.5, 494.5, 67, 4800, 700, true, 900.0);
  WorkloadShape s;
  s.family = ModelFamily::kTransformer;
  s.precision = Precision::kBf16;
  auto p = PredictThroughput({{&h100, 1, 100}}, h200, 1, s);
  ASSERT_TRUE(p);
  EXPECT_GT(p->per_second, 105);
  EXPECT_LT(p->per_second, 125);
}

TEST(CrossGpu, Fp32OnCudaCoresIsComputeBound) {
  // Without TF32 (V100), fp32 code runs on the CUDA cores at 15.7 TFLOPS, an eighth of the
  // tensor rate: the same transformer is mostly compute-bound in fp32 and mostly not in fp16,
  // so more bandwidth helps its fp32 step little.
  const GpuSpec wide = Gpu("V100-wide", 125, 0, 15.7, 1800, 300, false, 300.0);
  auto run = [&](Precision p) {
    WorkloadShape s;
    s.family = ModelFamily::kTransformer;
    s.precision = p;
    auto r = PredictThroughput({{&kV100, 1, 100}}, wide, 1, s);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CrossGpuPrediction{};
  };
  const CrossGpuPrediction fp32 = run(Precision::kFp32);
  const CrossGpuPrediction fp16 = run(Precision::kFp16);
  EXPECT_GT(fp32.compute_share_target, 0.8);
  EXPECT_LT(fp16.compute_share_target, 0.6);
  EXPECT_LT(fp32.per_second, 110);  // twice the bandwidth: under 10% faster
  EXPECT_GT(fp16.per_second, 120);
}

TEST(CrossGpu, FamilyPriorsSetTheComputeAndMemoryShares) {
  // Without FLOPs and bytes per sample, the family decides. A recommender (embedding gathers)
  // is memory-bound: V100 -> A100 at fp16 below the bandwidth ratio 2039/900 = 2.27 (the fixed
  // part). A CNN is more compute-bound, a transformer more still. An RNN's small GEMMs reach a
  // lower share of the peak, so more of its time is compute than a recommender's.
  auto family = [](ModelFamily f, Precision p) {
    WorkloadShape s;
    s.family = f;
    s.precision = p;
    auto r = PredictThroughput({{&kV100, 1, 100}}, kA100, 1, s);
    EXPECT_TRUE(r) << r.error().message;
    return r ? *r : CrossGpuPrediction{};
  };
  const CrossGpuPrediction rec = family(ModelFamily::kRecommender, Precision::kFp16);
  const CrossGpuPrediction cnn = family(ModelFamily::kCnn, Precision::kFp16);
  const CrossGpuPrediction tr = family(ModelFamily::kTransformer, Precision::kFp16);
  const CrossGpuPrediction rnn = family(ModelFamily::kRnn, Precision::kFp16);
  EXPECT_LT(rec.compute_share_target, 0.1);
  EXPECT_GT(rec.per_second / 100, 1.9);
  EXPECT_LT(rec.per_second / 100, 2039.0 / 900);
  EXPECT_GT(cnn.compute_share_target, rec.compute_share_target + 0.1);
  EXPECT_GT(cnn.per_second, rec.per_second);
  EXPECT_GT(tr.compute_share_target, cnn.compute_share_target + 0.1);
  EXPECT_NE(cnn.basis.find("cnn default"), std::string::npos) << cnn.basis;
  // fp32 code: the V100 has no TF32 tensor cores, the A100 does (156 against 15.7 TFLOPS), so
  // a transformer, compute-bound in fp32 on the V100, gains far more than a recommender.
  const CrossGpuPrediction tr32 = family(ModelFamily::kTransformer, Precision::kFp32);
  const CrossGpuPrediction rec32 = family(ModelFamily::kRecommender, Precision::kFp32);
  EXPECT_GT(tr32.per_second / 100, 4.0);
  EXPECT_LT(rec32.per_second / 100, 3.0);
  EXPECT_GT(tr32.per_second, 1.5 * rec32.per_second);
  const CrossGpuPrediction rnn32 = family(ModelFamily::kRnn, Precision::kFp32);
  EXPECT_GT(rnn32.per_second, rec32.per_second);
  EXPECT_GT(rnn.compute_share_target, rec.compute_share_target);
  EXPECT_NE(rnn.basis.find("small GEMMs, compute at 30% of peak"), std::string::npos) << rnn.basis;
}

TEST(CrossGpu, FitsComputeAndMemoryTermsFromTwoGpus) {
  // A job of 2e9 FLOPs and 1e7 bytes per unit (200 FLOPs per byte), timed exactly by the model
  // on two GPUs, is carried to the third exactly, whatever the family's default says.
  const double eff = 0.7;
  auto seconds = [&](const GpuSpec& g, double flops_tflops, double sustained) {
    return 2e9 / (flops_tflops * 1e12 * eff * sustained) + 1e7 / (g.memory_bandwidth_gbps * 1e9);
  };
  const double a100 = 1 / seconds(kA100, 312, 1);
  const double v100 = 1 / seconds(kV100, 125, 1);
  const double t4 = 1 / seconds(kT4, 65, 0.55);
  WorkloadShape shape;
  shape.family = ModelFamily::kRnn;  // default intensity 10, far from the true 200
  shape.precision = Precision::kFp16;
  auto p = PredictThroughput({{&kA100, 1, a100}, {&kV100, 1, v100}}, kT4, 1, shape);
  ASSERT_TRUE(p) << p.error().message;
  EXPECT_TRUE(p->fitted);
  EXPECT_NEAR(p->per_second / t4, 1.0, 1e-9);
  // The same job from one GPU with the wrong default misses.
  auto single = PredictThroughput({{&kA100, 1, a100}}, kT4, 1, shape);
  ASSERT_TRUE(single);
  EXPECT_GT(std::abs(std::log(single->per_second / t4)), 0.05);
}

TEST(CrossGpu, PrecisionSupportNamesTheFlag) {
  WorkloadShape bf16;
  bf16.precision = Precision::kBf16;
  auto p = PredictThroughput({{&kA100, 1, 1450}}, kT4, 1, bf16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::kBadInput);
  EXPECT_NE(p.error().message.find("T4 (unknown) has no bf16: use --dtype fp16"), std::string::npos)
      << p.error().message;
  // fp32 code runs on TF32 tensor cores where they exist: A100 156, V100 15.7.
  EXPECT_DOUBLE_EQ(*ComputeFlopsFor(kA100, Precision::kFp32), 156e12);
  EXPECT_DOUBLE_EQ(*ComputeFlopsFor(kV100, Precision::kFp32), 15.7e12);
  EXPECT_FALSE(ComputeFlopsFor(kV100, Precision::kTf32));
  // No tensor cores (P100): the 16-bit rate is the packed one in the table.
  GpuSpec p100 = Gpu("P100", 18.7, 0, 9.3, 732, 250, false);
  p100.tensor_cores = false;
  EXPECT_DOUBLE_EQ(*ComputeFlopsFor(p100, Precision::kFp16), 18.7e12);
}

TEST(CrossGpu, DataParallelEfficiencyFallsWithCountAndSmallWork) {
  const double one = DataParallelEfficiency(kA100, 1, 25e6, Precision::kFp16, 0.1);
  const double eight = DataParallelEfficiency(kA100, 8, 25e6, Precision::kFp16, 0.1);
  const double sixty_four = DataParallelEfficiency(kA100, 64, 25e6, Precision::kFp16, 0.1);
  EXPECT_DOUBLE_EQ(one, 1.0);
  EXPECT_LT(eight, one);
  EXPECT_LT(sixty_four, eight);
  // The same 8 GPUs with a thousandth of the work per step: the all-reduce shows.
  const double tiny_steps = DataParallelEfficiency(kA100, 8, 25e6, Precision::kFp16, 1e-5);
  EXPECT_LT(tiny_steps, 0.5 * eight);
  // PCIe-only GPUs lose more than NVLink ones.
  EXPECT_LT(DataParallelEfficiency(kT4, 8, 25e6, Precision::kFp16, 0.1), eight);
  auto p = PredictThroughput({{&kA100, 1, 1000}}, kA100, 8, WorkloadShape{});
  ASSERT_TRUE(p);
  EXPECT_LT(p->per_second, 8000);
  EXPECT_GT(p->per_second, 6000);
  EXPECT_NEAR(p->per_second, 8000 * p->data_parallel_efficiency, 1e-6);
}

TEST(CrossGpu, RejectsEmptyOrNonPositiveMeasurements) {
  EXPECT_FALSE(PredictThroughput({}, kA100, 1, WorkloadShape{}));
  EXPECT_FALSE(PredictThroughput({{&kA100, 1, 0}}, kA100, 1, WorkloadShape{}));
  EXPECT_FALSE(PredictThroughput({{&kA100, 1, NAN}}, kA100, 1, WorkloadShape{}));
  EXPECT_FALSE(PredictThroughput({{&kA100, 1, 10}}, kA100, 0, WorkloadShape{}));
  EXPECT_EQ(ParseModelFamily("xgboost"), ModelFamily::kTreeEnsemble);
  EXPECT_FALSE(ParseModelFamily("gan"));
}

TEST(CrossGpu, ParsesMeasuredFlags) {
  auto c = catalog::Catalog::LoadFrom(frugal::testing::SourceDir() / "data");
  ASSERT_TRUE(c) << c.error().message;
  auto one = ParseDeviceMeasurement("A100-80GB=1450", *c);
  ASSERT_TRUE(one) << one.error().message;
  EXPECT_EQ(one->gpu->name, "A100-80GB");
  EXPECT_EQ(one->gpus, 1);
  EXPECT_DOUBLE_EQ(one->per_second, 1450);
  auto eight = ParseDeviceMeasurement("v100-16gb:8=4000", *c);
  ASSERT_TRUE(eight) << eight.error().message;
  EXPECT_EQ(eight->gpus, 8);
  for (const char* bad :
       {"A100-80GB", "A100-80GB=fast", "A100-80GB=-3", "Z100=10", "A100-80GB:0=10"}) {
    auto r = ParseDeviceMeasurement(bad, *c);
    EXPECT_FALSE(r) << bad;
    if (!r) {
      EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    }
  }
}

}  // namespace
}  // namespace frugal::estimate

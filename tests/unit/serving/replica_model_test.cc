#include "frugal/serving/replica_model.h"

#include <gtest/gtest.h>

namespace frugal::serving {
namespace {

catalog::GpuSpec A100() {
  catalog::GpuSpec g;
  g.name = "A100-80GB";
  g.memory_gib = 80;
  g.memory_bandwidth_gbps = 2039;
  g.bf16_tflops = 312;
  g.nvlink_gbps = 600;
  return g;
}

catalog::GpuSpec T4() {
  catalog::GpuSpec g;
  g.name = "T4";
  g.memory_gib = 16;
  g.memory_bandwidth_gbps = 320;
  g.bf16_tflops = 65;
  g.supports_bf16 = false;
  g.usable_memory_gib = 14.75;  // data/gpu_memory.csv: GDDR6 with ECC on
  return g;
}

/// Llama 2 7B: 6,738,415,616 parameters.
ServedModel Llama7b(WeightFormat w) {
  estimate::ModelSpec spec;
  spec.layers = 32;
  spec.hidden = 4096;
  spec.heads = 32;
  spec.ffn = 11008;
  spec.vocab = 32000;
  spec.seq = 4096;
  ServedModel m;
  m.shape = *estimate::ResolveModel(spec);
  m.weights = w;
  return m;
}

/// Llama 2 70B: grouped-query attention with 8 KV heads.
ServedModel Llama70b() {
  estimate::ModelSpec spec;
  spec.layers = 80;
  spec.hidden = 8192;
  spec.heads = 64;
  spec.kv_heads = 8;
  spec.ffn = 28672;
  spec.vocab = 32000;
  spec.seq = 4096;
  ServedModel m;
  m.shape = *estimate::ResolveModel(spec);
  return m;
}

ServedModel BertBase() {
  estimate::ModelSpec spec;
  spec.layers = 12;
  spec.hidden = 768;
  spec.heads = 12;
  spec.ffn = 3072;
  spec.vocab = 30522;
  spec.seq = 512;
  spec.mlp = estimate::Mlp::kGelu;
  ServedModel m;
  m.architecture = Architecture::kEncoder;
  m.shape = *estimate::ResolveModel(spec);
  return m;
}

Workload Chat() {
  Workload w;
  w.mean_rps = 1;
  w.peak_rps = 1;
  w.input_tokens = 512;
  w.output_tokens = 256;
  return w;
}

constexpr double kGib = 1024.0 * 1024.0 * 1024.0;

TEST(ReplicaModel, WeightBytesByFormat) {
  const ServedModel fp16 = Llama7b(WeightFormat::kFp16);
  EXPECT_DOUBLE_EQ(fp16.shape.params, 6'738'415'616);
  EXPECT_DOUBLE_EQ(ModelWeightBytes(fp16), 2.0 * 6'738'415'616);
  // int4: the 32 blocks' linear layers (6,476,005,376 weights) at 4.25 bits, the embeddings,
  // head and norms (262,410,240) in 16 bits.
  EXPECT_NEAR(ModelWeightBytes(Llama7b(WeightFormat::kInt4)),
              6'476'005'376.0 * 0.53125 + 262'410'240.0 * 2, 1.0);
  EXPECT_NEAR(ModelWeightBytes(Llama7b(WeightFormat::kInt8)), 6'476'005'376.0 + 262'410'240.0 * 2,
              1.0);
}

TEST(ReplicaModel, KvCacheBytesPerToken) {
  // 2 (K, V) × 32 layers × 4096 × 2 bytes.
  EXPECT_DOUBLE_EQ(KvBytesPerToken(Llama7b(WeightFormat::kFp16)), 524'288);
  // Grouped-query attention keeps 8 of 64 heads: 2 × 80 × 8192 / 8 × 2.
  EXPECT_DOUBLE_EQ(KvBytesPerToken(Llama70b()), 327'680);
  ServedModel fp8_kv = Llama7b(WeightFormat::kFp16);
  fp8_kv.kv_cache_bytes = 1;
  EXPECT_DOUBLE_EQ(KvBytesPerToken(fp8_kv), 262'144);
}

TEST(ReplicaModel, MemoryFitHoldsTheMeanContextPerRequestAndSplitsOverTensorParallel) {
  const ServedModel m = Llama7b(WeightFormat::kFp16);
  const Workload w = Chat();
  const ReplicaHardware one = *GpuReplica(A100(), 1, m.weights);
  const ReplicaHardware two = *GpuReplica(A100(), 2, m.weights);
  const MemoryFit f1 = Memory(m, w, one, 10);
  // A paged cache: the prompt and half the output on average, 512 + 128 tokens (40 blocks).
  EXPECT_DOUBLE_EQ(f1.kv_cache, 10.0 * 640 * 524'288);
  EXPECT_DOUBLE_EQ(f1.weights, 2.0 * 6'738'415'616);
  // The catalog's usable memory (95% of 80 GiB when data/gpu_memory.csv has no row); the cache
  // may take 90% of what the weights and the runtime leave.
  const double usable = 0.95 * 80 * kGib;
  EXPECT_DOUBLE_EQ(f1.capacity, f1.weights + f1.overhead +
                                    kGpuFreeMemoryShare * (usable - f1.weights - f1.overhead));
  // Runtime plus one prefill chunk of min(2048, 10 × 512) tokens of (4h + 2 ffn) 16-bit values.
  EXPECT_DOUBLE_EQ(f1.overhead, kGpuRuntimeBytes + 2048.0 * (4 * 4096 + 2 * 11008) * 2);
  const MemoryFit f2 = Memory(m, w, two, 10);
  EXPECT_DOUBLE_EQ(f2.kv_cache, f1.kv_cache / 2);
  EXPECT_DOUBLE_EQ(f2.weights, f1.weights / 2);
}

TEST(ReplicaModel, DecodeIsBandwidthBoundAtSmallBatch) {
  const ServedModel m = Llama7b(WeightFormat::kFp16);
  const ReplicaHardware hw = *GpuReplica(A100(), 1, m.weights);
  // Weights read per step (all but the input embedding's 32000 × 4096 16-bit rows) plus one
  // request's KV cache at 1024 tokens, at 75% of 2039 GB/s, plus 30 µs per layer.
  const double bytes = 2.0 * 6'738'415'616 - 32000.0 * 4096 * 2 + 1024.0 * 524'288;
  EXPECT_NEAR(DecodeStepSeconds(m, hw, 1, 1024), bytes / (2039e9 * 0.75) + 32 * 30e-6, 1e-12);
  // Prefill of 512 tokens: 2·N_matmul·t + 2·layers·hidden·t² at half of 312 TFLOPS.
  const double flops = 2.0 * m.shape.MatmulParams() * 512 + 2.0 * 32 * 4096 * 512.0 * 512;
  EXPECT_NEAR(PrefillSeconds(m, hw, 512), flops / (312e12 * 0.5) + 32 * 30e-6, 1e-12);
}

TEST(ReplicaModel, BatchingRaisesThroughputAndTimePerToken) {
  const ServedModel m = Llama7b(WeightFormat::kFp16);
  const ReplicaHardware hw = *GpuReplica(A100(), 1, m.weights);
  const LatencyObjective none;
  const ReplicaPerformance b1 = PerformanceAt(m, Chat(), none, hw, 1);
  const ReplicaPerformance b16 = PerformanceAt(m, Chat(), none, hw, 16);
  const ReplicaPerformance b64 = PerformanceAt(m, Chat(), none, hw, 64);
  EXPECT_LT(b1.per_second, b16.per_second);
  EXPECT_LT(b16.per_second, b64.per_second);
  EXPECT_LT(*b1.latency.tpot_p50, *b16.latency.tpot_p50);
  EXPECT_LT(*b16.latency.tpot_p50, *b64.latency.tpot_p50);
  EXPECT_DOUBLE_EQ(b16.per_second, b16.requests_per_second * 256);
  EXPECT_DOUBLE_EQ(*b16.latency.tpot_p95, *b16.latency.tpot_p50 * kTpotP95Factor);
}

TEST(ReplicaModel, SizingTakesTheLargestBatchThatMeetsTheObjective) {
  const ServedModel m = Llama7b(WeightFormat::kFp16);
  const ReplicaHardware hw = *GpuReplica(A100(), 1, m.weights);
  LatencyObjective goal;
  goal.tpot_p95 = 0.030;
  const auto sized = SizeReplica(m, Chat(), goal, hw);
  ASSERT_TRUE(sized);
  EXPECT_TRUE(sized->meets_latency);
  EXPECT_GT(sized->batch, 1);
  EXPECT_LE(*sized->latency.tpot_p95, 0.030);
  const ReplicaPerformance next = PerformanceAt(m, Chat(), goal, hw, sized->batch + 1);
  EXPECT_TRUE(!next.meets_latency || !next.memory.fits());
  // An objective no batch meets: batch 1, marked as missing, with the reason.
  goal.tpot_p95 = 0.001;
  const auto missed = SizeReplica(m, Chat(), goal, hw);
  ASSERT_TRUE(missed);
  EXPECT_EQ(missed->batch, 1);
  EXPECT_FALSE(missed->meets_latency);
  EXPECT_NE(missed->latency_miss.find("tpot_p95"), std::string::npos) << missed->latency_miss;
}

TEST(ReplicaModel, TensorParallelWhereTheWeightsNeedIt) {
  const ServedModel m = Llama70b();
  EXPECT_FALSE(SizeReplica(m, Chat(), {}, *GpuReplica(A100(), 1, m.weights)));
  const auto two = SizeReplica(m, Chat(), {}, *GpuReplica(A100(), 2, m.weights));
  ASSERT_TRUE(two);
  EXPECT_GT(two->batch, 1);
}

TEST(ReplicaModel, QuantizedSevenBillionFitsAT4) {
  LatencyObjective goal;
  goal.tpot_p95 = 0.1;
  const ServedModel int4 = Llama7b(WeightFormat::kInt4);
  const auto t4 = SizeReplica(int4, Chat(), goal, *GpuReplica(T4(), 1, int4.weights));
  ASSERT_TRUE(t4);
  EXPECT_TRUE(t4->meets_latency);
  EXPECT_GE(t4->batch, 8);
  // In 16 bits the weights alone take 12.6 of the T4's 14.75 usable GiB; with the runtime's
  // 1.1 GiB, 90% of the 1.1 GiB left holds 3 requests of 640 tokens at 512 KiB a token.
  const ServedModel fp16 = Llama7b(WeightFormat::kFp16);
  const auto wide = SizeReplica(fp16, Chat(), goal, *GpuReplica(T4(), 1, fp16.weights));
  ASSERT_TRUE(wide);
  EXPECT_EQ(wide->batch, 3);
}

TEST(ReplicaModel, EncoderBatchIsComputeBound) {
  const ServedModel m = BertBase();
  Workload w;
  w.tokens_per_item = 128;
  // 2 × 12 layers × 7,077,888 linear weights × 128 tokens + 4 × 12 × 768 × 128².
  EXPECT_DOUBLE_EQ(ItemFlops(m, w), 2.0 * 12 * 7'077'888 * 128 + 4.0 * 12 * 768 * 128 * 128);
  const ReplicaHardware hw = *GpuReplica(T4(), 1, WeightFormat::kFp16);
  EXPECT_NEAR(BatchSeconds(m, w, hw, 32), 32 * ItemFlops(m, w) / (65e12 * 0.5) + 12 * 30e-6, 1e-12);
  LatencyObjective goal;
  goal.request_p95 = 0.05;
  const auto sized = SizeReplica(m, w, goal, hw);
  ASSERT_TRUE(sized);
  EXPECT_LE(*sized->latency.request_p95, 0.05);
  EXPECT_DOUBLE_EQ(*sized->latency.request_p95,
                   kRequestP95Factor * BatchSeconds(m, w, hw, sized->batch));
}

TEST(ReplicaModel, CpuInstanceFromItsVcpus) {
  const ReplicaHardware cpu = CpuReplica(8, 16);
  EXPECT_TRUE(cpu.cpu());
  EXPECT_DOUBLE_EQ(cpu.peak_flops, 8 * kCpuPeakFlopsPerVcpu);
  EXPECT_DOUBLE_EQ(cpu.bandwidth_bytes_per_s, 8 * kCpuBandwidthPerVcpu);
  EXPECT_DOUBLE_EQ(cpu.memory_bytes, 16 * kGib);
  EXPECT_DOUBLE_EQ(CpuReplica(4, 0).memory_bytes, 16 * kGib);  // 4 GiB per vCPU assumed
  const ServedModel m = BertBase();
  Workload w;
  w.tokens_per_item = 128;
  EXPECT_NEAR(BatchSeconds(m, w, cpu, 1),
              ItemFlops(m, w) / (8 * kCpuPeakFlopsPerVcpu * kCpuComputeEfficiency) + 12 * 20e-6,
              1e-12);
}

TEST(ReplicaModel, GpuWithoutPublishedFiguresIsRefused) {
  catalog::GpuSpec bare;
  bare.name = "A40";
  bare.memory_gib = 48;
  auto hw = GpuReplica(bare, 1, WeightFormat::kFp16);
  ASSERT_FALSE(hw);
  EXPECT_NE(hw.error().message.find("no published"), std::string::npos);
}

}  // namespace
}  // namespace frugal::serving

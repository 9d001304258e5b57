// What a serving benchmark states: a fixed concurrency or batch, an offered load, a mixture of
// experts, int8 (w8a8) compute, interconnect-aware tensor parallelism, the KV cache's room and
// a low-power board; and every example of docs/inference-spec.md parses.

#include <gtest/gtest.h>

#include <cmath>
#include <regex>

#include "frugal/core/numbers.h"
#include "frugal/estimate/parallelism.h"
#include "frugal/estimate/sustained_clock.h"
#include "frugal/serving/inference_spec.h"
#include "frugal/serving/replica_model.h"
#include "support/test_support.h"

namespace frugal::serving {
namespace {

const std::vector<std::string> kGpus = {"A100-80GB", "L4", "T4", "H100-80GB-SXM"};

Result<InferenceSpec> Parse(const std::string& text) {
  return ParseInferenceSpec("apiVersion: frugal/v1\nkind: Inference\n" + text, "serve.yaml",
                            "/specs", kGpus);
}

catalog::GpuSpec Gpu(const std::string& name, double gib, double gbps, double tflops,
                     std::optional<double> nvlink) {
  catalog::GpuSpec g;
  g.name = name;
  g.memory_gib = gib;
  g.usable_memory_gib = gib;
  g.memory_bandwidth_gbps = gbps;
  g.bf16_tflops = tflops;
  g.fp8_tflops = std::nullopt;
  g.nvlink_gbps = nvlink;
  g.architecture = "Ampere";
  g.release_year = 2020;
  return g;
}

ServedModel Shape(int layers, int hidden, int heads, int kv_heads, int ffn, int vocab,
                  int experts = 1, int top_k = 1) {
  estimate::ModelSpec spec;
  spec.layers = layers;
  spec.hidden = hidden;
  spec.heads = heads;
  spec.kv_heads = kv_heads;
  spec.ffn = ffn;
  spec.vocab = vocab;
  spec.seq = 32768;
  if (experts > 1) {
    spec.experts = experts;
    spec.experts_per_token = top_k;
  }
  ServedModel m;
  m.shape = *estimate::ResolveModel(spec);
  return m;
}

Workload Chat(int in, int out) {
  Workload w;
  w.mean_rps = 1;
  w.peak_rps = 1;
  w.input_tokens = in;
  w.output_tokens = out;
  return w;
}

/// The ```yaml blocks of a Markdown file.
std::vector<std::string> YamlBlocks(const std::string& text) {
  std::vector<std::string> out;
  const std::regex block("```yaml\n([\\s\\S]*?)```");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), block);
       it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

TEST(InferenceSpecDocs, EveryExampleParses) {
  const std::string doc = testing::ReadTestFile(testing::SourceDir() / "docs/inference-spec.md");
  const std::vector<std::string> blocks = YamlBlocks(doc);
  ASSERT_GE(blocks.size(), 3u);
  for (size_t i = 0; i < blocks.size(); ++i) {
    auto spec = ParseInferenceSpec(blocks[i], fmt::format("inference-spec.md block {}", i + 1),
                                   "/docs", kGpus);
    EXPECT_TRUE(spec) << "block " << i + 1 << ": " << spec.error().message;
  }
}

TEST(BenchmarkPoint, ConcurrencyPinsTheBatch) {
  auto spec = Parse(R"(model: {params: 7b}
workload: {rps: 1, input_tokens: 512, output_tokens: 256, concurrency: 1}
)");
  ASSERT_TRUE(spec) << spec.error().message;
  const auto hw = GpuReplica(Gpu("A100-80GB", 80, 2039, 312, 600), 1, WeightFormat::kFp16);
  ASSERT_TRUE(hw);
  auto p = SizeReplica(spec->model, spec->workload, spec->latency, *hw);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->batch, 1);
  // Unpinned, the same replica is sized far above one request.
  Workload free = spec->workload;
  free.concurrency.reset();
  auto sized = SizeReplica(spec->model, free, spec->latency, *hw);
  ASSERT_TRUE(sized);
  EXPECT_GT(sized->batch, 32);
  EXPECT_GT(sized->per_second, 10 * p->per_second);
}

TEST(BenchmarkPoint, BatchPinsAnEncoder) {
  auto spec = Parse(R"(model: {type: encoder, params: 110m}
workload: {rps: 100, tokens_per_item: 128, batch: 1}
)");
  ASSERT_TRUE(spec) << spec.error().message;
  const auto hw = GpuReplica(Gpu("T4", 16, 320, 65, std::nullopt), 1, WeightFormat::kFp16);
  ASSERT_TRUE(hw);
  auto p = SizeReplica(spec->model, spec->workload, spec->latency, *hw);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->batch, 1);
}

TEST(BenchmarkPoint, OfferedLoadIsCarriedAtTheSmallestBatchThatCarriesIt) {
  auto spec = Parse(R"(model: {params: 7b}
workload: {offered_rps: 2, input_tokens: 512, output_tokens: 256}
)");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_DOUBLE_EQ(spec->workload.mean_rps, 2);  // the traffic, when no rps is given
  const auto hw = GpuReplica(Gpu("A100-80GB", 80, 2039, 312, 600), 1, WeightFormat::kFp16);
  ASSERT_TRUE(hw);
  auto p = SizeReplica(spec->model, spec->workload, spec->latency, *hw);
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->saturated);
  EXPECT_DOUBLE_EQ(p->per_second, 2 * 256.0);
  ASSERT_TRUE(p->capacity_per_second);
  EXPECT_GT(*p->capacity_per_second, p->per_second);
  // The batch below carries less than the load; this one carries it.
  const LatencyObjective none;
  EXPECT_LT(PerformanceAt(spec->model, spec->workload, none, *hw, p->batch - 1).requests_per_second,
            2.0);
  EXPECT_GE(PerformanceAt(spec->model, spec->workload, none, *hw, p->batch).requests_per_second,
            2.0);
  // A load beyond the replica: saturated at its capacity.
  Workload heavy = spec->workload;
  heavy.offered_rps = 1e6;
  auto s = SizeReplica(spec->model, heavy, spec->latency, *hw);
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->saturated);
  EXPECT_DOUBLE_EQ(s->per_second, *s->capacity_per_second);
}

TEST(BenchmarkPoint, PointsAreRefusedWhereTheyDoNotApply) {
  auto batch = Parse(
      "model: {params: 7b}\nworkload: {rps: 1, input_tokens: 8, output_tokens: 8, "
      "batch: 4}\n");
  ASSERT_FALSE(batch);
  EXPECT_NE(batch.error().message.find("serve.yaml:4:"), std::string::npos);
  EXPECT_NE(batch.error().message.find("'batch'"), std::string::npos);
  auto conc = Parse(
      "model: {type: cnn, flops_per_item: 8.2g, params: 25m}\n"
      "workload: {rps: 1, concurrency: 4}\n");
  ASSERT_FALSE(conc);
  EXPECT_NE(conc.error().message.find("'concurrency'"), std::string::npos);
  auto both = Parse(
      "model: {params: 7b}\nworkload: {rps: 1, input_tokens: 8, output_tokens: 8, "
      "concurrency: 4, offered_rps: 3}\n");
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("'offered_rps'"), std::string::npos);
}

TEST(MixtureOfExperts, MemoryHoldsEveryExpertAStepReadsTheRoutedOnes) {
  // Mixtral 8x7B: 32 layers, hidden 4096, 8 experts of ffn 14336, top-2: 46.7B parameters.
  ServedModel moe = Shape(32, 4096, 32, 8, 14336, 32000, 8, 2);
  EXPECT_NEAR(moe.shape.params / 1e9, 46.7, 0.1);
  EXPECT_NEAR(ActiveMatmulParams(moe) / 1e9, 12.9 - 0.13, 0.1);
  // Weights in memory: every expert (about 93 GB at 16 bits).
  EXPECT_NEAR(ModelWeightBytes(moe) / 1e9, 93.4, 0.3);
  // One token reads the dense part and 2 of 8 experts; many tokens read them all.
  const double expert_bytes = 32.0 * 8 * 3 * 4096.0 * 14336 * 2;
  const double dense = ModelWeightBytes(moe) - 32000.0 * 4096 * 2 - expert_bytes;
  EXPECT_NEAR(WeightBytesRead(moe, 1), dense + expert_bytes * 2 / 8, 1e6);
  EXPECT_NEAR(WeightBytesRead(moe, 4), dense + expert_bytes * (1 - std::pow(0.75, 4)), 1e6);
  EXPECT_NEAR(WeightBytesRead(moe, 1000), dense + expert_bytes, 1e6);
}

TEST(MixtureOfExperts, ActiveParamsStateABareCount) {
  auto spec =
      Parse(R"(model: {params: 46.7b, experts: 8, experts_per_token: 2, active_params: 12.9b}
workload: {rps: 1, input_tokens: 128, output_tokens: 128}
)");
  ASSERT_TRUE(spec) << spec.error().message;
  // Active parameters count the input embedding, which is looked up, not multiplied.
  const double lookup = 32000.0 * spec->model.shape.hidden;
  EXPECT_NEAR((ActiveMatmulParams(spec->model) + lookup) / 1e9, 12.9, 1e-6);
  auto missing = Parse(
      "model: {params: 46.7b, experts: 8}\n"
      "workload: {rps: 1, input_tokens: 8, output_tokens: 8}\n");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("'active_params'"), std::string::npos);
  auto dense = Parse(
      "model: {params: 7b, active_params: 3b}\n"
      "workload: {rps: 1, input_tokens: 8, output_tokens: 8}\n");
  ASSERT_FALSE(dense);
  EXPECT_NE(dense.error().message.find("mixture of experts"), std::string::npos);
}

TEST(Precision, W8a8ComputesAtTheInt8RateWeightOnlyInt8AtSixteenBits) {
  const catalog::GpuSpec a100 = Gpu("A100-80GB", 80, 2039, 312, 600);
  auto w8a8 = GpuReplica(a100, 1, WeightFormat::kW8A8);
  auto w8a16 = GpuReplica(a100, 1, WeightFormat::kInt8);
  ASSERT_TRUE(w8a8 && w8a16);
  EXPECT_DOUBLE_EQ(w8a8->peak_flops, 624e12);
  EXPECT_DOUBLE_EQ(w8a16->peak_flops, 312e12);
  auto parsed = ParseWeightFormat("w8a8");
  ASSERT_TRUE(parsed);
  EXPECT_EQ(*parsed, WeightFormat::kW8A8);
  catalog::GpuSpec v100 = a100;
  v100.architecture = "Volta";
  v100.release_year = 2017;
  EXPECT_DOUBLE_EQ(*Int8DenseTops(v100), 312);
}

TEST(TensorParallel, AllReducesCostMoreOverPcieThanNvlink) {
  const ServedModel m = Shape(80, 8192, 64, 8, 28672, 128256);
  auto nvlink = GpuReplica(Gpu("A100-80GB", 80, 2039, 312, 600), 4, WeightFormat::kFp16);
  auto pcie =
      GpuReplica(Gpu("A100-80GB-PCIe", 80, 1935, 312, std::nullopt), 4, WeightFormat::kFp16);
  auto one = GpuReplica(Gpu("A100-80GB", 80, 2039, 312, 600), 1, WeightFormat::kFp16);
  ASSERT_TRUE(nvlink && pcie && one);
  EXPECT_DOUBLE_EQ(AllReduceSeconds(m, *one, 64), 0);
  // 64 tokens × 8192 × 2 bytes, 2 per layer over 80 layers, ring share 3/4 × 2.
  const double bytes = 64.0 * 8192 * 2;
  const double hops = 2 * 80 * 2 * estimate::kRingHopSeconds;
  EXPECT_NEAR(AllReduceSeconds(m, *pcie, 64),
              2 * 80 * (1.5 * bytes / estimate::kPcieBytesPerSecond) + hops, 1e-9);
  EXPECT_GT(AllReduceSeconds(m, *pcie, 64), 3 * AllReduceSeconds(m, *nvlink, 64));
}

TEST(KvCache, A70bFp8OnOne80GbGpuHoldsTheRequestsItsFreeMemoryHolds) {
  // Llama 3 70B in fp8 with an fp8 cache on one H100 (79.1 GiB usable).
  ServedModel m = Shape(80, 8192, 64, 8, 28672, 128256);
  m.weights = WeightFormat::kFp8;
  m.kv_cache_bytes = 1;
  catalog::GpuSpec h100 = Gpu("H100-80GB-SXM", 80, 3350, 989, 900);
  h100.usable_memory_gib = 79.1;
  auto hw = GpuReplica(h100, 1, WeightFormat::kFp8);
  ASSERT_TRUE(hw);
  const Workload w = Chat(2048, 2048);
  const MemoryFit f = Memory(m, w, *hw, 1);
  // Per token: 2 × 80 layers × 1024 (8 of 64 heads) × 1 byte = 160 KiB; a request holds 2048
  // + 1024 tokens on average.
  EXPECT_DOUBLE_EQ(KvBytesPerToken(m), 2.0 * 80 * 1024);
  EXPECT_DOUBLE_EQ(f.kv_cache, 3072 * KvBytesPerToken(m));
  const double room = 0.9 * (79.1 * kGib - f.weights - f.overhead);
  const int expected = static_cast<int>(room / f.kv_cache);
  EXPECT_EQ(expected, 19);  // a cache reserved for whole contexts in 90% of 80 GiB held 4
  auto p = SizeReplica(m, w, {}, *hw);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->batch, expected);
}

TEST(PowerLimit, A70WattBoardComputesAtItsSustainedShare) {
  catalog::GpuSpec t4 = Gpu("T4", 16, 320, 65, std::nullopt);
  auto hot = GpuReplica(t4, 1, WeightFormat::kFp16);
  t4.tdp_watts = 70;
  auto capped = GpuReplica(t4, 1, WeightFormat::kFp16);
  ASSERT_TRUE(hot && capped);
  EXPECT_DOUBLE_EQ(hot->peak_flops, 65e12);
  EXPECT_DOUBLE_EQ(capped->peak_flops, 65e12 * estimate::kLowPowerClock);
}

}  // namespace
}  // namespace frugal::serving

#include "frugal/serving/inference_spec.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace frugal::serving {
namespace {

const std::vector<std::string> kGpus = {"A100-80GB", "L4", "T4"};

Result<InferenceSpec> Parse(const std::string& text) {
  return ParseInferenceSpec(text, "serve.yaml", "/specs", kGpus);
}

constexpr const char* kChat = R"(apiVersion: frugal/v1
kind: Inference
model:
  params: 7b
  weights: awq
workload:
  rps: 2
  peak_rps: 5
  input_tokens: 512
  output_tokens: 256
latency:
  tpot_p95: 100ms
  ttft_p95: 2s
serving:
  hours: business
  lifetime_months: 18
)";

TEST(InferenceSpec, ReadsAChatDeployment) {
  auto spec = Parse(kChat);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->model.architecture, Architecture::kDecoder);
  EXPECT_EQ(spec->model.weights, WeightFormat::kInt4);
  EXPECT_DOUBLE_EQ(spec->workload.mean_rps, 2);
  EXPECT_DOUBLE_EQ(spec->workload.peak_rps, 5);
  EXPECT_DOUBLE_EQ(*spec->latency.tpot_p95, 0.1);
  EXPECT_DOUBLE_EQ(*spec->latency.ttft_p95, 2.0);
  // Business hours: 10 h a day, 5 days a week, of 730 h a month.
  EXPECT_NEAR(spec->schedule.hours_per_month, 730.0 * 50 / 168, 1e-9);
  EXPECT_EQ(spec->schedule.lifetime_months, 18);
  EXPECT_FALSE(spec->schedule.interruptible);
}

TEST(InferenceSpec, DailyShapeGivesMeanAndPeak) {
  std::string text = R"(apiVersion: frugal/v1
kind: Inference
model: {type: encoder, params: 110m}
workload:
  daily_shape: [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]
)";
  auto spec = Parse(text);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_DOUBLE_EQ(spec->workload.peak_rps, 9);
  EXPECT_DOUBLE_EQ(spec->workload.mean_rps, 5);
  EXPECT_EQ(spec->workload.tokens_per_item, spec->model.shape.seq);
}

TEST(InferenceSpec, WeightFormatsAndTheirBytes) {
  EXPECT_EQ(*ParseWeightFormat("GPTQ"), WeightFormat::kInt4);
  EXPECT_EQ(*ParseWeightFormat("w8a16"), WeightFormat::kInt8);
  EXPECT_EQ(*ParseWeightFormat("w8a8"), WeightFormat::kW8A8);  // int8 math, not weight-only
  EXPECT_DOUBLE_EQ(WeightBytes(WeightFormat::kW8A8), 1);
  EXPECT_FALSE(ParseWeightFormat("int3"));
  EXPECT_DOUBLE_EQ(WeightBytes(WeightFormat::kFp16), 2);
  EXPECT_DOUBLE_EQ(WeightBytes(WeightFormat::kFp8), 1);
  // 4 bits plus a 16-bit scale and zero point per group of 128 weights.
  EXPECT_DOUBLE_EQ(WeightBytes(WeightFormat::kInt4), 4.25 / 8);
}

void ExpectError(const std::string& text, const std::string& where, const std::string& what) {
  auto spec = Parse(text);
  ASSERT_FALSE(spec) << text;
  EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
  EXPECT_NE(spec.error().message.find(where), std::string::npos) << spec.error().message;
  EXPECT_NE(spec.error().message.find(what), std::string::npos) << spec.error().message;
}

TEST(InferenceSpec, TwoMeasuredProfilesOfOneReplicaShapeAreBadInput) {
  // The last one won silently: 120/s and 1200/s on one T4 planned 1 replica, not 4.
  const std::string head =
      "apiVersion: frugal/v1\nkind: Inference\nmodel: {type: encoder, params: 1b}\n"
      "workload: {rps: 1}\nmeasured:\n";
  ExpectError(head +
                  "  - {gpu: T4, items_per_second: 120}\n"
                  "  - {gpu: T4, items_per_second: 1200}\n",
              "serve.yaml:7:", "T4 is measured twice (first at serve.yaml:6:");
  ExpectError(head +
                  "  - {gpu: T4, gpus: 2, items_per_second: 120}\n"
                  "  - {gpu: T4, gpus: 2, items_per_second: 1200}\n",
              "serve.yaml:7:", "T4 x2 is measured twice");
  auto shapes = Parse(head +
                      "  - {gpu: T4, items_per_second: 120}\n"
                      "  - {gpu: T4, gpus: 2, items_per_second: 230}\n"
                      "  - {gpu: L4, items_per_second: 300}\n");
  EXPECT_TRUE(shapes) << shapes.error().message;
}

TEST(InferenceSpec, BadInputNamesFileLineAndField) {
  const std::string head = "apiVersion: frugal/v1\nkind: Inference\n";
  ExpectError(head + "model: {params: 7b, weigths: int4}\nworkload: {rps: 1}\n",
              "serve.yaml:3:", "unknown key 'weigths'");
  ExpectError(head + "model: {params: 7b, family: transformer}\nworkload: {rps: 1}\n",
              "serve.yaml:3:", "unknown key 'family' in model");
  ExpectError(head + "model: {params: 7b}\nworkload: {rps: 1, input_tokens: 10}\n",
              "serve.yaml:4:", "output_tokens");
  ExpectError(head + "model: {params: 7b, weights: int3}\nworkload: {rps: 1}\n",
              "serve.yaml:3:", "field 'weights'");
  ExpectError(head + "model: {type: encoder, params: 7b}\nworkload:\n  daily_shape: [1, 2]\n",
              "serve.yaml:5:", "24 values");
  ExpectError(head + "model: {type: encoder, params: 7b}\nworkload: {rps: 5, peak_rps: 2}\n",
              "serve.yaml:4:", "below the mean");
  ExpectError(head +
                  "model: {type: encoder, params: 1b}\nworkload: {rps: 1}\n"
                  "latency: {tpot_p95: 10ms}\n",
              "serve.yaml:5:", "only for a decoder");
  ExpectError(head + "model: {type: cnn, params: 25m}\nworkload: {rps: 1}\n",
              "serve.yaml:3:", "flops_per_item");
  ExpectError(head +
                  "model: {type: encoder, params: 1b}\nworkload: {rps: 1}\n"
                  "measured:\n  - {gpu: T5, items_per_second: 10}\n",
              "serve.yaml:6:", "unknown GPU 'T5'");
  ExpectError(head +
                  "model: {type: encoder, params: 1b}\nworkload: {rps: 1}\n"
                  "training: {cost: 10, study: s}\n",
              "serve.yaml:5:", "exactly one of job, cost, run and study");
  ExpectError("apiVersion: frugal/v1\nkind: Job\nmodel: {params: 1b}\nworkload: {rps: 1}\n",
              "serve.yaml:2:", "expected Inference");
  ExpectError(head +
                  "model: {type: encoder, params: 1b}\nworkload: {rps: 1}\n"
                  "serving: {hours: weekends}\n",
              "serve.yaml:5:", "unknown 'weekends'");
}

TEST(InferenceSpec, AbsurdlySmallPositivesAreBadInputNotAZeroBill) {
  // 1e-320 is positive, yet prices to infinity (rps), a $0 bill (hours_per_day) or
  // "9.88e-324K parameters"; 1e-9 is a normal double and just as meaningless here.
  const std::string head = "apiVersion: frugal/v1\nkind: Inference\n";
  for (const char* tiny : {"1e-320", "1e-9"}) {
    const std::string t(tiny);
    const std::string model = "model: {type: encoder, params: 7b}\n";
    ExpectError(
        fmt::format("{}model: {{type: encoder, params: {}}}\nworkload: {{rps: 1}}\n", head, t),
        "serve.yaml:3:", "field 'params'");
    ExpectError(fmt::format("{}{}workload: {{rps: {}}}\n", head, model, t),
                "serve.yaml:4:", "field 'rps'");
    ExpectError(
        fmt::format("{}{}workload: {{rps: 1}}\nserving: {{hours_per_day: {}}}\n", head, model, t),
        "serve.yaml:5:", "field 'hours_per_day'");
  }
  // The smallest sensible figures still read.
  auto small = Parse(head +
                     "model: {type: encoder, params: 1k}\nworkload: {rps: 0.001}\n"
                     "serving: {hours_per_day: 0.5}\n");
  ASSERT_TRUE(small) << small.error().message;
}

}  // namespace
}  // namespace frugal::serving

#include "frugal/plan/job_spec.h"

#include <gtest/gtest.h>

namespace frugal::plan {
namespace {

const std::vector<std::string> kGpus = {"A100-80GB", "A100-40GB", "L4", "T4", "H100-80GB-SXM"};

Result<JobSpec> Parse(const std::string& text) {
  return ParseJobSpec(text, "job.yaml", "/specs", kGpus);
}

constexpr const char* kMinimal = R"(apiVersion: frugal/v1
kind: Job
model:
  params: 1b
work:
  tokens: 1b
)";

TEST(JobSpec, ANameThatIsAPathIsBadInputAtItsLine) {
  // `run --spec` writes the job's measurements to a file named after it: `../../../escaped-job`
  // wrote escaped-job.json three folders up, an absolute name wherever it pointed.
  for (const std::string& name :
       std::vector<std::string>{"../../../escaped-job", "/tmp/escaped", "..", "a/b"}) {
    auto spec = Parse("apiVersion: frugal/v1\nkind: Job\nname: " + name +
                      "\nmodel: {params: 1b}\nwork: {tokens: 1b}\n");
    ASSERT_FALSE(spec) << name;
    EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
    EXPECT_EQ(spec.error().message.rfind("job.yaml:3:7: field 'name'", 0), 0u)
        << spec.error().message;
  }
  auto plain = Parse(std::string(kMinimal) + "name: llama-7b.v2\n");
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(plain->measurement_name, "llama-7b.v2");
}

TEST(JobSpec, MinimalSpecGetsDefaultKnobSpace) {
  auto spec = Parse(kMinimal);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_DOUBLE_EQ(spec->model.params, 1e9);
  EXPECT_EQ(spec->knobs.precisions.size(), 2u);  // bf16, then fp16 for parts without bf16
  EXPECT_EQ(spec->knobs.recomputes.size(), 3u);
  EXPECT_EQ(spec->knobs.zero_stages.size(), 4u);
  EXPECT_EQ(spec->constraints.max_gpus, 8);
  EXPECT_FALSE(spec->constraints.deadline_hours);
}

TEST(JobSpec, TagsAreAnyNamesWithScalarValues) {
  const std::string rest = "model: {params: 1b}\nwork: {tokens: 1b}\n";
  auto spec =
      Parse("apiVersion: frugal/v1\ntags: {team: nlp, justification: fp8 pretraining}\n" + rest);
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->tags.at("justification"), "fp8 pretraining");
  auto bad = Parse("apiVersion: frugal/v1\ntags:\n  team: {a: b}\n" + rest);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find(":3:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("tags.team"), std::string::npos) << bad.error().message;
}

TEST(JobSpec, ReadsEverySection) {
  auto spec = Parse(R"(apiVersion: frugal/v1
kind: Job
name: ft
tags: {team: nlp, owner: grace}
catalog: offers.yaml
model: {layers: 2, hidden: 256, heads: 4, kv_heads: 2, vocab: 1000, seq: 512, mlp: gelu}
training: {precision: fp16, optimizer: sgd, method: lora, lora_rank: 8, micro_batch: 2, global_batch: 16, recompute: selective, zero: 2}
knobs: {recompute: [none, full], micro_batch: [1, 2], method: [lora, qlora]}
work: {samples: 10k, epochs: 3, tokens_per_sample: 300}
measured:
  - {offer: "aws:p4d", runtime: 2h30m, peak_memory_gib: 20}
  - {gpu: a100-80gb, gpus: 8, tokens_per_second: 5000}
constraints: {deadline: 36h, budget: "$500", max_gpu_hours: 100, clouds: [AWS], tiers: [spot], gpus: [L4], max_gpus: 4, reserved_utilization: 0.5}
fault_tolerance: {checkpoint_write: 90s, restart: 4m, checkpoint_on_notice: true, notice: 2m}
)");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->tags.at("team"), "nlp");
  EXPECT_EQ(spec->catalog_files.front(), std::filesystem::path("/specs/offers.yaml"));
  EXPECT_EQ(spec->model.mlp, estimate::Mlp::kGelu);
  EXPECT_EQ(spec->baseline.method, estimate::Method::kLora);
  EXPECT_EQ(spec->baseline.zero_stage, 2);
  EXPECT_EQ(spec->knobs.precisions, std::vector<estimate::Precision>{estimate::Precision::kFp16});
  EXPECT_EQ(spec->knobs.micro_batches, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(*spec->work.samples, 10000);
  ASSERT_EQ(spec->measured.size(), 2u);
  EXPECT_DOUBLE_EQ(*spec->measured[0].runtime_hours, 2.5);
  EXPECT_EQ(spec->measured[1].gpu, "A100-80GB");
  EXPECT_DOUBLE_EQ(*spec->constraints.deadline_hours, 36);
  EXPECT_EQ(*spec->constraints.budget, Money::FromCents(50000));
  EXPECT_EQ(spec->constraints.clouds, std::vector<std::string>{"aws"});
  EXPECT_EQ(spec->constraints.tiers, std::vector<CapacityTier>{CapacityTier::kSpot});
  EXPECT_DOUBLE_EQ(spec->fault_tolerance.checkpoint_write_hours, 90.0 / 3600);
  EXPECT_TRUE(spec->fault_tolerance.checkpoint_on_notice);
}

void ExpectError(const std::string& text, const std::string& where, const std::string& what) {
  auto spec = Parse(text);
  ASSERT_FALSE(spec) << text;
  EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
  EXPECT_NE(spec.error().message.find(where), std::string::npos) << spec.error().message;
  EXPECT_NE(spec.error().message.find(what), std::string::npos) << spec.error().message;
}

TEST(JobSpec, BadInputNamesFileLineAndField) {
  ExpectError(std::string(kMinimal) + "constraints:\n  fewer_gpus_within: 1.5\n", "job.yaml:8:",
              "'fewer_gpus_within': must be a share of the cheapest option's cost in [0, 1)");
  ExpectError(std::string(kMinimal) + "constraints:\n  deadlin: 3h\n",
              "job.yaml:8:", "did you mean 'deadline'");
  ExpectError(std::string(kMinimal) + "training:\n  micro_batch: -2\n",
              "job.yaml:8:", "field 'micro_batch'");
  ExpectError(std::string(kMinimal) + "constraints:\n  deadline: 3 hours\n",
              "job.yaml:8:", "field 'deadline'");
  ExpectError(std::string(kMinimal) + "constraints:\n  budget: -5\n",
              "job.yaml:8:", "field 'budget'");
  ExpectError(std::string(kMinimal) + "constraints:\n  gpus: [A100-90GB]\n",
              "job.yaml:8:", "unknown GPU 'A100-90GB'");
  ExpectError(std::string(kMinimal) + "knobs:\n  zero: [0, 5]\n", "job.yaml:8:", "ZeRO stage");
  ExpectError(std::string(kMinimal) + "measured:\n  - {offer: x}\n",
              "job.yaml:8:", "'runtime', 'tokens_per_second' and 'samples_per_second'");
  ExpectError("apiVersion: frugal/v2\nmodel: {params: 1b}\nwork: {tokens: 1}\n",
              "job.yaml:1:", "apiVersion");
  ExpectError("apiVersion: frugal/v1\nmodel: {params: 1b}\n", "job.yaml:", "work");
  ExpectError("apiVersion: frugal/v1\nmodel: {params: -1b}\nwork: {tokens: 1}\n",
              "job.yaml:2:", "params");
  // The inference spec's own model keys are not a job spec's.
  ExpectError("apiVersion: frugal/v1\nmodel: {params: 1b, weights: int4}\nwork: {tokens: 1}\n",
              "job.yaml:2:", "unknown key 'weights' in model");
  ExpectError("apiVersion: frugal/v1\nmodel: {params: 1b}\nwork: {tokens: 1b, steps: 10}\n",
              "job.yaml:3:", "only one of");
  ExpectError(
      "apiVersion: frugal/v1\nmodel: {params: 1b}\ntraining: {micro_batch: 3, global_batch: "
      "10}\nwork: {tokens: 1}\n",
      "job.yaml:3:", "not a multiple");
}

TEST(JobSpec, ReadsParallelismAndMemoryKnobs) {
  auto spec = Parse(R"(apiVersion: frugal/v1
model: {params: 175b}
training:
  tensor_parallel: 8
  pipeline_parallel: 16
  sequence_parallel: true
  attention: eager
  loss: chunked
  offload: optimizer
  optimizer_in_backward: true
  network_gbps: 1600
work: {tokens: 300b}
)");
  ASSERT_TRUE(spec) << spec.error().message;
  const estimate::Training& t = spec->baseline;
  EXPECT_EQ(t.tensor_parallel, 8);
  EXPECT_EQ(t.pipeline_parallel, 16);
  EXPECT_TRUE(t.sequence_parallel);
  EXPECT_EQ(t.attention, estimate::Attention::kEager);
  EXPECT_EQ(t.loss, estimate::Loss::kChunked);
  EXPECT_EQ(t.offload, estimate::Offload::kOptimizer);
  EXPECT_TRUE(t.optimizer_in_backward);
  EXPECT_DOUBLE_EQ(spec->network_gbps, 1600);
  // Unstated, a 175B model gets full recompute, as Megatron-style frameworks ran it.
  EXPECT_EQ(t.recompute, estimate::Recompute::kFull);
  auto small = Parse(kMinimal);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->baseline.recompute, estimate::Recompute::kNone);
  EXPECT_EQ(small->baseline.tensor_parallel, 1);
  EXPECT_EQ(small->baseline.attention, estimate::Attention::kFlash);
}

TEST(JobSpec, BadParallelismKnobsNameTheField) {
  ExpectError(std::string(kMinimal) + "training:\n  tensor_parallel: 0\n",
              "job.yaml:8:", "field 'tensor_parallel'");
  ExpectError(std::string(kMinimal) + "training:\n  sequence_parallel: true\n",
              "job.yaml:8:", "tensor_parallel of 2 or more");
  ExpectError(std::string(kMinimal) + "training:\n  attention: fast\n",
              "job.yaml:8:", "unknown attention 'fast'");
  ExpectError(std::string(kMinimal) + "training:\n  offload: disk\n",
              "job.yaml:8:", "field 'offload'");
  ExpectError(std::string(kMinimal) + "training:\n  network_gbps: -1\n",
              "job.yaml:8:", "field 'network_gbps'");
}

TEST(JobSpec, KnobListsWithNoValidValueAreBadInput) {
  // With no global_batch the batch per GPU is training.micro_batch (1 by default).
  ExpectError(std::string(kMinimal) + "knobs:\n  micro_batch: [1, 3]\n", "job.yaml:8:20:",
              "field 'micro_batch': 3 does not divide the global batch per GPU (1");
  ExpectError(std::string(kMinimal) +
                  "training: {micro_batch: 4, global_batch: 32}\n"
                  "knobs:\n  micro_batch: [8, 64]\n",
              "job.yaml:9:20:", "field 'micro_batch': 64 does not divide training.global_batch 32");
  ExpectError(std::string(kMinimal) + "knobs:\n  micro_batch: []\n",
              "job.yaml:8:16:", "field 'micro_batch': empty list");
  ExpectError(std::string(kMinimal) + "knobs:\n  precision: []\n",
              "job.yaml:8:14:", "field 'precision': empty list");
  auto spec = Parse(std::string(kMinimal) +
                    "training: {micro_batch: 4, global_batch: 32}\n"
                    "knobs:\n  micro_batch: [1, 2, 4, 8]\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->knobs.micro_batches, (std::vector<int>{1, 2, 4, 8}));
}

TEST(JobSpec, ReadsTheDataSection) {
  auto spec = Parse(std::string(kMinimal) +
                    "data:\n  cloud: AWS\n  region: us-east-1\n  size_gb: 800\n"
                    "  preprocessing: {cache_key: tok-v2, duration: 40m}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->data.cloud, "aws");
  EXPECT_EQ(spec->data.region, "us-east-1");
  EXPECT_DOUBLE_EQ(*spec->data.size_gb, 800);
  EXPECT_EQ(spec->data.cache_key, "tok-v2");
  EXPECT_NEAR(*spec->data.preprocess_hours, 40.0 / 60, 1e-9);
  EXPECT_TRUE(spec->data.cache.empty());
  // The audit reads the section alone, from a recorded spec, without GPU names.
  auto alone = ParseDataSection(std::string(kMinimal) + "data: {region: eu-west-1}\n", "run 3");
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(alone->region, "eu-west-1");
  EXPECT_FALSE(ParseDataSection(kMinimal, "run 3")->declared());
  ExpectError(std::string(kMinimal) + "data:\n  size_gb: -1\n", "job.yaml:8:", "'size_gb'");
  ExpectError(std::string(kMinimal) + "data:\n  preprocessing: {cache_kye: x}\n",
              "job.yaml:8:", "did you mean 'cache_key'");
  ExpectError(std::string(kMinimal) + "data:\n  cloud: aws\n", "job.yaml:8:", "region");
}

TEST(JobSpec, ReadsADataLocationItsRunsAndACacheWithItsOwnLocation) {
  auto spec = Parse(std::string(kMinimal) +
                    "data:\n  location: AWS:ap-south-1\n  size_gb: 800\n  runs: 5\n  keep: 14d\n"
                    "  preprocessing:\n    cache_key: tok-v2\n    duration: 40m\n"
                    "    cache: {location: gcp:us-central1, size_gb: 120, url: gs://b/tok/}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->data.cloud, "aws");
  EXPECT_EQ(spec->data.region, "ap-south-1");
  EXPECT_EQ(spec->data.where, "job.yaml:8:13");
  EXPECT_EQ(spec->data.runs, 5);
  EXPECT_DOUBLE_EQ(spec->data.keep_hours, 14 * 24);
  EXPECT_EQ(spec->data.cache_location.Label(), "gcp:us-central1");
  EXPECT_DOUBLE_EQ(*spec->data.cache_size_gb, 120);
  EXPECT_EQ(spec->data.cache, "gs://b/tok/");
  // Without `location` the cloud and region keys say the same.
  auto keys = Parse(std::string(kMinimal) + "data: {cloud: aws, region: ap-south-1}\n");
  ASSERT_TRUE(keys) << keys.error().message;
  EXPECT_EQ(keys->data.Location().Label(), "aws:ap-south-1");
  EXPECT_EQ(keys->data.runs, 1);
  // The audit's reader of a recorded spec understands `location` too.
  auto alone =
      ParseDataSection(std::string(kMinimal) + "data: {location: gcp:us-central1}\n", "run 4");
  ASSERT_TRUE(alone) << alone.error().message;
  EXPECT_EQ(alone->cloud, "gcp");
  EXPECT_EQ(alone->region, "us-central1");
}

TEST(JobSpec, BadDataLocationsNameTheLineAndField) {
  const std::string data = std::string(kMinimal) + "data:\n";
  for (const char* bad : {"aws-ap-south-1", ":ap-south-1", "aws:", "aws:ap south", "a:b:c"}) {
    ExpectError(data + "  location: '" + bad + "'\n", "job.yaml:8:13:",
                "field 'location': '" + std::string(bad) + "' is not cloud:region");
  }
  ExpectError(data + "  location: aws:ap-south-1\n  region: ap-south-1\n",
              "job.yaml:8:13:", "field 'location': give either location");
  ExpectError(data + "  runs: 0\n", "job.yaml:8:9:", "field 'runs': must be between 1");
  ExpectError(data + "  keep: 0s\n", "job.yaml:8:9:", "field 'keep'");
  ExpectError(data + "  keep: 200000d\n", "job.yaml:8:9:", "at most 100 years");
  ExpectError(data + "  size_gb: 1e12\n", "job.yaml:8:12:", "at most 1e9 GB");
  ExpectError(data + "  preprocessing: {cache_key: k, cache: {size_gb: 3}}\n",
              "job.yaml:8:", "field 'cache': needs where the cache is");
  ExpectError(data + "  preprocessing: {cache_key: k, cache: {location: gcp:us-central1}}\n",
              "job.yaml:8:", "missing required field 'size_gb'");
}

TEST(JobSpec, HugeJobsAreValid) {
  auto spec = Parse(
      "apiVersion: frugal/v1\nmodel: {params: 125m}\nwork: {tokens: 10t}\nconstraints: {gpus: "
      "[T4]}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_DOUBLE_EQ(*spec->work.tokens, 1e13);
}

}  // namespace
}  // namespace frugal::plan

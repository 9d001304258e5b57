#include <gtest/gtest.h>

#include "frugal/plan/job_spec.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

Result<JobSpec> Parse(const std::string& text) {
  return ParseJobSpec("apiVersion: frugal/v1\n" + text, "job.yaml", ".", {"A100-80GB", "L4", "T4"});
}

TEST(JobSpecSections, OtherFamiliesArePlannedFromMeasuredProfilesOnly) {
  auto spec = Parse(
      "model: {family: tree_ensemble}\n"
      "memory: {host_ram_gib: 40}\n"
      "measured:\n  - {offer: box, runtime: 1h}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  EXPECT_EQ(spec->family, estimate::ModelFamily::kTreeEnsemble);
  EXPECT_FALSE(spec->modelled);
  EXPECT_EQ(spec->host_ram_gib, 40);
  // A CNN measured in samples per second needs the samples; its params size the all-reduce.
  auto cnn = Parse(
      "model: {family: cnn, params: 25m}\n"
      "work: {samples: 1.28m, epochs: 90}\n"
      "measured:\n  - {gpu: A100-80GB, samples_per_second: 1450}\n");
  ASSERT_TRUE(cnn) << cnn.error().message;
  EXPECT_DOUBLE_EQ(cnn->model.params, 25e6);
  EXPECT_DOUBLE_EQ(*cnn->measured[0].samples_per_second, 1450);
}

TEST(JobSpecSections, BadSectionsNameTheLineAndField) {
  struct Case {
    std::string text, message;
  };
  for (const Case& c : std::vector<Case>{
           {"model: {family: gan}\nmeasured:\n  - {offer: box, runtime: 1h}\n",
            "job.yaml:2:17: field 'family': unknown model family 'gan'"},
           {"model: {family: cnn}\nmeasured:\n  - {gpu: L4, samples_per_second: 10}\n",
            "samples_per_second needs work.samples"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nmemory: {host_ram_gib: -1}\n",
            "field 'host_ram_gib': must be positive"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {boot: 5x}\n", "field 'boot'"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {staging_gbps: 0}\n",
            "field 'staging_gbps': must be positive"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {bot: 5m}\n",
            "did you mean 'boot'"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nconstraints: {tiers: [on_demand, spto]}\n",
            "unknown tier 'spto' (did you mean 'spot'?)"},
       }) {
    auto spec = Parse(c.text);
    ASSERT_FALSE(spec) << c.text;
    EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
    EXPECT_NE(spec.error().message.find(c.message), std::string::npos) << spec.error().message;
  }
  auto ok = Parse("model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {boot: 0s, setup: 2m}\n");
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_DOUBLE_EQ(*ok->launch.boot_hours, 0);
  EXPECT_DOUBLE_EQ(*ok->launch.setup_hours, 2.0 / 60);
}

}  // namespace
}  // namespace frugal::plan

namespace frugal::plan {
namespace {

// A profile `frugal profile` recorded, named in the spec: its throughput drives the plan on
// the GPU it ran on and, carried by the cross-GPU model, on the others.
TEST(JobSpecSections, RecordedProfilesFeedThePlan) {
  testing::TempDir data;
  testing::WriteTestFile(data / "profiles" / "resnet.json",
                         "{\"format_version\": 1, \"name\": \"resnet\", \"units\": \"samples\", "
                         "\"units_per_second\": 400, \"measured_at\": \"2026-11-26T10:00:00Z\", "
                         "\"device\": \"NVIDIA GPU\"}");
  const std::string text =
      "apiVersion: frugal/v1\nmodel: {family: cnn, params: 25m}\n"
      "work: {samples: 1.28m, epochs: 1}\n"
      "measured:\n  - {profile: resnet, gpu: L4}\n";
  auto spec =
      ParseJobSpec(text, "job.yaml", data.path(), {"A100-80GB", "L4", "T4"}, data / "drills");
  ASSERT_TRUE(spec) << spec.error().message;
  ASSERT_EQ(spec->measured.size(), 1u);
  EXPECT_DOUBLE_EQ(*spec->measured[0].samples_per_second, 400);
  EXPECT_NE(spec->measured[0].source.find("profile 'resnet' measured 2026-11-26T10:00:00Z"),
            std::string::npos);
  auto missing = ParseJobSpec(
      "apiVersion: frugal/v1\nmodel: {family: cnn}\nwork: {samples: 10}\n"
      "measured:\n  - {profile: nope, gpu: L4}\n",
      "job.yaml", data.path(), {"L4"}, data / "drills");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message.find("job.yaml:5:"), std::string::npos)
      << missing.error().message;
  EXPECT_NE(missing.error().message.find("frugal profile --name nope"), std::string::npos);
}

}  // namespace
}  // namespace frugal::plan

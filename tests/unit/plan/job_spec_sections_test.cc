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
           {"model: {family: cnn}\n", "add at least one under 'measured:'"},
           {"model: {family: cnn}\nmeasured:\n  - {gpu: L4, samples_per_second: 10}\n",
            "samples_per_second needs work.samples"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nmemory: {host_ram_gib: -1}\n",
            "field 'host_ram_gib': must be positive"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {boot: 5x}\n",
            "field 'boot'"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {staging_gbps: 0}\n",
            "field 'staging_gbps': must be positive"},
           {"model: {params: 1b}\nwork: {tokens: 1b}\nfixed_costs: {bot: 5m}\n",
            "did you mean 'boot'"},
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

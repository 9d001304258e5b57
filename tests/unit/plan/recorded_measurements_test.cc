// What earlier runs of a job measured (the ledger's profiles under its name) reaching its next
// plan without a `measured:` entry: the newest per GPU model, in the job's units, with the
// others kept and reported.

#include <gtest/gtest.h>

#include "frugal/plan/measured_transfer.h"
#include "frugal/plan/planner.h"
#include "support/catalog_support.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

using Fixture = testing::CatalogWithOffers;

std::unique_ptr<Fixture> Load() {
  return testing::ShippedCatalogWith(
      "  - {name: big, cloud: test, gpu: A100-80GB, price_per_hour: 4.00}\n"
      "  - {name: small, cloud: test, gpu: T4, price_per_hour: 0.50}\n");
}

JobSpec Spec(const Fixture& f, const std::string& text) {
  auto spec = ParseJobSpec("apiVersion: frugal/v1\n" + text, "resnet.yaml", f.dir.path(), f.names);
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : JobSpec{};
}

const std::string kCnnJob =
    "name: resnet\nmodel: {family: cnn, params: 25m}\ntraining: {precision: fp16}\n"
    "work: {samples: 1.28m, epochs: 10}\nconstraints: {clouds: [test]}\n";

RecordedMeasurement Gpu(int64_t id, const std::string& run, const std::string& at,
                        const std::string& device, double samples_per_second) {
  RecordedMeasurement m;
  m.profile_id = id;
  m.run_id = run;
  m.recorded_at = at;
  m.device = device;
  m.device_kind = "gpu";
  m.steps_per_second = samples_per_second / 32;
  m.samples_per_second = samples_per_second;
  return m;
}

TEST(RecordedMeasurements, ACnnWithoutMeasuredEntriesIsPlannedFromTheNewestRun) {
  auto f = Load();
  JobSpec spec = Spec(*f, kCnnJob);
  EXPECT_EQ(spec.measurement_name, "resnet");
  // No measurement anywhere: refused, saying how to get one.
  auto refused = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  EXPECT_NE(refused.error().message.find("frugal run --spec"), std::string::npos);

  // Newest first: a run on an A100 today superseding an older, slower one on the same GPU.
  AddRecordedMeasurements(spec, f->catalog,
                          {Gpu(9, "r-new", "2026-11-26T12:00:00Z", "NVIDIA A100-SXM4-80GB", 2000),
                           Gpu(4, "r-old", "2026-11-20T12:00:00Z", "NVIDIA A100-SXM4-80GB", 900)});
  ASSERT_EQ(spec.measured.size(), 1u);
  const MeasuredProfile& used = spec.measured[0];
  EXPECT_EQ(used.gpu, "A100-80GB");
  EXPECT_EQ(used.gpus, 1);
  EXPECT_DOUBLE_EQ(*used.samples_per_second, 2000);
  ASSERT_TRUE(used.recorded);
  EXPECT_EQ(used.recorded->run_id, "r-new");
  EXPECT_NE(used.source.find("run r-new measured 2026-11-26T12:00:00Z"), std::string::npos);
  ASSERT_EQ(spec.recorded_measurements.size(), 2u);
  EXPECT_TRUE(spec.recorded_measurements[0].used);
  EXPECT_FALSE(spec.recorded_measurements[1].used);
  EXPECT_NE(spec.recorded_measurements[1].note.find("superseded by run r-new"), std::string::npos);

  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  // Measured on the A100: 12.8M samples at 2000/s is 6400 s of work there, exactly.
  const auto a100 = std::find_if(plan->options.begin(), plan->options.end(),
                                 [](const Option& o) { return o.offer->instance_type == "big"; });
  ASSERT_NE(a100, plan->options.end());
  EXPECT_NEAR(a100->work_hours, 12.8e6 / 2000 / 3600, 1e-9);
  EXPECT_NE(a100->predicted_from.find("r-new"), std::string::npos);
  // Carried to the T4 by the cross-GPU model, and said so.
  const auto t4 = std::find_if(plan->options.begin(), plan->options.end(),
                               [](const Option& o) { return o.offer->instance_type == "small"; });
  ASSERT_NE(t4, plan->options.end());
  EXPECT_GT(t4->work_hours, a100->work_hours);
  EXPECT_NE(t4->predicted_from.find("roofline from A100-80GB"), std::string::npos);
}

TEST(RecordedMeasurements, UnknownDevicesAndMissingUnitsAreKeptAndReported) {
  auto f = Load();
  JobSpec spec = Spec(*f, kCnnJob);
  RecordedMeasurement cpu = Gpu(5, "r-cpu", "2026-11-26T11:00:00Z", "AMD EPYC 7B13", 40);
  cpu.device_kind = "cpu";
  cpu.samples_per_second.reset();  // a CPU run is used for CPU offers, in the job's units
  RecordedMeasurement no_samples = Gpu(3, "", "2026-11-26T10:00:00Z", "Tesla T4", 0);
  no_samples.samples_per_second.reset();
  AddRecordedMeasurements(
      spec, f->catalog,
      {Gpu(7, "r-x", "2026-11-26T13:00:00Z", "NVIDIA GeForce RTX 3090 Ti", 1500), cpu, no_samples});
  EXPECT_TRUE(spec.measured.empty());
  ASSERT_EQ(spec.recorded_measurements.size(), 3u);
  EXPECT_EQ(spec.recorded_measurements[0].gpu, "");
  EXPECT_NE(spec.recorded_measurements[0].note.find("no GPU in the table matches the device "
                                                    "'NVIDIA GeForce RTX 3090 Ti'"),
            std::string::npos);
  EXPECT_NE(spec.recorded_measurements[1].note.find("no cumulative 'samples'"), std::string::npos);
  EXPECT_EQ(spec.recorded_measurements[2].gpu, "T4");
  EXPECT_NE(spec.recorded_measurements[2].note.find("no cumulative 'samples'"), std::string::npos);
  // The refusal names what the ledger held and why none of it served.
  auto refused = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message.find("run r-x"), std::string::npos);
}

TEST(RecordedMeasurements, TheSpecsOwnEntryForAGpuWinsAndTwoGpusAreFitted) {
  auto f = Load();
  JobSpec spec = Spec(*f, kCnnJob + "measured:\n  - {gpu: T4, samples_per_second: 300}\n");
  AddRecordedMeasurements(
      spec, f->catalog,
      {Gpu(2, "r-t4", "2026-11-26T09:00:00Z", "Tesla T4", 250),
       Gpu(1, "r-a100", "2026-11-25T09:00:00Z", "NVIDIA A100 80GB PCIe", 1800)});
  ASSERT_EQ(spec.measured.size(), 2u);
  EXPECT_DOUBLE_EQ(*spec.measured[0].samples_per_second, 300);  // the spec's, unchanged
  EXPECT_FALSE(spec.recorded_measurements[0].used);
  EXPECT_NE(spec.recorded_measurements[0].note.find("the spec measures T4 itself"),
            std::string::npos);
  EXPECT_TRUE(spec.recorded_measurements[1].used);
  // Two GPU models measured: the cross-GPU model fits its terms on both for a third GPU.
  const auto carried = CarryProfiles(spec, f->catalog, *f->catalog.FindGpu("L4"), 1);
  ASSERT_TRUE(carried);
  EXPECT_NE(carried->predicted_from.find("fitted on 2 measured GPU models"), std::string::npos);
}

TEST(RecordedMeasurements, TokensForTransformersAndPeakMemoryPerGpu) {
  auto f = Load();
  JobSpec spec = Spec(*f,
                      "name: lm\nmodel: {params: 125m, seq: 1024}\nwork: {tokens: 1b}\n"
                      "constraints: {clouds: [test]}\n");
  RecordedMeasurement m = Gpu(3, "r-lm", "2026-11-26T09:00:00Z", "NVIDIA A100-SXM4-80GB", 10);
  m.device_count = 2;
  m.tokens_per_second = 90000;
  m.peak_gpu_memory_bytes = uint64_t{20} << 30;  // 10 GiB on each of 2 GPUs
  AddRecordedMeasurements(spec, f->catalog, {m});
  ASSERT_EQ(spec.measured.size(), 1u);
  EXPECT_DOUBLE_EQ(*spec.measured[0].tokens_per_second, 90000);
  EXPECT_FALSE(spec.measured[0].samples_per_second);
  EXPECT_EQ(spec.measured[0].gpus, 2);
  EXPECT_DOUBLE_EQ(*spec.measured[0].peak_memory_gib, 10.0);
  // Measured on 2 GPUs where no offer has 2 A100s: carried, never an error.
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
}

}  // namespace
}  // namespace frugal::plan

namespace frugal::plan {
namespace {

// A CPU job (gradient-boosted trees) run once on a 2-vCPU machine, to its end in 1 h: every CPU
// offer is planned from that runtime, scaled by its vCPUs, and its RAM checked against the RSS.
TEST(RecordedMeasurements, ACpuRunPlansEveryCpuOfferByItsVcpus) {
  testing::TempDir dir;
  testing::WriteTestFile(
      dir / "offers.yaml",
      "apiVersion: frugal/v1\noffers:\n"
      "  - {name: tiny, cloud: test, vcpus: 2, ram_gib: 2, price_per_hour: 0.05}\n"
      "  - {name: four, cloud: test, vcpus: 4, ram_gib: 16, price_per_hour: 0.20}\n"
      "  - {name: sixteen, cloud: test, vcpus: 16, ram_gib: 64, price_per_hour: 0.80}\n");
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data", {dir / "offers.yaml"});
  ASSERT_TRUE(c) << c.error().message;
  auto spec = ParseJobSpec(
      "apiVersion: frugal/v1\nname: gbt\nmodel: {family: tree_ensemble}\n"
      "constraints: {clouds: [test]}\n",
      "gbt.yaml", dir.path(), c->gpu_names());
  ASSERT_TRUE(spec) << spec.error().message;
  RecordedMeasurement m;
  m.profile_id = 1;
  m.run_id = "r-gbt";
  m.recorded_at = "2026-11-26T09:00:00Z";
  m.device = "AMD EPYC 7B13";
  m.device_count = 2;
  m.cpu_cores = 1.9;  // both vCPUs busy: it scales
  m.steps_per_second = 1;
  m.peak_rss_bytes = uint64_t{3} << 30;
  m.wall_seconds = 3600;
  m.ended = "finished";
  RecordedMeasurement cut = m;  // an older run stopped by its budget: not the job's runtime
  cut.profile_id = 0;
  cut.ended = "budget_stop";
  AddRecordedMeasurements(*spec, *c, {m, cut});
  ASSERT_EQ(spec->measured.size(), 1u);
  EXPECT_DOUBLE_EQ(*spec->measured[0].runtime_hours, 1.0);
  auto plan = MakePlan(*spec, *c, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  auto hours = [&](const std::string& name) {
    for (const Option& o : plan->options) {
      if (o.offer->instance_type == name) return o.work_hours;
    }
    return -1.0;
  };
  EXPECT_NEAR(hours("four"), 1 / 1.8, 1e-9);
  EXPECT_NEAR(hours("sixteen"), 1 / (1.8 * 1.8 * 1.8), 1e-9);
  EXPECT_EQ(hours("tiny"), -1.0);  // 3 GiB of RSS in 2 GiB of RAM
  bool said = false;
  for (const Exclusion& e : plan->excluded) {
    said = said ||
           e.reason.find("needs 3 GiB of host RAM, the instance has 2 GiB") != std::string::npos;
  }
  EXPECT_TRUE(said);
  const auto four = std::find_if(plan->options.begin(), plan->options.end(),
                                 [](const Option& o) { return o.offer->instance_type == "four"; });
  ASSERT_NE(four, plan->options.end());
  EXPECT_NE(four->predicted_from.find("CPU: 2 vCPUs measured"), std::string::npos);
  EXPECT_NE(four->predicted_from.find("run r-gbt"), std::string::npos);
}

}  // namespace
}  // namespace frugal::plan

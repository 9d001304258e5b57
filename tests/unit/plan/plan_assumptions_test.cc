// What a plan assumes and says it assumed: GPU partitions kept out of training, checkpoints
// not taken for granted, usable memory with a headroom, and the layout behind an exclusion.

#include <gtest/gtest.h>

#include <cmath>

#include "frugal/plan/plan_json.h"
#include "frugal/plan/planner.h"
#include "support/catalog_support.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

using Fixture = testing::CatalogWithOffers;

JobSpec Spec(const Fixture& f, const std::string& text) {
  auto spec = ParseJobSpec("apiVersion: frugal/v1\n" + text, "job.yaml", f.dir.path(), f.names);
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : JobSpec{};
}

bool Excluded(const Plan& p, const std::string& text) {
  for (const Exclusion& e : p.excluded) {
    if (e.reason.find(text) != std::string::npos) return true;
  }
  return false;
}

const std::string kJob =
    "model: {params: 500m, seq: 1024}\ntraining: {micro_batch: 4, global_batch: 32}\n"
    "work: {tokens: 200m}\n";

// Azure's NV4as_v4 is an eighth of an MI25, though its price list row says one GPU.
TEST(PlanAssumptions, GpuPartitionsAreLeftOutOfTrainingWithAReason) {
  auto f = testing::ShippedCatalogWith(
      "  - {name: unused, cloud: test, gpu: L4, price_per_hour: 1.00}\n");
  const JobSpec spec = Spec(*f, kJob + "constraints: {clouds: [azure], gpus: [MI25]}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(Excluded(*plan, "1/8 of one MI25 (a GPU partition): not planned for training"));
  for (const Option& o : plan->options) EXPECT_FALSE(o.offer->IsGpuShare()) << o.offer->Id();
}

const std::string kSpotOffers =
    "  - {name: s, cloud: test, gpu: A100-80GB, price_per_hour: 1.00, tier: spot, "
    "preemptions_per_hour: 0.3}\n"
    "  - {name: s, cloud: test, gpu: A100-80GB, price_per_hour: 4.00}\n";

const Option* SpotOption(const Plan& p) {
  for (const Option& o : p.options) {
    if (o.kind == RunKind::kSpot) return &o;
  }
  return nullptr;
}

// A job with no fault_tolerance section is priced on spot as restarting from scratch at each
// preemption, and the plan says so; one that declares checkpoints is priced with them.
TEST(PlanAssumptions, JobWithoutFaultToleranceIsPricedRestartingFromScratch) {
  auto f = testing::ShippedCatalogWith(kSpotOffers);
  const std::string job = kJob +
                          "constraints: {clouds: [test]}\n"
                          "measured:\n  - {offer: s, runtime: 3h}\n";
  const JobSpec bare = Spec(*f, job);
  EXPECT_FALSE(bare.fault_tolerance.resumes);
  EXPECT_EQ(bare.fault_tolerance.source, CheckpointSource::kAssumedNone);
  auto plan = MakePlan(bare, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  const Option* spot = SpotOption(*plan);
  ASSERT_NE(spot, nullptr);
  EXPECT_EQ(spot->spot.strategy, CheckpointStrategy::kFromScratch);
  const double restart = bare.fault_tolerance.restart_hours;
  EXPECT_NEAR(spot->wall_hours, std::expm1(0.3 * 3) * (1 / 0.3 + restart), 1e-9);
  const nlohmann::json doc = PlanJson(bare, *plan, "cost");
  EXPECT_EQ(doc["fault_tolerance"]["checkpoints"], "none");
  EXPECT_FALSE(doc["fault_tolerance"]["resumes"].get<bool>());
  EXPECT_NE(
      doc["fault_tolerance"]["spot_assumption"].get<std::string>().find("restarting from scratch"),
      std::string::npos);
  EXPECT_EQ(doc["options"][0]["spot"].is_null() ? doc["options"][1]["spot"]["strategy"]
                                                : doc["options"][0]["spot"]["strategy"],
            "restart_from_scratch");

  const double from_scratch_wall = spot->wall_hours;  // `spot` points into the plan replaced below
  const JobSpec declared = Spec(*f, job + "fault_tolerance: {checkpoint_write: 1m, restart: 5m}\n");
  EXPECT_TRUE(declared.fault_tolerance.resumes);
  plan = MakePlan(declared, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  ASSERT_NE(SpotOption(*plan), nullptr);
  EXPECT_EQ(SpotOption(*plan)->spot.strategy, CheckpointStrategy::kPeriodic);
  EXPECT_LT(SpotOption(*plan)->wall_hours, from_scratch_wall);

  const JobSpec cannot = Spec(*f, job + "fault_tolerance: {checkpoints: false}\n");
  EXPECT_FALSE(cannot.fault_tolerance.resumes);
  EXPECT_EQ(cannot.fault_tolerance.source, CheckpointSource::kDeclared);
}

// From scratch, a spot run far longer than the time between preemptions cannot meet a
// deadline on-demand meets: on-demand ranks first.
TEST(PlanAssumptions, SpotThatCannotMeetTheDeadlineFromScratchLosesToOnDemand) {
  auto f = testing::ShippedCatalogWith(kSpotOffers);
  const JobSpec spec = Spec(*f, kJob +
                                    "constraints: {clouds: [test], deadline: 12h}\n"
                                    "measured:\n  - {offer: s, runtime: 10h}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  ASSERT_FALSE(plan->options.empty());
  EXPECT_EQ(plan->options.front().offer->tier, CapacityTier::kOnDemand);
  const Option* spot = SpotOption(*plan);
  ASSERT_NE(spot, nullptr);
  EXPECT_FALSE(spot->meets_deadline);
}

const std::string kL4 = "  - {name: l4, cloud: test, gpu: L4, price_per_hour: 1.00}\n";

// An L4 lists 24 GiB; a job can allocate about 22.2 of it (ECC on GDDR6). A peak of 21 GiB
// fits but leaves less than the 10% headroom; 23 GiB does not fit at all.
TEST(PlanAssumptions, FitIsAgainstUsableMemoryAndAPeakInsideTheHeadroomIsFlagged) {
  auto f = testing::ShippedCatalogWith(kL4);
  const std::string job = kJob + "constraints: {clouds: [test]}\n";
  auto plan = MakePlan(Spec(*f, job + "measured:\n  - {offer: l4, runtime: 2h, "
                                      "peak_memory_gib: 21}\n"),
                       f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  ASSERT_EQ(plan->options.size(), 1u);
  const Option& o = plan->options[0];
  EXPECT_NEAR(o.capacity_gib, 22.17, 1e-9);
  EXPECT_DOUBLE_EQ(o.nameplate_gib, 24);
  EXPECT_TRUE(o.peak_known);
  EXPECT_TRUE(o.inside_headroom);
  PlanRequest loose;
  loose.memory_headroom = 0.02;
  plan = MakePlan(Spec(*f, job + "measured:\n  - {offer: l4, runtime: 2h, peak_memory_gib: 21}\n"),
                  f->catalog, loose);
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options.size(), 1u);
  EXPECT_FALSE(plan->options[0].inside_headroom);
  // The spec's own headroom, when no flag overrides it.
  const JobSpec own = Spec(*f,
                           "model: {params: 500m, seq: 1024}\n"
                           "training: {micro_batch: 4, global_batch: 32, memory_headroom: 0.02}\n"
                           "work: {tokens: 200m}\nconstraints: {clouds: [test]}\n"
                           "measured:\n  - {offer: l4, runtime: 2h, peak_memory_gib: 21}\n");
  ASSERT_TRUE(own.memory_headroom.has_value());
  plan = MakePlan(own, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  ASSERT_EQ(plan->options.size(), 1u);
  EXPECT_FALSE(plan->options[0].inside_headroom);
  plan = MakePlan(Spec(*f, job + "measured:\n  - {offer: l4, runtime: 2h, peak_memory_gib: 23}\n"),
                  f->catalog, PlanRequest{});
  ASSERT_TRUE(plan);
  EXPECT_TRUE(plan->options.empty());
  EXPECT_TRUE(Excluded(*plan, "L4 x1: does not fit, needs 23.0 GiB of 22.2 GiB usable"));
}

TEST(PlanAssumptions, MemoryHeadroomOutOfRangeNamesTheField) {
  auto f = testing::ShippedCatalogWith(kL4);
  auto spec = ParseJobSpec(
      "apiVersion: frugal/v1\nmodel: {params: 500m, seq: 1024}\n"
      "training: {memory_headroom: 0.7}\nwork: {tokens: 200m}\n",
      "job.yaml", f->dir.path(), f->names);
  ASSERT_FALSE(spec);
  EXPECT_EQ(spec.error().code, ErrorCode::kBadInput);
  EXPECT_NE(spec.error().message.find("job.yaml:3:"), std::string::npos) << spec.error().message;
  EXPECT_NE(spec.error().message.find("memory_headroom"), std::string::npos);
}

// TP8 x PP16 holds one copy of the model on 128 GPUs: the exclusion says so, not that some
// micro_batch fails to divide the batch.
TEST(PlanAssumptions, LayoutThatNeedsMoreGpusSaysHowMany) {
  auto f = testing::ShippedCatalogWith(
      "  - {name: h8, cloud: test, gpu: H100-80GB-SXM, gpus: 8, price_per_hour: 30.00}\n");
  const JobSpec spec = Spec(*f,
                            "model: {params: 70b, seq: 4096}\n"
                            "training: {tensor_parallel: 8, pipeline_parallel: 16, micro_batch: 1,"
                            " global_batch: 1024}\n"
                            "work: {tokens: 1b}\nconstraints: {clouds: [test], max_gpus: 64}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(Excluded(*plan,
                       "tensor_parallel 8 x pipeline_parallel 16 needs a multiple of 128 "
                       "GPUs"));
  EXPECT_FALSE(Excluded(*plan, "each micro_batch must divide"));
}

// A 7B full fine-tune on 16 GB fits nowhere; the plan says what would (as estimate does).
TEST(PlanAssumptions, NothingFitsSaysWhichKnobsWould) {
  auto f = testing::ShippedCatalogWith(
      "  - {name: v100, cloud: test, gpu: V100-16GB, price_per_hour: 2.00}\n");
  const JobSpec spec = Spec(*f,
                            "model: {params: 7b, seq: 2048}\n"
                            "training: {precision: fp16, micro_batch: 1, global_batch: 16}\n"
                            "work: {tokens: 10m}\nconstraints: {clouds: [test]}\n");
  auto plan = MakePlan(spec, f->catalog, PlanRequest{});
  ASSERT_TRUE(plan) << plan.error().message;
  EXPECT_TRUE(plan->options.empty());
  std::string advice;
  for (const std::string& a : plan->advice) advice += a + "\n";
  EXPECT_NE(advice.find("Nothing fits one V100-16GB"), std::string::npos) << advice;
  EXPECT_NE(advice.find("qlora"), std::string::npos) << advice;
}

}  // namespace
}  // namespace frugal::plan

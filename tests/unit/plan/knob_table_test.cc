// Knobs side by side: each row's memory is the estimator's for its knobs, accumulation keeps
// the global batch, time and cost are the chosen GPU's, and the smallest GPU is the first the
// catalog rents that holds it.

#include "frugal/plan/knob_table.h"

#include <gtest/gtest.h>

#include "frugal/estimate/hardware.h"
#include "frugal/estimate/memory.h"
#include "support/test_support.h"

namespace frugal::plan {
namespace {

namespace est = estimate;

struct Fixture {
  catalog::Catalog catalog;
  KnobQuestion q;
};

/// A 1B model, fp16, micro-batch 8 of a global batch of 8, on one T4: 44.5 GiB as given.
std::unique_ptr<Fixture> OneBillionOnT4(std::optional<double> tokens) {
  auto f = std::make_unique<Fixture>();
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data", {});
  EXPECT_TRUE(c) << c.error().message;
  f->catalog = std::move(*c);
  est::ModelSpec spec;
  spec.params = 1e9;
  f->q.model = est::ResolveModel(spec).value();
  f->q.base.precision = est::Precision::kFp16;
  f->q.base.micro_batch = 8;
  f->q.base.gpus = 1;
  f->q.tokens = tokens;
  f->q.gpu = f->catalog.FindGpu("T4");
  return f;
}

const KnobRow* Row(const KnobComparison& k, const std::string& label) {
  for (const KnobRow& r : k.rows) {
    if (r.label == label) return &r;
  }
  return nullptr;
}

TEST(KnobTable, EachRowIsTheEstimatorsMemoryAndAccumulationKeepsTheGlobalBatch) {
  auto f = OneBillionOnT4(1e9);
  auto k = CompareKnobs(f->q, f->catalog);
  ASSERT_TRUE(k) << k.error().message;
  ASSERT_GT(k->rows.size(), 8u);
  EXPECT_EQ(k->rows.front().label, "as given");
  EXPECT_FALSE(k->rows.front().fits);
  for (const KnobRow& r : k->rows) {
    EXPECT_DOUBLE_EQ(r.peak_bytes, est::EstimateMemory(f->q.model, r.training).Total()) << r.label;
    EXPECT_EQ(r.training.micro_batch * r.training.AccumulationSteps(), 8) << r.label;
    // Fits the T4 exactly when it is under its memory and the T4 runs its precision.
    const bool under = r.peak_bytes <= 16 * est::kBytesPerGib;
    EXPECT_EQ(r.fits, under && r.training.precision != est::Precision::kBf16) << r.label;
    EXPECT_EQ(r.wall_hours.has_value(), r.fits) << r.label;
  }
  const KnobRow* mb1 = Row(*k, "micro-batch 1 (x8 accumulation)");
  ASSERT_NE(mb1, nullptr);
  EXPECT_LT(mb1->peak_bytes, k->rows.front().peak_bytes);
  const KnobRow* bf16 = Row(*k, "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_FALSE(bf16->fits);
  EXPECT_NE(bf16->note.find("cannot run bf16"), std::string::npos);
}

TEST(KnobTable, TimeAndCostAreTheChosenGpusAndTheSmallestGpuIsTheFirstThatHoldsIt) {
  auto f = OneBillionOnT4(1e9);
  auto k = CompareKnobs(f->q, f->catalog);
  ASSERT_TRUE(k) << k.error().message;
  ASSERT_NE(k->offer, nullptr);
  EXPECT_EQ(k->offer->gpu, "T4");
  const auto hw = est::HardwareFor(*f->q.gpu, est::Precision::kFp16).value();
  for (const KnobRow& r : k->rows) {
    if (r.wall_hours) {
      const auto e = est::EstimateTraining(f->q.model, r.training, hw, 1e9).value();
      EXPECT_DOUBLE_EQ(*r.wall_hours, e.WallHours()) << r.label;
      ASSERT_TRUE(r.cost);
      EXPECT_EQ(*r.cost, Rate{k->offer->price.per_hour}.ForHours(*r.wall_hours)) << r.label;
    }
    // No rented GPU with less memory than the one named holds it.
    ASSERT_FALSE(r.smallest_gpu.empty()) << r.label;
    EXPECT_LE(r.peak_bytes, r.smallest_gpu_memory_gib * est::kBytesPerGib) << r.label;
    for (const catalog::Offer& o : f->catalog.offers()) {
      const catalog::GpuSpec* g = f->catalog.FindGpu(o.gpu);
      if (g == nullptr || g->memory_gib >= r.smallest_gpu_memory_gib) continue;
      if (!RunsPrecision(*g, r.training.precision)) continue;
      EXPECT_GT(r.peak_bytes, g->UsableMemoryGib() * est::kBytesPerGib)
          << r.label << " fits " << g->name;
    }
  }
}

TEST(KnobTable, WaysToFitAreTheFittingRowsFastestFirst) {
  auto f = OneBillionOnT4(1e9);
  auto k = CompareKnobs(f->q, f->catalog);
  ASSERT_TRUE(k);
  const auto ways = WaysToFit(*k, 3);
  ASSERT_FALSE(ways.empty());
  // Only QLoRA with every saver brings a 1B model under a T4's 16 GB.
  EXPECT_EQ(ways.front()->training.method, est::Method::kQlora);
  for (size_t i = 0; i < ways.size(); ++i) {
    EXPECT_TRUE(ways[i]->fits);
    if (i > 0) {
      EXPECT_LE(*ways[i - 1]->wall_hours, *ways[i]->wall_hours);
    }
  }
  // Memory only: the same rows, no time, ordered by memory.
  auto memory = OneBillionOnT4(std::nullopt);
  auto m = CompareKnobs(memory->q, memory->catalog);
  ASSERT_TRUE(m);
  for (const KnobRow& r : m->rows) EXPECT_FALSE(r.wall_hours) << r.label;
  EXPECT_FALSE(WaysToFit(*m, 3).empty());
}

TEST(KnobTable, ThePrecisionToUseIsTheOneTheGpuRuns) {
  auto f = OneBillionOnT4(std::nullopt);
  const catalog::GpuSpec& t4 = *f->catalog.FindGpu("T4");
  const catalog::GpuSpec& a100 = *f->catalog.FindGpu("A100-80GB");
  EXPECT_EQ(PrecisionToUse(t4, est::Precision::kBf16), est::Precision::kFp16);
  EXPECT_EQ(PrecisionToUse(t4, est::Precision::kFp16), std::nullopt);
  EXPECT_EQ(PrecisionToUse(a100, est::Precision::kBf16), std::nullopt);
  EXPECT_EQ(PrecisionToUse(a100, est::Precision::kFp8), est::Precision::kBf16);
}

TEST(KnobTable, SeveralGpusCompareZeroStages) {
  auto f = OneBillionOnT4(1e9);
  f->q.base.gpus = 4;
  f->q.base.micro_batch = 2;
  f->q.base.global_batch = 32;
  f->q.gpu = f->catalog.FindGpu("A100-80GB");
  auto k = CompareKnobs(f->q, f->catalog);
  ASSERT_TRUE(k) << k.error().message;
  const KnobRow* z3 = Row(*k, "ZeRO-3");
  ASSERT_NE(z3, nullptr);
  EXPECT_LT(z3->peak_bytes, k->rows.front().peak_bytes);
  EXPECT_EQ(z3->training.AccumulationSteps(), 4);  // 32 / (2 × 4 GPUs)
}

}  // namespace
}  // namespace frugal::plan

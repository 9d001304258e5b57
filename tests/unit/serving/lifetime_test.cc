#include "frugal/serving/lifetime.h"

#include <gtest/gtest.h>

#include "support/catalog_support.h"
#include "support/test_support.h"

namespace frugal::serving {
namespace {

using Fixture = testing::CatalogWithOffers;

/// The shipped catalog plus `offers` (custom offers YAML entries).
std::unique_ptr<Fixture> Load(const std::string& offers) {
  return testing::ShippedCatalogWith(offers);
}

InferenceSpec Spec(const Fixture& f, const std::string& text) {
  auto spec = ParseInferenceSpec("apiVersion: frugal/v1\nkind: Inference\n" + text, "serve.yaml",
                                 f.dir.path(), f.catalog.gpu_names());
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : InferenceSpec{};
}

const std::string kOffers =
    "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.50}\n"
    "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.30, tier: reserved_1y}\n"
    "  - {name: a100, cloud: test, gpu: A100-80GB, price_per_hour: 32.00}\n";

const std::string kSeed =
    "model: {type: encoder, layers: 24, hidden: 1024, heads: 16, ffn: 4096, mlp: gelu, vocab: "
    "30522, seq: 512, weights: fp16}\n"
    "workload: {rps: 250, peak_rps: 400, tokens_per_item: 384}\n"
    "latency: {request_p95: 100ms}\n"
    "measured:\n  - {gpu: T4, items_per_second: 120, request_p95: 80ms}\n"
    "constraints: {clouds: [test], tiers: [on_demand]}\n";

TEST(LifetimeBill, TrainingRetrainingAndServingAddUp) {
  auto f = Load(kOffers);
  TrainingCost t{Money::FromCents(308), "stated", 3, Money::FromCents(308)};
  auto bill = ComputeLifetimeBill(Spec(*f, kSeed), f->catalog, t);
  ASSERT_TRUE(bill) << bill.error().message;
  EXPECT_EQ(bill->months, 12);
  EXPECT_EQ(bill->serving.replicas, 4);
  // Retrained at the ends of months 3, 6 and 9 (not after the model's last month).
  EXPECT_EQ(bill->retrains, 3);
  EXPECT_EQ(bill->training_total, Money::FromCents(int64_t{4} * 308));
  EXPECT_EQ(bill->inference_total, Money::FromCents(1'752'000));
  EXPECT_EQ(bill->total, Money::FromCents(1'752'000 + 4 * 308));
  EXPECT_NEAR(bill->inference_to_training, 17520 / 12.32, 1e-9);
  ASSERT_EQ(bill->points.size(), 13u);
  EXPECT_EQ(bill->points[0].training, Money::FromCents(308));
  EXPECT_EQ(bill->points[0].inference, Money());
  EXPECT_EQ(bill->points[1].inference, Money::FromCents(146'000));
  EXPECT_EQ(bill->points[3].training, Money::FromCents(int64_t{2} * 308));
  EXPECT_EQ(bill->points[12].training, bill->training_total);
  EXPECT_EQ(bill->points[12].inference, bill->inference_total);
}

const std::string kA100Reserved =
    "  - {name: a100, cloud: test, gpu: A100-80GB, price_per_hour: 19.00, tier: reserved_1y}\n";

TEST(LifetimeBill, LeversAgainstTheDeploymentRunningToday) {
  auto f = Load(kOffers + kA100Reserved);
  std::string spec = kSeed;
  spec.replace(spec.find("tiers: [on_demand]"), 18, "tiers: [on_demand, reserved_1y]");
  spec += "deployment: {gpu: A100-80GB, replicas: 2}\n";
  auto bill = ComputeLifetimeBill(Spec(*f, spec), f->catalog, TrainingCost{});
  ASSERT_TRUE(bill) << bill.error().message;
  ASSERT_TRUE(bill->baseline);
  EXPECT_EQ(bill->baseline->monthly, Money::FromCents(int64_t{2} * 3200 * 730));
  ASSERT_EQ(bill->levers.size(), 5u);
  const Lever& quant = bill->levers[0];
  EXPECT_EQ(quant.name, "quantization");
  EXPECT_TRUE(quant.available);
  const Lever& smaller = bill->levers[1];
  EXPECT_EQ(smaller.name, "smaller GPU");
  // Two A100s at $32/h against four T4 at $0.50/h, for 12 months.
  EXPECT_EQ(smaller.lifetime_saving,
            Money::FromCents((int64_t{2} * 3200 - int64_t{4} * 50) * 730 * 12));
  EXPECT_EQ(smaller.monthly_saving, Money::FromCents((int64_t{2} * 3200 - int64_t{4} * 50) * 730));
  const Lever& commit = bill->levers[2];
  EXPECT_EQ(commit.name, "commitment");
  // The deployment's GPU committed (not the T4s the "smaller GPU" lever moves to): the plan's
  // A100 at $19/h reserved, one replica for the peak, against the two on demand at $32/h.
  EXPECT_TRUE(commit.available) << commit.detail;
  EXPECT_NE(commit.detail.find("A100-80GB x1, 1 replica, reserved_1y"), std::string::npos)
      << commit.detail;
  EXPECT_EQ(commit.lifetime_saving, Money::FromCents((int64_t{2} * 3200 - 1900) * 730 * 12));
  EXPECT_FALSE(bill->levers[3].available);  // no daily shape: autoscaling is not priced
  EXPECT_FALSE(bill->levers[4].available);  // interactive: no spot
  EXPECT_EQ(bill->training_total, Money());
  EXPECT_DOUBLE_EQ(bill->inference_to_training, 0);
}

TEST(LifetimeBill, LeversKeepTheHabitsGpu) {
  // No deployment: the baseline is the most powerful GPU on demand (A100), and every lever but
  // "smaller GPU" is priced on it, not on the cheapest option (T4).
  auto f = Load(kOffers + kA100Reserved);
  std::string spec = kSeed;
  spec.replace(spec.find("tiers: [on_demand]"), 18, "tiers: [on_demand, reserved_1y]");
  auto bill = ComputeLifetimeBill(Spec(*f, spec), f->catalog, TrainingCost{});
  ASSERT_TRUE(bill) << bill.error().message;
  ASSERT_TRUE(bill->baseline);
  EXPECT_EQ(bill->baseline->gpu, "A100-80GB");
  const int replicas = bill->baseline->replicas;
  ASSERT_EQ(bill->levers.size(), 5u);
  const Lever& quant = bill->levers[0];
  EXPECT_EQ(quant.name, "quantization");
  EXPECT_EQ(quant.detail.find("T4"), std::string::npos) << quant.detail;
  if (quant.available) {
    // A saving on the same GPU: fewer replicas or a smaller shape of it.
    EXPECT_NE(quant.detail.find("w8a8 weights: A100-80GB"), std::string::npos) << quant.detail;
    EXPECT_GT(quant.monthly_saving, Money()) << quant.detail;
  } else {
    // Never "$0 w8a8 weights: A100-80GB x1 ... instead of A100-80GB x1 ...".
    EXPECT_NE(quant.detail.find("w8a8 weights still need A100-80GB"), std::string::npos)
        << quant.detail;
  }
  const Lever& commit = bill->levers[2];
  EXPECT_EQ(commit.name, "commitment");
  ASSERT_TRUE(commit.available) << commit.detail;
  EXPECT_NE(commit.detail.find("A100-80GB"), std::string::npos) << commit.detail;
  EXPECT_EQ(commit.monthly_saving, Money::FromCents(int64_t{replicas} * 1300 * 730));
}

TEST(LifetimeBill, ChartStacksTrainingUnderInference) {
  auto f = Load(kOffers);
  TrainingCost t{Money::FromCents(100'000), "stated", 0, Money()};
  auto bill = ComputeLifetimeBill(Spec(*f, kSeed), f->catalog, t);
  ASSERT_TRUE(bill) << bill.error().message;
  const std::string svg = LifetimeSvg(*bill);
  EXPECT_EQ(svg.rfind("<svg", 0), 0u);
  EXPECT_NE(svg.find("month 12: inference $17,520.00"), std::string::npos);
  EXPECT_NE(svg.find("month 0: training $1,000.00"), std::string::npos);
  const std::string html = LifetimeHtml(Spec(*f, kSeed), *bill);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("$18,520.00"), std::string::npos);
}

TEST(LifetimeBill, NothingMeetsTheLatency) {
  auto f = Load(kOffers);
  std::string spec = kSeed;
  spec.replace(spec.find("request_p95: 100ms}"), 19, "request_p95: 1ms}");
  spec.replace(spec.find(", request_p95: 80ms"), 19, "");
  auto bill = ComputeLifetimeBill(Spec(*f, spec), f->catalog, TrainingCost{});
  ASSERT_FALSE(bill);
  EXPECT_NE(bill.error().message.find("no serving option meets"), std::string::npos);
}

}  // namespace
}  // namespace frugal::serving

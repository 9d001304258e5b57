#include "frugal/tune/study_pricing.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>

#include "frugal/tune/study_gates.h"
#include "support/test_support.h"

namespace frugal::tune {
namespace {

const catalog::Catalog& Shipped() {
  static const catalog::Catalog kCatalog = [] {
    auto loaded = catalog::Catalog::LoadFrom(frugal::testing::SourceDir() / "data");
    EXPECT_TRUE(loaded) << loaded.error().message;
    return std::move(*loaded);
  }();
  return kCatalog;
}

constexpr const char* kBase =
    "name: s\nreplay: {dir: d}\nobjective: {metric: m, direction: maximize}\n"
    "fidelity: {name: epoch, min: 1, max: 9, grace: 3}\n";

Result<StudySpec> Priced(const std::string& resources) {
  StudySpec spec = FRUGAL_TRY(ParseStudySpec(std::string(kBase) + resources, "study.yaml", "/b"));
  FRUGAL_TRY(ResolvePricing(spec, Shipped()));
  return spec;
}

/// The cheapest offer of aws g5.xlarge at `tier` (in `region` when given), found the plain way.
std::optional<Money> Cheapest(CapacityTier tier, const std::string& region = "") {
  std::optional<Money> best;
  for (const catalog::Offer& o : Shipped().offers()) {
    if (o.cloud != "aws" || o.instance_type != "g5.xlarge" || o.tier != tier) continue;
    if (!region.empty() && o.region != region) continue;
    if (!best || o.price.per_hour < *best) best = o.price.per_hour;
  }
  return best;
}

TEST(StudyPricing, AnOfferAndTierArePricedFromTheCatalog) {
  auto spec = Priced("resources: {offer: 'aws:g5.xlarge spot', workers: 2}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  const std::optional<Money> expected = Cheapest(CapacityTier::kSpot);
  ASSERT_TRUE(expected);
  EXPECT_EQ(spec->resources.price_per_gpu_hour->per_hour, *expected);
  EXPECT_EQ(spec->resources.tier, CapacityTier::kSpot);
  EXPECT_EQ(spec->resources.gpus, 1);
  EXPECT_EQ(spec->resources.record.cloud, "aws");
  EXPECT_EQ(spec->resources.record.instance_type, "g5.xlarge");
  EXPECT_EQ(spec->resources.record.price.per_hour, *expected);
  EXPECT_TRUE(spec->resources.record.on_demand_price.has_value());
  EXPECT_EQ(spec->resources.offer_id.rfind("aws:g5.xlarge:", 0), 0U) << spec->resources.offer_id;

  // A region, and the tier from `tier` (on demand when nothing says).
  auto regional = Priced("resources: {offer: 'AWS:g5.xlarge:us-east-1'}\n");
  ASSERT_TRUE(regional) << regional.error().message;
  EXPECT_EQ(regional->resources.price_per_gpu_hour->per_hour,
            *Cheapest(CapacityTier::kOnDemand, "us-east-1"));
  EXPECT_EQ(regional->resources.tier, CapacityTier::kOnDemand);
}

TEST(StudyPricing, AGpuNameTakesTheCheapestOfferWithIt) {
  auto spec = Priced("resources: {gpu: a10g, tier: spot}\n");
  ASSERT_TRUE(spec) << spec.error().message;
  catalog::OfferQuery q;
  q.gpu = "A10G";
  q.min_gpus = 1;
  q.tier = CapacityTier::kSpot;
  const auto offers = Shipped().Query(q);
  ASSERT_TRUE(offers && !offers->empty());
  const catalog::Offer& cheapest = *offers->front();
  EXPECT_EQ(spec->resources.record.price.per_hour,
            spec->resources.price_per_gpu_hour->per_hour * cheapest.gpu_count);
  EXPECT_EQ(spec->resources.record.gpu, "A10G");
  EXPECT_EQ(spec->resources.offer_id, cheapest.Id());
}

TEST(StudyPricing, TheTiersAnOfferNamesMustAgree) {
  // One tier named twice, in any spelling of it, is one tier.
  for (const char* offer : {"aws:g5.xlarge:us-east-1:spot spot", "aws:g5.xlarge:us-east-1:spot",
                            "aws:g5.xlarge:us-east-1 preemptible"}) {
    auto spec = Priced(fmt::format("resources: {{offer: '{}', tier: spot}}\n", offer));
    ASSERT_TRUE(spec) << offer << ": " << spec.error().message;
    EXPECT_EQ(spec->resources.tier, CapacityTier::kSpot) << offer;
    EXPECT_EQ(spec->resources.price_per_gpu_hour->per_hour,
              *Cheapest(CapacityTier::kSpot, "us-east-1"))
        << offer;
  }
  auto two = Priced("resources:\n  offer: 'aws:g5.xlarge:us-east-1:spot on_demand'\n");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().code, ErrorCode::kBadInput);
  EXPECT_NE(two.error().message.find("study.yaml:6:"), std::string::npos) << two.error().message;
  EXPECT_NE(two.error().message.find("'resources.offer': names two tiers"), std::string::npos)
      << two.error().message;

  auto stated = Priced("resources: {offer: 'aws:g5.xlarge OD', tier: spot}\n");
  ASSERT_FALSE(stated);
  EXPECT_NE(stated.error().message.find("names tier 'on_demand' but resources.tier is 'spot'"),
            std::string::npos)
      << stated.error().message;

  auto owned = Priced("resources: {offer: 'aws:g5.xlarge:us-east-1:owned'}\n");
  ASSERT_FALSE(owned);
  EXPECT_NE(owned.error().message.find("'resources.offer': tier 'owned' is not rented"),
            std::string::npos)
      << owned.error().message;
}

TEST(StudyPricing, UnknownOffersAndGpusNameFileLineFieldAndSuggest) {
  auto typo = Priced("resources:\n  offer: 'aws:g5.xlarg spot'\n");
  ASSERT_FALSE(typo);
  EXPECT_EQ(typo.error().code, ErrorCode::kBadInput);
  EXPECT_NE(typo.error().message.find("study.yaml:6:"), std::string::npos) << typo.error().message;
  EXPECT_NE(typo.error().message.find("'resources.offer'"), std::string::npos);
  EXPECT_NE(typo.error().message.find("did you mean 'aws:g5.xlarge'"), std::string::npos)
      << typo.error().message;

  auto gpu = Priced("resources: {gpu: A10GG}\n");
  ASSERT_FALSE(gpu);
  EXPECT_NE(gpu.error().message.find("'resources.gpu'"), std::string::npos) << gpu.error().message;
  EXPECT_NE(gpu.error().message.find("did you mean"), std::string::npos) << gpu.error().message;

  auto tier = Priced("resources: {offer: 'aws:g5.xlarge spott'}\n");
  ASSERT_FALSE(tier);
  EXPECT_NE(tier.error().message.find("spott"), std::string::npos) << tier.error().message;

  auto gpus = Priced("resources: {offer: 'aws:g5.xlarge', gpus: 4}\n");
  ASSERT_FALSE(gpus);
  EXPECT_NE(gpus.error().message.find("'resources.gpus'"), std::string::npos)
      << gpus.error().message;

  auto both = ParseStudySpec(
      std::string(kBase) + "resources: {offer: 'aws:g5.xlarge', price_per_hour: 2}\n", "study.yaml",
      "/b");
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message.find("'resources.price_per_hour'"), std::string::npos);
}

TEST(StudyGates, EveryGateShowsUseCapAndAnEtaAtTheBurnRate) {
  auto spec = ParseStudySpec(
      std::string(kBase) +
          "resources: {price_per_hour: 2}\n"
          "gates: {budget_usd: 10, max_gpu_hours: 8, max_trials: 40, trial_max_wall: 1h,\n"
          "        plateau: {epsilon: 0.01, trials: 10, spend_usd: 5}}\n",
      "study.yaml", "/b");
  ASSERT_TRUE(spec) << spec.error().message;
  // 100 s of study clock: $2 spent (1 GPU-hour), 10 trials started, the best at trial 4.
  const nlohmann::json state = {{"status", "running"},
                                {"summary",
                                 {{"spend_usd", 2.0},
                                  {"gpu_hours", 1.0},
                                  {"trials_started", 10},
                                  {"elapsed_seconds", 100.0}}},
                                {"flags",
                                 {{"incumbent_loss", 0.5},
                                  {"incumbent_trials_started", 4},
                                  {"incumbent_gpu_seconds", 1800.0}}}};
  Trial longest;
  longest.cost_seconds = 900;
  const nlohmann::json gates = GatesJson(*spec, state, {longest});
  EXPECT_DOUBLE_EQ(gates["budget_usd"]["eta_seconds"].get<double>(), 400.0);     // $8 at $0.02/s
  EXPECT_DOUBLE_EQ(gates["max_gpu_hours"]["eta_seconds"].get<double>(), 700.0);  // 7 h at 0.01/s
  EXPECT_DOUBLE_EQ(gates["max_trials"]["eta_seconds"].get<double>(), 300.0);     // 30 at 0.1/s
  EXPECT_DOUBLE_EQ(gates["plateau_trials"]["used"].get<double>(), 6.0);
  EXPECT_DOUBLE_EQ(gates["plateau_trials"]["eta_seconds"].get<double>(), 40.0);
  EXPECT_DOUBLE_EQ(gates["plateau_spend_usd"]["used"].get<double>(), 1.0);  // half the GPU-hour
  EXPECT_DOUBLE_EQ(gates["plateau_spend_usd"]["eta_seconds"].get<double>(), 200.0);
  EXPECT_DOUBLE_EQ(gates["trial_max_wall"]["used"].get<double>(), 900.0);
  EXPECT_DOUBLE_EQ(gates["trial_max_wall"]["fraction"].get<double>(), 0.25);
  const auto nearest = NearestGate(gates);
  ASSERT_TRUE(nearest);
  EXPECT_EQ(nearest->first, "plateau_trials");

  nlohmann::json finished = state;
  finished["status"] = "finished";
  EXPECT_FALSE(NearestGate(GatesJson(*spec, finished, {longest})));
}

TEST(StudyGates, SmallGpuHourCapsAreNotShownAsZero) {
  EXPECT_EQ(GpuHoursText(0), "0.00");
  EXPECT_EQ(GpuHoursText(12.345), "12.35");
  EXPECT_EQ(GpuHoursText(0.01), "0.01");
  EXPECT_EQ(GpuHoursText(0.001), "0.001");
  EXPECT_EQ(GpuHoursText(0.0045), "0.0045");
}

}  // namespace
}  // namespace frugal::tune

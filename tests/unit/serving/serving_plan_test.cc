#include "frugal/serving/serving_plan.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "frugal/serving/serving_json.h"
#include "support/test_support.h"

namespace frugal::serving {
namespace {

struct Fixture {
  testing::TempDir dir;
  catalog::Catalog catalog;
  std::vector<std::string> names;
};

/// The shipped catalog plus `offers` (custom offer entries, cloud "test"); `extra` is appended
/// to the offers file (preemption rates).
std::unique_ptr<Fixture> Load(const std::string& offers, const std::string& extra = "") {
  auto f = std::make_unique<Fixture>();
  testing::WriteTestFile(f->dir / "offers.yaml",
                         "apiVersion: frugal/v1\noffers:\n" + offers + extra);
  auto c = catalog::Catalog::LoadFrom(testing::SourceDir() / "data", {f->dir / "offers.yaml"});
  EXPECT_TRUE(c) << c.error().message;
  f->catalog = std::move(*c);
  f->names = f->catalog.gpu_names();
  return f;
}

InferenceSpec Spec(const Fixture& f, const std::string& text) {
  auto spec = ParseInferenceSpec("apiVersion: frugal/v1\nkind: Inference\n" + text, "serve.yaml",
                                 f.dir.path(), f.names);
  EXPECT_TRUE(spec) << spec.error().message;
  return spec ? *spec : InferenceSpec{};
}

ServingPlan Plan(const Fixture& f, const InferenceSpec& spec) {
  auto plan = PlanServing(spec, f.catalog, {100});
  EXPECT_TRUE(plan) << plan.error().message;
  return plan ? *plan : ServingPlan{};
}

const ServingOption* Find(const ServingPlan& p, const std::string& tier, bool autoscaled = false) {
  for (const ServingOption& o : p.options) {
    if (o.tier == tier && o.autoscaled == autoscaled) return &o;
  }
  return nullptr;
}

const std::string kEncoder =
    "model: {type: encoder, layers: 24, hidden: 1024, heads: 16, ffn: 4096, mlp: gelu, vocab: "
    "30522, seq: 512}\n";

TEST(ServingPlan, SeedFourT4ServingAllMonth) {
  auto f = Load("  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.50}\n");
  const InferenceSpec spec =
      Spec(*f, kEncoder +
                   "workload: {rps: 250, peak_rps: 400, tokens_per_item: 384}\n"
                   "latency: {request_p95: 100ms}\n"
                   "measured:\n  - {gpu: T4, items_per_second: 120, request_p95: 80ms}\n"
                   "constraints: {clouds: [test]}\n");
  const ServingPlan p = Plan(*f, spec);
  ASSERT_FALSE(p.options.empty());
  const ServingOption& best = p.options.front();
  EXPECT_EQ(best.gpu, "T4");
  EXPECT_EQ(best.gpus_per_replica, 1);
  EXPECT_EQ(best.replicas, 4);  // ceil(400 × 1.2 / 120)
  EXPECT_EQ(best.tier, "on_demand");
  EXPECT_EQ(best.monthly, Money::FromCents(146'000));     // 4 × $0.50 × 730 h
  EXPECT_EQ(best.lifetime, Money::FromCents(1'752'000));  // × 12 months
  EXPECT_TRUE(best.perf.measured);
  EXPECT_TRUE(best.perf.meets_latency);
  EXPECT_DOUBLE_EQ(best.perf.per_second, 120);
  // 250 rps for 730 h: 657 M requests a month.
  EXPECT_DOUBLE_EQ(p.requests_per_month, 250.0 * 3600 * 730);
  EXPECT_NEAR(best.usd_per_million_requests, 1460 / 657.0, 1e-9);
  EXPECT_NEAR(best.utilization, 250.0 / 480, 1e-12);
}

const std::string kShaped =
    "workload:\n  daily_shape: [50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 250, 250, 250, "
    "250, 250, 250, 250, 250, 250, 250, 250, 250]\n  tokens_per_item: 384\n"
    "measured:\n  - {gpu: T4, items_per_second: 100}\n"
    "serving: {headroom: 0}\n"
    "constraints: {clouds: [test]}\n";

TEST(ServingPlan, CommittedBaseWithOnDemandPeakFollowsTheDailyShape) {
  auto f = Load(
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 1.00}\n"
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.60, tier: reserved_1y}\n");
  const ServingPlan p = Plan(*f, Spec(*f, kEncoder + kShaped));
  // 1 replica at night (50 rps), 3 by day (250 rps) at 100 items/s each.
  const ServingOption* od = Find(p, "on_demand");
  const ServingOption* scaled = Find(p, "on_demand", true);
  const ServingOption* committed = Find(p, "reserved_1y");
  const ServingOption* mix = Find(p, "reserved_1y+on_demand");
  ASSERT_TRUE(od && scaled && committed && mix);
  EXPECT_EQ(od->replicas, 3);
  EXPECT_EQ(od->monthly, Money::FromCents(219'000));  // 3 × $1 × 730
  // 12 h × 1 + 12 h × 3 = 48 instance-hours a day; 730/24 days a month.
  EXPECT_EQ(scaled->monthly, Money::FromCents(146'000));
  EXPECT_EQ(committed->monthly, Money::FromCents(131'400));  // 3 × $0.60 × 730, used or not
  EXPECT_DOUBLE_EQ(*committed->break_even_utilization, 0.6);
  // One committed replica all month ($438) plus two on demand for 12 h a day ($730).
  EXPECT_EQ(mix->base_replicas, 1);
  EXPECT_EQ(mix->monthly, Money::FromCents(116'800));
  EXPECT_EQ(p.options.front().tier, "reserved_1y+on_demand");
  EXPECT_EQ(p.options[1].tier, "reserved_1y");
  EXPECT_NE(p.options[1].lost_because.find("more over 12 months"), std::string::npos)
      << p.options[1].lost_because;
}

TEST(ServingPlan, SpotOnlyWhereInterruptionIsTolerated) {
  const std::string offers =
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 1.00}\n"
      "  - {name: t4-spot, cloud: test, gpu: T4, price_per_hour: 0.30, tier: spot}\n";
  auto f = Load(offers, "preemption_rates:\n  - {cloud: test, per_hour: 0.6}\n");
  const ServingPlan strict = Plan(*f, Spec(*f, kEncoder + kShaped));
  EXPECT_EQ(Find(strict, "spot"), nullptr);
  EXPECT_TRUE(std::any_of(strict.excluded.begin(), strict.excluded.end(), [](const auto& e) {
    return e.reason.find("spot: the spec does not tolerate interruption") != std::string::npos;
  }));
  std::string batch = kShaped;
  batch.replace(batch.find("headroom: 0"), 11, "headroom: 0, interruptible: true");
  const ServingPlan p = Plan(*f, Spec(*f, kEncoder + batch));
  const ServingOption* spot = Find(p, "spot");
  ASSERT_NE(spot, nullptr);
  // 3 replicas × $0.30 × 730 h × (1 + 0.6 preemptions/h × 5 min of replacement).
  EXPECT_EQ(spot->monthly, Money::FromCents(68'985));
}

const std::string kSmallClassifier =
    "model: {type: encoder, layers: 6, hidden: 384, heads: 12, ffn: 1536, mlp: gelu, vocab: "
    "30522}\nworkload: {rps: 10, peak_rps: 20, tokens_per_item: 64}\n";

TEST(ServingPlan, CpuWinsWhenItMeetsTheLatency) {
  auto f = Load(
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.50}\n"
      "  - {name: cpu-2, cloud: test, vcpus: 2, ram_gib: 4, price_per_hour: 0.10}\n");
  const ServingPlan p = Plan(*f, Spec(*f, kSmallClassifier + "latency: {request_p95: 50ms}\n"
                                                             "constraints: {clouds: [test]}\n"));
  ASSERT_FALSE(p.options.empty());
  EXPECT_EQ(p.options.front().gpu, "cpu");
  EXPECT_EQ(p.options.front().gpus_per_replica, 0);
  EXPECT_TRUE(p.options.front().perf.meets_latency);
  EXPECT_EQ(p.options.front().monthly, Money::FromCents(7'300));
  // The same model under a 2 ms objective: the CPU misses it and the T4 wins.
  const ServingPlan tight =
      Plan(*f, Spec(*f, kSmallClassifier + "latency: {request_p95: 2ms}\n"
                                           "constraints: {clouds: [test]}\n"));
  ASSERT_FALSE(tight.options.empty());
  EXPECT_EQ(tight.options.front().gpu, "T4");
  const auto cpu = std::find_if(tight.options.begin(), tight.options.end(),
                                [](const auto& o) { return o.gpu == "cpu"; });
  ASSERT_NE(cpu, tight.options.end());
  EXPECT_FALSE(cpu->perf.meets_latency);
  EXPECT_NE(cpu->lost_because.find("misses the latency objective"), std::string::npos);
}

TEST(ServingPlan, CommitmentLongerThanTheModelsLifeIsPaidInFull) {
  auto f = Load(
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 1.00}\n"
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.40, tier: reserved_3y}\n");
  const ServingPlan p =
      Plan(*f, Spec(*f, kSmallClassifier + "serving: {lifetime_months: 6}\n"
                                           "constraints: {clouds: [test], gpus: [T4]}\n"));
  const ServingOption* committed = Find(p, "reserved_3y");
  ASSERT_NE(committed, nullptr);
  EXPECT_EQ(committed->lifetime, committed->monthly * 36);
  EXPECT_EQ(p.options.front().tier, "on_demand");
  EXPECT_NE(committed->lost_because.find("outlasts the model's 6"), std::string::npos)
      << committed->lost_because;
}

TEST(ServingPlan, MeasuredGpuCalibratesTheOthers) {
  auto f = Load(
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.50}\n"
      "  - {name: l4, cloud: test, gpu: L4, price_per_hour: 0.80}\n");
  const std::string base =
      kEncoder + "workload: {rps: 10, tokens_per_item: 384}\n" + "constraints: {clouds: [test]}\n";
  const ServingPlan model = Plan(*f, Spec(*f, base));
  auto l4_of = [](const ServingPlan& p) {
    return std::find_if(p.options.begin(), p.options.end(),
                        [](const auto& o) { return o.gpu == "L4"; })
        ->perf.per_second;
  };
  auto t4_of = [](const ServingPlan& p) {
    return std::find_if(p.options.begin(), p.options.end(),
                        [](const auto& o) { return o.gpu == "T4"; })
        ->perf.per_second;
  };
  const double t4_model = t4_of(model);
  const ServingPlan measured =
      Plan(*f, Spec(*f, base + "measured:\n  - {gpu: T4, items_per_second: " +
                            std::to_string(t4_model / 2) + "}\n"));
  EXPECT_NEAR(measured.scale, 0.5, 0.05);
  EXPECT_NEAR(t4_of(measured), t4_model / 2, 1e-6);
  EXPECT_LT(l4_of(measured), l4_of(model) * 0.6);
}

TEST(ServingPlan, MeasuredProfileMatchingNothingIsAnError) {
  auto f = Load("  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.50}\n");
  const InferenceSpec spec = Spec(*f, kSmallClassifier +
                                          "measured:\n  - {offer: nowhere, items_per_second: 10}\n"
                                          "constraints: {clouds: [test]}\n");
  auto p = PlanServing(spec, f->catalog);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().code, ErrorCode::kBadInput);
  EXPECT_NE(p.error().message.find("serve.yaml:6:"), std::string::npos) << p.error().message;
}

TEST(ServingPlan, ModelTooBigForEveryGpuSaysWhy) {
  auto f = Load("  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.50}\n");
  const ServingPlan p = Plan(*f, Spec(*f,
                                      "model: {params: 70b}\n"
                                      "workload: {rps: 1, input_tokens: 100, output_tokens: 100}\n"
                                      "constraints: {clouds: [test]}\n"));
  EXPECT_TRUE(p.options.empty());
  EXPECT_TRUE(std::any_of(p.excluded.begin(), p.excluded.end(), [](const auto& e) {
    return e.reason.find("T4: does not fit on up to 1 GPU per replica") != std::string::npos;
  }));
}

TEST(ServingPlan, BusinessHoursPayOnDemandOnlyWhileServingButCommitmentsAllMonth) {
  auto f = Load(
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 1.00}\n"
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 0.60, tier: reserved_1y}\n");
  const ServingPlan p = Plan(*f, Spec(*f, kSmallClassifier + "serving: {hours: business}\n"
                                                             "constraints: {clouds: [test]}\n"));
  const ServingOption* od = Find(p, "on_demand");
  const ServingOption* committed = Find(p, "reserved_1y");
  ASSERT_TRUE(od && committed);
  // 10 h × 5 days a week: 730 × 50/168 h a month on demand; the commitment pays all 730 h.
  EXPECT_EQ(od->monthly, Money::FromDollars(730.0 * 50 / 168));
  EXPECT_EQ(committed->monthly, Money::FromCents(43'800));
  EXPECT_EQ(p.options.front().tier, "on_demand");  // 29.8% of the hours < 60% break-even
}

TEST(ServingPlan, MeasuredDecoderThroughputAtItsConcurrency) {
  auto f = Load("  - {name: a100, cloud: test, gpu: A100-80GB, price_per_hour: 2.00}\n");
  const ServingPlan p =
      Plan(*f, Spec(*f,
                    "model: {layers: 32, hidden: 4096, heads: 32, kv_heads: 8, ffn: 14336, vocab: "
                    "128256, seq: 8192}\n"
                    "workload: {rps: 5, peak_rps: 10, input_tokens: 1024, output_tokens: 128}\n"
                    "measured:\n  - {gpu: A100-80GB, output_tokens_per_second: 2000, concurrency: "
                    "32, tpot_p95: 30ms}\n"
                    "constraints: {clouds: [test], max_gpus_per_replica: 1}\n"));
  ASSERT_FALSE(p.options.empty());
  const ServingOption& best = p.options.front();
  EXPECT_TRUE(best.perf.measured);
  EXPECT_EQ(best.perf.batch, 32);
  EXPECT_DOUBLE_EQ(best.perf.per_second, 2000);
  EXPECT_DOUBLE_EQ(best.perf.requests_per_second, 2000.0 / 128);
  EXPECT_DOUBLE_EQ(*best.perf.latency.tpot_p95, 0.030);
  EXPECT_EQ(best.replicas, 1);  // 10 rps × 1.2 ≤ 15.6 requests/s
}

TEST(ServingPlan, AbsurdTrafficIsALossNotAnOverflow) {
  auto f = Load("  - {name: t4, cloud: test, gpu: T4, price_per_hour: 9000000000}\n");
  const ServingPlan p =
      Plan(*f, Spec(*f, kEncoder + "workload: {rps: 1000000000, tokens_per_item: 512}\n"
                                   "serving: {lifetime_months: 600}\n"
                                   "constraints: {clouds: [test]}\n"));
  EXPECT_TRUE(p.options.empty());
  EXPECT_TRUE(std::any_of(p.excluded.begin(), p.excluded.end(), [](const auto& e) {
    return e.reason.find("T4 x1: needs more than 100000 replicas") != std::string::npos;
  }));
  // At the limit of what it sizes, a dear offer saturates instead of wrapping around.
  const ServingPlan dear =
      Plan(*f, Spec(*f, kEncoder + "workload: {rps: 1000, tokens_per_item: 512}\n"
                                   "serving: {lifetime_months: 600}\n"
                                   "constraints: {clouds: [test]}\n"));
  ASSERT_FALSE(dear.options.empty());
  EXPECT_GT(dear.options.front().lifetime, Money());
  EXPECT_GE(dear.options.front().lifetime, dear.options.front().monthly);
}

TEST(ServingPlan, ReplicasPerInstanceAndAFixedTensorParallelDegree) {
  auto f = Load(
      "  - {name: a100x2, cloud: test, gpu: A100-80GB, gpus: 2, price_per_hour: 6.00}\n"
      "  - {name: a100x8, cloud: test, gpu: A100-80GB, gpus: 8, price_per_hour: 20.00}\n");
  const std::string model =
      "model: {params: 7b}\n"
      "workload: {rps: 1, input_tokens: 512, output_tokens: 256, concurrency: 16}\n";
  // Eight data-parallel replicas of one GPU: only the 8-GPU instance holds them.
  const InferenceSpec dp_spec = Spec(
      *f, model + "constraints: {clouds: [test], gpus_per_replica: 1, replicas_per_instance: 8}\n");
  const ServingPlan dp = Plan(*f, dp_spec);
  ASSERT_FALSE(dp.options.empty());
  // The document keeps the keys it had and adds the instance's throughput.
  const nlohmann::json best = ServingPlanJson(dp_spec, dp)["options"][0];
  for (const char* key : {"gpu", "gpus_per_replica", "replicas", "tier", "monthly_usd",
                          "throughput_per_replica", "meets_latency"}) {
    EXPECT_TRUE(best.contains(key)) << key;
  }
  EXPECT_EQ(best["replicas_per_instance"], 8);
  EXPECT_DOUBLE_EQ(best["throughput_per_instance"].get<double>(),
                   8 * best["throughput_per_replica"].get<double>());
  for (const ServingOption& o : dp.options) {
    EXPECT_EQ(o.gpus_per_replica, 1);
    EXPECT_EQ(o.replicas_per_instance, 8);
    EXPECT_EQ(o.offer->gpu_count, 8);
    EXPECT_EQ(o.perf.batch, 16);
  }
  // Unstated, the planner sizes 1-, 2-, 4- and 8-GPU replicas; stated, only 2.
  const ServingPlan tp =
      Plan(*f, Spec(*f, model + "constraints: {clouds: [test], gpus_per_replica: 2}\n"));
  ASSERT_FALSE(tp.options.empty());
  for (const ServingOption& o : tp.options) EXPECT_EQ(o.gpus_per_replica, 2);
  const ServingPlan any = Plan(*f, Spec(*f, model + "constraints: {clouds: [test]}\n"));
  EXPECT_TRUE(std::any_of(any.options.begin(), any.options.end(),
                          [](const ServingOption& o) { return o.gpus_per_replica == 1; }));
}

bool Excludes(const ServingPlan& p, const std::string& text) {
  return std::any_of(p.excluded.begin(), p.excluded.end(),
                     [&](const auto& e) { return e.reason.find(text) != std::string::npos; });
}

// A marketplace host (providers.csv: vast) carries no uptime commitment: 24/7 serving that does
// not tolerate interruption goes elsewhere unless the spec names the cloud, or tolerates it.
TEST(ServingPlan, MarketplaceHostsServeOnlyWhatToleratesInterruptionOrNamesThem) {
  auto f = Load(
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 1.00}\n"
      "  - {name: t4-host, cloud: vast, gpu: T4, price_per_hour: 0.20}\n");
  const std::string shaped = kShaped.substr(0, kShaped.find("constraints:"));
  const std::string gpus = "constraints: {gpus: [T4]}\n";
  const ServingPlan strict = Plan(*f, Spec(*f, kEncoder + shaped + gpus));
  ASSERT_FALSE(strict.options.empty());
  for (const ServingOption& o : strict.options) EXPECT_NE(o.offer->cloud, "vast");
  EXPECT_TRUE(Excludes(strict, "vast: marketplace hosts carry no uptime commitment"));

  const ServingPlan named =
      Plan(*f, Spec(*f, kEncoder + shaped + "constraints: {gpus: [T4], clouds: [test, vast]}\n"));
  ASSERT_FALSE(named.options.empty());
  EXPECT_EQ(named.options.front().offer->cloud, "vast");

  std::string batch = shaped;
  batch.replace(batch.find("headroom: 0"), 11, "headroom: 0, interruptible: true");
  const ServingPlan tolerant = Plan(*f, Spec(*f, kEncoder + batch + gpus));
  EXPECT_FALSE(Excludes(tolerant, "marketplace hosts"));
  EXPECT_TRUE(std::any_of(tolerant.options.begin(), tolerant.options.end(),
                          [](const ServingOption& o) { return o.offer->cloud == "vast"; }));
}

// vLLM's AWQ kernels need compute capability 7.5: a 4-bit model is not sized on a V100 (7.0),
// however cheap; 16-bit weights are.
TEST(ServingPlan, FourBitWeightsSkipGpusTheirKernelsDoNotRunOn) {
  auto f = Load(
      "  - {name: v100, cloud: test, gpu: V100-16GB, price_per_hour: 0.10}\n"
      "  - {name: t4, cloud: test, gpu: T4, price_per_hour: 1.00}\n");
  const std::string decoder =
      "model: {type: decoder, params: 7b, layers: 32, hidden: 4096, heads: 32, seq: 4096, "
      "weights: WEIGHTS}\nworkload: {rps: 1, input_tokens: 256, output_tokens: 128}\n"
      "latency: {tpot_p95: 200ms}\nconstraints: {clouds: [test]}\n";
  std::string awq = decoder;
  awq.replace(awq.find("WEIGHTS"), 7, "awq");
  const ServingPlan p = Plan(*f, Spec(*f, awq));
  for (const ServingOption& o : p.options) EXPECT_NE(o.gpu, "V100-16GB");
  EXPECT_TRUE(Excludes(p, "V100-16GB: 4-bit (AWQ/GPTQ) kernels need CUDA compute capability 7.5"));
  std::string fp16 = decoder;
  fp16.replace(fp16.find("WEIGHTS"), 7, "fp16");
  const ServingPlan q = Plan(*f, Spec(*f, fp16));
  EXPECT_FALSE(Excludes(q, "compute capability"));
}

}  // namespace
}  // namespace frugal::serving

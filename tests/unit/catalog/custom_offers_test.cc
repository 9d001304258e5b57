#include "frugal/catalog/custom_offers.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::catalog {
namespace {

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

std::vector<GpuSpec> Gpus() {
  GpuSpec a;
  a.name = "A100-80GB";
  a.memory_gib = 80;
  GpuSpec l4;
  l4.name = "L4";
  l4.memory_gib = 24;
  return {a, l4};
}

TEST(CustomOffers, ReadsPoolsAtInternalRates) {
  TempDir dir;
  WriteTestFile(dir / "offers.yaml",
                "apiVersion: frugal/v1\n"
                "offers:\n"
                "  - name: dc1-a100x8\n"
                "    region: dc1\n"
                "    gpu: a100-80gb\n"
                "    gpus: 8\n"
                "    price_per_gpu_hour: 1.10\n"
                "  - name: slurm-preemptible-l4\n"
                "    cloud: slurm\n"
                "    gpu: L4\n"
                "    price_per_hour: $0.30\n"
                "    tier: spot\n"
                "    preemptions_per_hour: 0.5\n"
                "  - name: cpu-64\n"
                "    price_per_hour: 1.2\n"
                "    vcpus: 64\n"
                "preemption_rates:\n"
                "  - {cloud: aws, gpu: 'H100*', per_hour: 0.9}\n");
  auto c = ReadCustomOffers(dir / "offers.yaml", Gpus());
  ASSERT_TRUE(c.has_value()) << c.error().message;
  ASSERT_EQ(c->offers.size(), 3u);
  EXPECT_EQ(c->offers[0].gpu, "A100-80GB");
  EXPECT_EQ(c->offers[0].cloud, "onprem");
  EXPECT_EQ(c->offers[0].price.per_hour, Money::FromCents(880));
  EXPECT_EQ(c->offers[0].PricePerGpuHour(), Money::FromCents(110));
  EXPECT_EQ(c->offers[1].tier, CapacityTier::kSpot);
  EXPECT_DOUBLE_EQ(c->offers[1].preemptions_per_hour, 0.5);
  EXPECT_EQ(c->offers[2].gpu_count, 0);
  EXPECT_EQ(c->offers[2].source, OfferSource::kCustom);
  ASSERT_EQ(c->preemption_rates.size(), 1u);
  EXPECT_EQ(c->preemption_rates[0].gpu, "H100*");
}

struct BadCase {
  const char* yaml;
  const char* expected;
};

TEST(CustomOffers, BadInputNamesFileLineAndField) {
  const BadCase cases[] = {
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpuz: L4\n    price_per_hour: 1\n",
       "offers.yaml:4:5: unknown key 'gpuz' in offer (did you mean 'gpu'?)"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L5\n    price_per_hour: 1\n",
       "offers.yaml:4:10: field 'gpu': unknown GPU 'L5' (did you mean 'L4'?)"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n",
       "give exactly one of price_per_hour"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    price_per_hour: -2\n",
       "offers.yaml:5:21: field 'price_per_hour': must be positive"},
      // Positive, but below the millionth of a dollar money is kept in: "must be positive"
      // alone read as wrong.
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    price_per_hour: 0.0000001\n",
       "offers.yaml:5:21: field 'price_per_hour': must be positive, at least $0.000001 an hour "
       "(amounts are kept to the millionth of a dollar)"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    price_per_hour: free\n",
       "offers.yaml:5:21: field 'price_per_hour': invalid amount 'free'"},
      {"apiVersion: frugal/v9\n", "unsupported version 'frugal/v9'"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    gpus: -1\n    "
       "price_per_hour: 1\n",
       "field 'gpus': expected a GPU count"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    price_per_hour: 1\n"
       "    vcpus: -4\n",
       "offers.yaml:6:12: field 'vcpus': must not be negative"},
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    price_per_hour: 1\n"
       "  - name: x\n    gpu: L4\n    gpus: 2\n    price_per_hour: 2\n",
       "offers.yaml:6:11: field 'name': offer 'onprem:x:local:on_demand' is already defined at "},
      // Owned capacity is never an offer (so never a spot candidate): a capacity pool's tier.
      {"apiVersion: frugal/v1\noffers:\n  - name: x\n    gpu: L4\n    price_per_hour: 1\n"
       "    tier: owned\n",
       "offers.yaml:6:11: field 'tier': tier 'owned' is not rented: owned capacity is never an "
       "offer"},
  };
  for (const BadCase& c : cases) {
    TempDir dir;
    WriteTestFile(dir / "offers.yaml", c.yaml);
    auto r = ReadCustomOffers(dir / "offers.yaml", Gpus());
    ASSERT_FALSE(r.has_value()) << c.yaml;
    EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
    EXPECT_NE(r.error().message.find(c.expected), std::string::npos) << r.error().message;
  }
}

}  // namespace
}  // namespace frugal::catalog

#include "frugal/catalog/catalog.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>

#include "support/test_support.h"

namespace frugal::catalog {
namespace {

const Catalog& Shipped() {
  static const Catalog kShipped = [] {
    auto loaded = Catalog::LoadFrom(frugal::testing::SourceDir() / "data");
    EXPECT_TRUE(loaded.has_value()) << loaded.error().message;
    return std::move(loaded).value();
  }();
  return kShipped;
}

TEST(Catalog, ShippedSnapshotLoadsWithEveryCloudAndTier) {
  const Catalog& c = Shipped();
  EXPECT_EQ(c.info().snapshot_date, "2026-05-20");
  for (const char* cloud : {"aws", "gcp", "azure", "lambda", "vast"}) {
    EXPECT_GT(c.info().counts.at(cloud).at("on_demand"), 0u) << cloud;
  }
  EXPECT_GT(c.info().counts.at("aws").at("spot"), 0u);
  EXPECT_GT(c.info().counts.at("gcp").at("reserved_3y"), 0u);
  for (const Offer& o : c.offers()) {
    EXPECT_GT(o.price.per_hour, Money()) << o.Id();
    if (o.tier == CapacityTier::kSpot) {
      EXPECT_GT(o.preemptions_per_hour, 0.0) << o.Id();
    }
    EXPECT_EQ(o.price_estimated,
              o.tier == CapacityTier::kReserved1y || o.tier == CapacityTier::kReserved3y)
        << o.Id();
    if (!o.gpu.empty()) {
      EXPECT_NE(c.FindGpu(o.gpu), nullptr) << o.gpu;
    }
  }
}

TEST(Catalog, QueryFiltersSortsAndLimits) {
  OfferQuery q;
  q.gpu = "A100-80GB";
  q.min_gpus = 8;
  q.tier = CapacityTier::kSpot;
  q.sort = OfferQuery::Sort::kPricePerGpu;
  auto offers = Shipped().Query(q);
  ASSERT_TRUE(offers.has_value());
  ASSERT_FALSE(offers->empty());
  for (size_t i = 0; i < offers->size(); ++i) {
    const Offer* o = (*offers)[i];
    EXPECT_EQ(o->gpu, "A100-80GB");
    EXPECT_GE(o->gpu_count, 8);
    EXPECT_EQ(o->tier, CapacityTier::kSpot);
    if (i > 0) {
      EXPECT_LE((*offers)[i - 1]->PricePerGpuHour(), o->PricePerGpuHour());
    }
  }
  q.limit = 3;
  q.cloud = "aws";
  q.max_price_per_hour = Money::FromCents(1500);
  auto limited = Shipped().Query(q);
  ASSERT_TRUE(limited.has_value());
  EXPECT_LE(limited->size(), 3u);
  for (const Offer* o : *limited) {
    EXPECT_EQ(o->cloud, "aws");
    EXPECT_LE(o->price.per_hour, Money::FromCents(1500));
  }
}

TEST(Catalog, FindOfferTakesAnIdOrAnInstanceTypeOfThatGpu) {
  const Catalog& c = Shipped();
  const auto it = std::find_if(c.offers().begin(), c.offers().end(), [](const Offer& o) {
    return o.gpu == "A100-80GB" && o.tier == CapacityTier::kSpot;
  });
  ASSERT_NE(it, c.offers().end());
  EXPECT_EQ(c.FindOffer(it->Id(), "A100-80GB"), &*it);
  const Offer* by_type = c.FindOffer(it->instance_type, "A100-80GB");
  ASSERT_NE(by_type, nullptr);
  EXPECT_EQ(by_type->instance_type, it->instance_type);
  EXPECT_EQ(c.FindOffer(it->Id(), "H100-80GB-SXM"), nullptr);  // not that GPU's offer
  EXPECT_EQ(c.FindOffer("no-such-instance", "A100-80GB"), nullptr);
}

TEST(Catalog, H100FamilyCoversSxmAndPcie) {
  OfferQuery q;
  q.gpu = "H100";
  auto offers = Shipped().Query(q);
  ASSERT_TRUE(offers.has_value());
  bool sxm = false, pcie = false;
  for (const Offer* o : *offers) {
    sxm = sxm || o->gpu == "H100-80GB-SXM";
    pcie = pcie || o->gpu == "H100-80GB-PCIe";
  }
  EXPECT_TRUE(sxm);
  EXPECT_TRUE(pcie);
}

TEST(Catalog, UnknownGpuIsBadInputWithSuggestion) {
  OfferQuery q;
  q.gpu = "A100-80GBX";
  auto offers = Shipped().Query(q);
  ASSERT_FALSE(offers.has_value());
  EXPECT_EQ(offers.error().code, ErrorCode::kBadInput);
  EXPECT_NE(offers.error().message.find("did you mean 'A100-80GB'"), std::string::npos)
      << offers.error().message;
}

TEST(Catalog, MalformedOfferTableNamesFileAndLine) {
  frugal::testing::TempDir dir;
  std::filesystem::copy(frugal::testing::SourceDir() / "data", dir.path(),
                        std::filesystem::copy_options::recursive);
  frugal::testing::WriteTestFile(
      dir / "catalog" / "offers.csv",
      "cloud,instance_type,region,zone,gpu,gpu_count,vcpus,ram_gib,tier,price_per_hour\n"
      "aws,g4dn.xlarge,us-east-1,,T4,1,4,16,on_demand,0.526\n"
      "aws,g4dn.2xlarge,us-east-1,,T4,1,8,32,on_demand,\n");
  auto c = Catalog::LoadFrom(dir.path());
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().message.find("offers.csv:3:49: field 'price_per_hour'"), std::string::npos)
      << c.error().message;
}

}  // namespace
}  // namespace frugal::catalog

namespace frugal::catalog {
namespace {

TEST(Catalog, ShipsCpuInstancesOfEveryClassOnEveryTier) {
  for (const CpuClass cls : {CpuClass::kGeneral, CpuClass::kMemory, CpuClass::kCompute}) {
    for (const char* cloud : {"aws", "gcp", "azure"}) {
      for (const CapacityTier tier : {CapacityTier::kOnDemand, CapacityTier::kSpot,
                                      CapacityTier::kReserved1y, CapacityTier::kReserved3y}) {
        OfferQuery q;
        q.gpu = "cpu";
        q.cpu_class = cls;
        q.cloud = cloud;
        q.tier = tier;
        q.limit = 1;
        auto offers = Shipped().Query(q);
        ASSERT_TRUE(offers.has_value()) << offers.error().message;
        ASSERT_EQ(offers->size(), 1u)
            << CpuClassName(cls) << " " << cloud << " " << CapacityTierName(tier);
        EXPECT_TRUE(offers->front()->gpu.empty());
        EXPECT_GT(offers->front()->vcpus, 0);
      }
    }
  }
  // RAM filter: a 512 GiB memory-optimized machine exists, and every answer has the RAM.
  OfferQuery big;
  big.gpu = "CPU";
  big.min_ram_gib = 512;
  auto offers = Shipped().Query(big);
  ASSERT_TRUE(offers.has_value());
  ASSERT_FALSE(offers->empty());
  for (const Offer* o : *offers) EXPECT_GE(o->ram_gib, 512);
}

TEST(Catalog, EveryRentedGpuHasComputeFiguresAndEstimatedOnesSayHow) {
  const Catalog& c = Shipped();
  for (const Offer& o : c.offers()) {
    if (o.gpu.empty()) continue;
    const GpuSpec* g = c.FindGpu(o.gpu);
    ASSERT_NE(g, nullptr) << o.gpu;
    EXPECT_TRUE(g->fp32_tflops.has_value()) << g->name;
    EXPECT_GT(g->memory_bandwidth_gbps, 0) << g->name;
  }
  for (const char* name :
       {"A10G", "A40", "L40", "RTXA6000", "RTX4090", "RTX3090", "P100", "P4", "M60", "B300"}) {
    const GpuSpec* g = c.FindGpu(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_TRUE(g->fp32_tflops.has_value()) << name;
    if (g->estimated) {
      EXPECT_FALSE(g->notes.empty()) << name;
    }
  }
  EXPECT_TRUE(c.FindGpu("A10G")->estimated);
  EXPECT_TRUE(c.FindGpu("B300")->estimated);
  EXPECT_FALSE(c.FindGpu("A100-80GB")->estimated);
  EXPECT_FALSE(c.FindGpu("P100")->tensor_cores);
  EXPECT_TRUE(c.FindGpu("T4")->tensor_cores);
}

}  // namespace
}  // namespace frugal::catalog

namespace frugal::catalog {
namespace {

namespace fs = std::filesystem;

// Every field a load sets or derives, so two catalogs can be compared whole.
std::string Described(const Catalog& c) {
  std::string out;
  for (const Offer& o : c.offers()) {
    out += fmt::format("{} {} {} {:.17g} {} {} {} {}\n", o.Id(), o.price.per_hour.micros(),
                       o.price_estimated, o.preemptions_per_hour, o.spot_risk.basis(),
                       o.spot_outlier ? o.spot_outlier->planned.micros() : -1,
                       static_cast<int>(o.source),
                       o.launch ? o.launch->boot_hours.value_or(-1) : -1.0);
  }
  return out;
}

TEST(Catalog, CustomFilesAddedLaterGiveTheCatalogThatLoadingThemGives) {
  frugal::testing::TempDir dir;
  // A spot pool and a user rate that bears on shipped offers, so derived prices must be
  // worked out again over the whole catalog.
  frugal::testing::WriteTestFile(dir / "a.yaml",
                                 "apiVersion: frugal/v1\n"
                                 "offers:\n"
                                 "  - {name: lab-a100, cloud: aws, region: us-east-1, gpu: "
                                 "A100-80GB, gpus: 8, tier: spot, price_per_gpu_hour: 0.01}\n"
                                 "preemption_rates:\n"
                                 "  - {cloud: aws, gpu: \"A100*\", per_hour: 0.77}\n");
  frugal::testing::WriteTestFile(dir / "b.yaml",
                                 "apiVersion: frugal/v1\n"
                                 "offers:\n"
                                 "  - {name: dc-t4, gpu: T4, price_per_hour: 0.2, boot: 1m}\n");
  const fs::path data = frugal::testing::SourceDir() / "data";
  auto base = Catalog::LoadFrom(data);
  ASSERT_TRUE(base.has_value()) << base.error().message;
  auto added = base->WithCustomFiles({dir / "a.yaml"});
  ASSERT_TRUE(added.has_value()) << added.error().message;
  auto loaded = Catalog::LoadFrom(data, {dir / "a.yaml"});
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(Described(*added), Described(*loaded));
  EXPECT_EQ(added->info().custom_files, std::vector<fs::path>{dir / "a.yaml"});
  EXPECT_EQ(added->offers().size(), base->offers().size() + 1);
  const auto user_rated = [](const Catalog& c) {
    return std::count_if(c.offers().begin(), c.offers().end(),
                         [](const Offer& o) { return o.preemptions_per_hour == 0.77; });
  };
  EXPECT_GT(user_rated(*added), 1);
  EXPECT_EQ(user_rated(*base), 0);  // the catalog it was built from is unchanged
  // Files already given come first, as LoadFrom would order them.
  auto both = loaded->WithCustomFiles({dir / "b.yaml"});
  ASSERT_TRUE(both.has_value());
  auto both_loaded = Catalog::LoadFrom(data, {dir / "a.yaml", dir / "b.yaml"});
  ASSERT_TRUE(both_loaded.has_value());
  EXPECT_EQ(Described(*both), Described(*both_loaded));
  // Consuming the catalog it is built on gives the same catalog and leaves that one empty.
  auto consumed = Catalog::LoadFrom(data, {dir / "a.yaml"});
  ASSERT_TRUE(consumed.has_value());
  auto moved = std::move(*consumed).WithCustomFiles({dir / "b.yaml"});
  ASSERT_TRUE(moved.has_value()) << moved.error().message;
  EXPECT_EQ(Described(*moved), Described(*both_loaded));
  EXPECT_EQ(moved->info().custom_files, both_loaded->info().custom_files);
  EXPECT_TRUE(consumed->offers().empty());  // NOLINT(bugprone-use-after-move): checked on purpose
  // A bad custom file is the same error either way.
  frugal::testing::WriteTestFile(dir / "bad.yaml", "apiVersion: frugal/v1\noffers: 3\n");
  auto bad = base->WithCustomFiles({dir / "bad.yaml"});
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(bad.error().message, Catalog::LoadFrom(data, {dir / "bad.yaml"}).error().message);
}

// NamedBy walks the Id's pieces instead of formatting it: the same answer as the Id's prefix
// for every shipped offer, for names cut at every length and for other offers' names.
TEST(Catalog, NamedByIsThePrefixOfTheOffersId) {
  const std::vector<Offer>& offers = Shipped().offers();
  ASSERT_GT(offers.size(), 1000u);
  size_t checked = 0;
  for (size_t i = 0; i < offers.size(); i += 97) {
    const Offer& o = offers[i];
    const Offer& other = offers[(i * 7 + 13) % offers.size()];
    const std::string id = o.Id();
    std::vector<std::string> names = {o.instance_type,
                                      other.instance_type,
                                      other.Id(),
                                      id + "x",
                                      "",
                                      o.cloud + ":" + other.instance_type};
    for (size_t n = 1; n <= id.size(); n += 3) names.push_back(id.substr(0, n));
    for (const std::string& name : names) {
      const bool expected = name == o.instance_type || id.rfind(name, 0) == 0;
      EXPECT_EQ(o.NamedBy(name), expected) << id << " named by '" << name << "'";
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
  Offer zoned;
  zoned.cloud = "aws";
  zoned.instance_type = "p4d.24xlarge";
  zoned.region = "us-east-1";
  zoned.zone = "use1-az1";
  zoned.tier = CapacityTier::kSpot;
  EXPECT_TRUE(zoned.NamedBy("aws:p4d.24xlarge:us-east-1/use1-az1:sp"));
  EXPECT_TRUE(zoned.NamedBy("aws:p4d.24xlarge:us-east-1"));
  EXPECT_FALSE(zoned.NamedBy("aws:p4d.24xlarge:us-east-1:spot"));  // the zone comes first
}

}  // namespace
}  // namespace frugal::catalog

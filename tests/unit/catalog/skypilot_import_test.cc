#include "frugal/catalog/skypilot_import.h"

#include <gtest/gtest.h>

#include <map>

#include "frugal/catalog/cpu_instance.h"
#include "frugal/catalog/offer_table.h"
#include "support/test_support.h"

namespace frugal::catalog {
namespace {

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

const std::vector<std::string> kKnown = {"A100-40GB", "A100-80GB",     "L4",
                                         "T4",        "H100-80GB-SXM", "V100-16GB"};

const Offer* Find(const std::vector<Offer>& offers, std::string_view type, CapacityTier tier,
                  std::string_view zone = "") {
  for (const Offer& o : offers) {
    if (o.instance_type == type && o.tier == tier && o.zone == zone) return &o;
  }
  return nullptr;
}

TEST(ImportSkyPilot, PricesGcpGpuVmsAsHostPlusAccelerator) {
  TempDir dir;
  WriteTestFile(dir / "gcp_vms.csv",
                "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
                "AvailabilityZone,Price,SpotPrice\n"
                "a2-highgpu-1g,12.0,85.0,,,,us-central1,us-central1-a,0.73948,0.29\n"
                ",,,A100,1,\"{'Gpus': [{'MemoryInfo': {'SizeInMiB': "
                "40960}}]}\",us-central1,us-central1-a,2.93,1.1\n"
                "g2-standard-4,4.0,16.0,,,,us-central1,us-central1-a,0.2,0.08\n"
                "g2-standard-8,8.0,32.0,,,,us-central1,us-central1-a,0.3,0.12\n"
                ",,,L4,1,,us-central1,us-central1-a,0.5,0.2\n"
                ",,,A100,2,,us-central1,us-central1-a,5.86,2.2\n");
  auto r = ImportSkyPilot({dir.path()}, kKnown);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const Offer* a100 = Find(r->offers, "a2-highgpu-1g", CapacityTier::kOnDemand);
  ASSERT_NE(a100, nullptr);
  EXPECT_EQ(a100->price.per_hour, *Money::Parse("3.66948"));  // 0.73948 + 2.93
  EXPECT_EQ(a100->gpu, "A100-40GB");
  EXPECT_EQ(a100->vcpus, 12.0);
  const Offer* a100_spot = Find(r->offers, "a2-highgpu-1g", CapacityTier::kSpot, "us-central1-a");
  ASSERT_NE(a100_spot, nullptr);
  EXPECT_EQ(a100_spot->price.per_hour, *Money::Parse("1.39"));
  // One L4 fits several g2 hosts: each is an offer of its own.
  EXPECT_NE(Find(r->offers, "g2-standard-4", CapacityTier::kOnDemand), nullptr);
  EXPECT_EQ(Find(r->offers, "g2-standard-8", CapacityTier::kOnDemand)->price.per_hour,
            *Money::Parse("0.8"));
  // A100 ×2 needs a2-highgpu-2g, which this zone does not price.
  EXPECT_EQ(r->reports[0].skipped.at("GCP accelerator with no host VM priced in its zone"), 1u);
}

TEST(ImportSkyPilot, SkipsAndCountsUnusableRows) {
  TempDir dir;
  WriteTestFile(dir / "aws" / "vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
                "SpotPrice,Region,AvailabilityZone,Arch\n"
                "g4dn.xlarge,T4,1.0,4.0,16.0,,0.526,0.2,us-east-1,use1-az1,x86_64\n"
                "g4dn.xlarge,T4,1.0,4.0,16.0,,0.526,0.21,us-east-1,use1-az2,x86_64\n"
                "p5e.48xlarge,H100,8.0,192.0,2048.0,,,,us-east-1,use1-az1,x86_64\n"
                "p3.2xlarge,V100,1.0,8.0,61.0,,3.06,3.06,us-east-1,use1-az1,x86_64\n"
                "inf2.xlarge,Inferentia2,1.0,4.0,16.0,,0.76,0.3,us-east-1,use1-az1,x86_64\n"
                "g6f.large,L4,0.125,2.0,8.0,,0.2,0.1,us-east-1,use1-az1,x86_64\n"
                "g4dn.2xlarge,T4,1.0,8.0,32.0,,0.000001,,us-east-1,use1-az1,x86_64\n"
                "g4dn.4xlarge,T4,-1.0,16.0,64.0,,1.2,0.5,us-east-1,use1-az1,x86_64\n"
                "g4dn.8xlarge,T4,1.0,32.0,128.0,,-2.18,-0.9,us-east-1,use1-az1,x86_64\n");
  auto r = ImportSkyPilot({dir / "aws" / "vms.csv"}, kKnown);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const ImportReport& report = r->reports.at(0);
  EXPECT_EQ(report.cloud, "aws");
  EXPECT_EQ(report.rows_read, 9u);
  EXPECT_EQ(report.skipped.at("bad row: AcceleratorCount zero or negative"), 1u);
  EXPECT_EQ(report.skipped.at("bad row: negative on-demand Price"), 1u);
  EXPECT_EQ(report.skipped.at("bad row: negative SpotPrice"), 1u);
  // On-demand rows repeated per zone collapse to one regional offer; spot stays per zone.
  EXPECT_NE(Find(r->offers, "g4dn.xlarge", CapacityTier::kOnDemand), nullptr);
  EXPECT_NE(Find(r->offers, "g4dn.xlarge", CapacityTier::kSpot, "use1-az2"), nullptr);
  EXPECT_EQ(report.skipped.at("no on-demand price"), 1u);
  EXPECT_EQ(report.skipped.at("spot capped at the on-demand price (unavailable)"), 1u);
  EXPECT_EQ(report.unknown_gpus.at("Inferentia2"), 1u);
  EXPECT_EQ(report.skipped.at("fractional GPU"), 1u);
  EXPECT_EQ(report.skipped.at("absurd on-demand price"), 1u);
  for (const Offer& o : r->offers) EXPECT_GT(o.price.per_hour, Money());
}

// Importing a file replaces its cloud's offers; a file that yields none would delete them.
TEST(ImportSkyPilot, FileWithNoUsableRowsIsRefused) {
  TempDir dir;
  const std::string header =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,"
      "SpotPrice\n";
  WriteTestFile(dir / "ok" / "lambda_vms.csv",
                header + "gpu_1x_a10,L4,1.0,30.0,200.0,0.75,us-east-1,,\n");
  WriteTestFile(dir / "empty" / "aws_vms.csv", header);
  auto r = ImportSkyPilot({dir / "ok", dir / "empty"}, kKnown);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("aws_vms.csv: no usable rows (0 read), so no aws offers"),
            std::string::npos)
      << r.error().message;
  EXPECT_NE(r.error().message.find("nothing was imported"), std::string::npos);
  WriteTestFile(dir / "skipped" / "gcp_vms.csv", header +
                                                     "tpu,tpu-v4,1.0,30.0,200.0,0.75,us-east1,,\n"
                                                     "g6f,L4,0.5,30.0,200.0,0.75,us-east1,,\n");
  r = ImportSkyPilot({dir / "skipped"}, kKnown);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("no usable rows (2 read; skipped: 1 TPU (not a GPU), 1 "
                                   "fractional GPU)"),
            std::string::npos)
      << r.error().message;
}

TEST(ImportSkyPilot, MalformedPriceIsAnErrorNamingTheLine) {
  TempDir dir;
  WriteTestFile(dir / "lambda_vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,"
                "GpuInfo,SpotPrice\n"
                "gpu_1x_a10,A10,1.0,30.0,200.0,0.75,us-east-1,,\n"
                "gpu_1x_l4,L4,1.0,30.0,200.0,cheap,us-east-1,,\n");
  auto r = ImportSkyPilot({dir / "lambda_vms.csv"}, kKnown);
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code, ErrorCode::kBadInput);
  EXPECT_NE(r.error().message.find("lambda_vms.csv:3:29: field 'Price': malformed price 'cheap'"),
            std::string::npos)
      << r.error().message;
}

TEST(ImportSkyPilot, RefusesFilesNotInTheFormat) {
  TempDir dir;
  WriteTestFile(dir / "aws_vms.csv", "name,price\nfoo,1\n");
  auto r = ImportSkyPilot({dir / "aws_vms.csv"}, kKnown);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message.find("missing column 'InstanceType'"), std::string::npos);
  WriteTestFile(dir / "prices.csv", "InstanceType\n");
  auto unnamed = ImportSkyPilot({dir / "prices.csv"}, kKnown);
  ASSERT_FALSE(unnamed.has_value());
  EXPECT_NE(unnamed.error().message.find("cannot tell the cloud"), std::string::npos);
}

TEST(ImportSkyPilot, ImportsEveryShippedCloudFile) {
  const auto raw = frugal::testing::SharedDataDir() / "catalog";
  if (!std::filesystem::exists(raw)) GTEST_SKIP() << "raw price lists not beside the project";
  auto gpus = ReadGpuTable(frugal::testing::SourceDir() / "data" / "gpus.csv");
  ASSERT_TRUE(gpus.has_value());
  std::vector<std::string> known;
  for (const auto& g : *gpus) known.push_back(g.name);
  for (const char* cloud : {"aws", "gcp", "azure", "lambda", "vast"}) {
    auto r = ImportSkyPilot({raw / (std::string(cloud) + "_vms.csv")}, known);
    ASSERT_TRUE(r.has_value()) << cloud << ": " << r.error().message;
    EXPECT_GT(r->reports.at(0).offers, 50u) << cloud;
    EXPECT_TRUE(r->reports.at(0).unknown_gpus.empty()) << cloud;
    for (const Offer& o : r->offers) {
      EXPECT_GT(o.price.per_hour, Money()) << o.Id();
      EXPECT_GE(o.gpu_count, 1) << o.Id();
    }
  }
}

}  // namespace
}  // namespace frugal::catalog

namespace frugal::catalog {
namespace {

TEST(ImportSkyPilot, ImportsCpuInstancesOfTheGeneralMemoryAndComputeFamilies) {
  TempDir dir;
  const std::string header =
      "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,SpotPrice,"
      "Region,AvailabilityZone,Arch\n";
  WriteTestFile(dir / "aws_cpu_vms.csv",
                header +
                    "r6i.2xlarge,,,8.0,64.0,,0.504,0.1512,us-east-1,use1-az1,x86_64\n"
                    "r6i.2xlarge,,,8.0,64.0,,0.504,0.16,us-east-1,use1-az2,x86_64\n"
                    "m6i.xlarge,,,4.0,16.0,,0.192,,us-east-1,use1-az1,x86_64\n"
                    "t3.micro,,,2.0,1.0,,0.0104,0.003,us-east-1,use1-az1,x86_64\n");
  auto r = ImportSkyPilot({dir / "aws_cpu_vms.csv"}, kKnown);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  const ImportReport& report = r->reports.at(0);
  // <cloud>_cpu_vms.csv is a price list of the same cloud.
  EXPECT_EQ(report.cloud, "aws");
  const Offer* r6i = Find(r->offers, "r6i.2xlarge", CapacityTier::kOnDemand);
  ASSERT_NE(r6i, nullptr);
  EXPECT_TRUE(r6i->gpu.empty());
  EXPECT_EQ(r6i->gpu_count, 0);
  EXPECT_EQ(r6i->vcpus, 8.0);
  EXPECT_EQ(r6i->ram_gib, 64.0);
  EXPECT_EQ(r6i->price.per_hour, *Money::Parse("0.504"));
  EXPECT_EQ(ClassifyCpuOffer(*r6i), CpuClass::kMemory);
  const Offer* spot = Find(r->offers, "r6i.2xlarge", CapacityTier::kSpot, "use1-az2");
  ASSERT_NE(spot, nullptr);
  EXPECT_EQ(spot->price.per_hour, *Money::Parse("0.16"));
  EXPECT_EQ(ClassifyCpuOffer(*Find(r->offers, "m6i.xlarge", CapacityTier::kOnDemand)),
            CpuClass::kGeneral);
  // Burstable t3 is outside the imported families: skipped and counted, not silently dropped.
  EXPECT_EQ(Find(r->offers, "t3.micro", CapacityTier::kOnDemand), nullptr);
  EXPECT_EQ(
      report.skipped.at("CPU instance outside the imported general, memory and compute families"),
      1u);
  EXPECT_EQ(report.offers, 4u);  // r6i on-demand + 2 spot zones, m6i on-demand
}

TEST(ImportSkyPilot, GcpHostRowsOfGpuVmsAreNotCpuOffers) {
  TempDir dir;
  WriteTestFile(dir / "gcp_vms.csv",
                "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,GpuInfo,Region,"
                "AvailabilityZone,Price,SpotPrice\n"
                "n1-highmem-8,8.0,52.0,,,,us-central1,us-central1-a,0.47,0.1\n"
                "c2-standard-8,8.0,32.0,,,,us-central1,us-central1-a,0.42,0.1\n"
                ",,,T4,1,,us-central1,us-central1-a,0.35,0.14\n");
  auto r = ImportSkyPilot({dir / "gcp_vms.csv"}, kKnown);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  int cpu_offers = 0;
  for (const Offer& o : r->offers) {
    if (!o.gpu.empty()) continue;
    ++cpu_offers;
    EXPECT_EQ(o.instance_type, "c2-standard-8");
  }
  EXPECT_EQ(cpu_offers, 2);  // on-demand and spot
  EXPECT_EQ(r->reports[0].skipped.at("GCP host VM row (joined with accelerators)"), 1u);
  const Offer* t4 = Find(r->offers, "n1-highmem-8", CapacityTier::kOnDemand);
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->gpu, "T4");
}

// A marketplace row that names the RTX 3060 but states 8 GB (an RTX 3060 Ti) is another part:
// skipped and counted, while a row stating the part's own memory is kept.
TEST(ImportSkyPilot, ARowStatingLessMemoryThanTheNamedPartIsAnotherPart) {
  TempDir dir;
  WriteTestFile(dir / "vast_vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
                "SpotPrice,Region\n"
                "1x-RTX_3060_Ti,RTX3060,1,32,64.0,\"{'Gpus': [{'Name': 'RTX3060', 'Count': 1, "
                "'MemoryInfo': {'SizeInMiB': 8192}}]}\",0.16,0.00,\"Ontario, CA, NA\"\n"
                "4x-RTX_3060,RTX3060,4,32,64.0,\"{'Gpus': [{'Name': 'RTX3060', 'Count': 4, "
                "'MemoryInfo': {'SizeInMiB': 49152}}]}\",0.21,0.00,\"Hong Kong, HK, AS\"\n");
  const std::vector<std::string> known = {"RTX3060"};
  const std::map<std::string, double> memory = {{"RTX3060", 12}};
  auto r = ImportSkyPilot({dir / "vast_vms.csv"}, known, nullptr, &memory);
  ASSERT_TRUE(r.has_value()) << r.error().message;
  ASSERT_EQ(r->offers.size(), 1u);
  EXPECT_EQ(r->offers[0].instance_type, "4x-RTX_3060");
  EXPECT_EQ(r->reports[0].skipped.at(
                "GPU memory below the named part's (another part under the same name)"),
            1u);
  // Without the memory table the importer cannot tell, and keeps both.
  auto blind = ImportSkyPilot({dir / "vast_vms.csv"}, known);
  ASSERT_TRUE(blind.has_value());
  EXPECT_EQ(blind->offers.size(), 2u);
}

}  // namespace
}  // namespace frugal::catalog

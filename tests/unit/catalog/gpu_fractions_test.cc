#include "frugal/catalog/gpu_fractions.h"

#include <gtest/gtest.h>

#include "frugal/catalog/offer_table.h"
#include "frugal/catalog/skypilot_import.h"
#include "support/test_support.h"

namespace frugal::catalog {
namespace {

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

const std::string kHeader = "cloud,instance_type,gpu,gpu_share,source_url\n";

TEST(GpuShares, ShippedTableKnowsTheAzurePartitions) {
  auto shares = LoadShippedGpuShares();
  ASSERT_TRUE(shares) << shares.error().message;
  const GpuShare* nv4 = shares->Find("azure", "Standard_NV4as_v4");
  ASSERT_NE(nv4, nullptr);
  EXPECT_DOUBLE_EQ(nv4->share, 0.125);
  EXPECT_EQ(nv4->gpu, "MI25");
  EXPECT_NE(nv4->source_url.find("learn.microsoft.com"), std::string::npos);
  ASSERT_NE(shares->Find("azure", "Standard_NV6ads_A10_v5"), nullptr);
  EXPECT_NEAR(shares->Find("azure", "Standard_NV6ads_A10_v5")->share, 1.0 / 6, 1e-5);
  EXPECT_EQ(shares->Find("azure", "Standard_ND96asr_v4"), nullptr);
}

TEST(GpuShares, BadShareNamesTheField) {
  auto shares = GpuShares::Parse(kHeader + "azure,X,A10,1.5,u\n", "fractions.csv");
  ASSERT_FALSE(shares);
  EXPECT_EQ(shares.error().code, ErrorCode::kBadInput);
  EXPECT_NE(shares.error().message.find("fractions.csv:2:"), std::string::npos)
      << shares.error().message;
  EXPECT_NE(shares.error().message.find("gpu_share"), std::string::npos);
  EXPECT_FALSE(GpuShares::Parse(kHeader + "azure,X,A10,0,u\n", "f.csv"));
  EXPECT_FALSE(GpuShares::Parse(kHeader + "azure,X,A10,0.5,u\nazure,X,A10,0.5,u\n", "f.csv"));
}

TEST(GpuShares, LabelsTheShareAsAFraction) {
  EXPECT_EQ(ShareLabel(0.125), "1/8");
  EXPECT_EQ(ShareLabel(0.166667), "1/6");
  EXPECT_EQ(ShareLabel(0.5), "1/2");
}

// The NVv4 rows say AcceleratorCount 1 and the NVadsA10 v5 rows a fraction: the shipped
// table's share wins over the first and makes the second importable.
TEST(ImportSkyPilot, GpuSharesComeFromTheTableNotTheRowsCount) {
  TempDir dir;
  WriteTestFile(dir / "azure_vms.csv",
                "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,GpuInfo,Price,"
                "SpotPrice,Region,Generation\n"
                "Standard_NV4as_v4,MI25,1,4,14,MI25,0.233,0.0366,eastus,V1\n"
                "Standard_NV32as_v4,MI25,1,32,112,MI25,1.864,0.34,eastus,V1\n"
                "Standard_NV6ads_A10_v5,A10,0.167,6,55,A10,0.454,0.08,eastus,V2\n"
                "Standard_NVx_v9,A10,0.25,6,55,A10,0.454,0.08,eastus,V2\n");
  auto shares = LoadShippedGpuShares();
  ASSERT_TRUE(shares);
  auto r = ImportSkyPilot({dir.path()}, {"MI25", "A10"}, &*shares);
  ASSERT_TRUE(r) << r.error().message;
  std::map<std::string, const Offer*> on_demand;
  for (const Offer& o : r->offers) {
    if (o.tier == CapacityTier::kOnDemand) on_demand[o.instance_type] = &o;
  }
  ASSERT_TRUE(on_demand.contains("Standard_NV4as_v4"));
  EXPECT_DOUBLE_EQ(on_demand["Standard_NV4as_v4"]->gpu_fraction, 0.125);
  EXPECT_TRUE(on_demand["Standard_NV4as_v4"]->IsGpuShare());
  // $0.233 for an eighth of a GPU is $1.864 per GPU-hour, the whole GPU's price.
  EXPECT_EQ(on_demand["Standard_NV4as_v4"]->PricePerGpuHour(), *Money::Parse("1.864"));
  EXPECT_DOUBLE_EQ(on_demand["Standard_NV32as_v4"]->gpu_fraction, 1.0);
  ASSERT_TRUE(on_demand.contains("Standard_NV6ads_A10_v5"));
  EXPECT_NEAR(on_demand["Standard_NV6ads_A10_v5"]->gpu_fraction, 1.0 / 6, 1e-5);
  EXPECT_EQ(on_demand["Standard_NV6ads_A10_v5"]->gpu_count, 1);
  // A fraction the table does not list is still skipped.
  EXPECT_FALSE(on_demand.contains("Standard_NVx_v9"));
  EXPECT_EQ(r->reports[0].skipped.at("fractional GPU"), 1u);
  EXPECT_EQ(r->reports[0].gpu_shares, 2u);  // NV32as_v4 holds a whole GPU

  // The share survives the offer table.
  TempDir out;
  ASSERT_TRUE(WriteOfferTable(out.path(), r->offers, SnapshotMeta{}));
  auto back = ReadOfferTable(out / "offers.csv", OfferSource::kImported);
  ASSERT_TRUE(back) << back.error().message;
  bool seen = false;
  for (const Offer& o : *back) {
    if (o.instance_type != "Standard_NV4as_v4") continue;
    seen = true;
    EXPECT_DOUBLE_EQ(o.gpu_fraction, 0.125);
  }
  EXPECT_TRUE(seen);
}

}  // namespace
}  // namespace frugal::catalog

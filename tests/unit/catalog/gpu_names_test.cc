#include "frugal/catalog/gpu_names.h"

#include <gtest/gtest.h>

namespace frugal::catalog {
namespace {

TEST(NormalizeGpuName, TellsMemorySizesApartFromGpuInfo) {
  EXPECT_EQ(NormalizeGpuName({"aws", "A100", "p4d.24xlarge", 40.0}), "A100-40GB");
  EXPECT_EQ(NormalizeGpuName({"vast", "A100", "1x-A100_SXM4", 80.0}), "A100-80GB");
  EXPECT_EQ(NormalizeGpuName({"azure", "A100", "Standard_ND96asr_v4", std::nullopt}), "A100-40GB");
  EXPECT_EQ(NormalizeGpuName({"aws", "A100-80GB", "p4de.24xlarge", 80.0}), "A100-80GB");
  EXPECT_EQ(NormalizeGpuName({"aws", "V100", "p3.2xlarge", 16.0}), "V100-16GB");
  EXPECT_EQ(NormalizeGpuName({"vast", "V100", "1x-V100", 32.0}), "V100-32GB");
  EXPECT_EQ(NormalizeGpuName({"aws", "V100-32GB", "p3dn.24xlarge", 32.0}), "V100-32GB");
}

TEST(NormalizeGpuName, TellsH100SxmFromPcieWhereTheDataSays) {
  EXPECT_EQ(NormalizeGpuName({"lambda", "H100", "gpu_1x_h100_pcie", 80.0}), "H100-80GB-PCIe");
  EXPECT_EQ(NormalizeGpuName({"lambda", "H100", "gpu_8x_h100_sxm5", 80.0}), "H100-80GB-SXM");
  EXPECT_EQ(NormalizeGpuName({"azure", "H100", "Standard_NC40ads_H100_v5", std::nullopt}),
            "H100-80GB-PCIe");
  EXPECT_EQ(NormalizeGpuName({"azure", "H100", "Standard_ND96isr_H100_v5", std::nullopt}),
            "H100-80GB-SXM");
  EXPECT_EQ(NormalizeGpuName({"gcp", "H100-MEGA", "", 80.0}), "H100-80GB-SXM");
  EXPECT_EQ(NormalizeGpuName({"vast", "H100", "1x-H100_NVL", 93.6}), "H100-80GB-PCIe");
  EXPECT_EQ(NormalizeGpuName({"aws", "L4", "g6.12xlarge", 24.0}), "L4");
}

TEST(ResolveGpuName, AcceptsCanonicalNamesAliasesAndFamilies) {
  const std::vector<std::string> known = {"A100-40GB",      "A100-80GB", "H100-80GB-SXM",
                                          "H100-80GB-PCIe", "L4",        "V100-16GB"};
  EXPECT_EQ(ResolveGpuName("a100-80gb", known), std::vector<std::string>{"A100-80GB"});
  // A family names every part of it (catalog offers --gpu a100 lists both sizes); where one
  // GPU must be chosen the name is refused as ambiguous (Catalog::RequireGpu).
  EXPECT_EQ(ResolveGpuName("A100", known), (std::vector<std::string>{"A100-40GB", "A100-80GB"}));
  EXPECT_EQ(ResolveGpuName("V100", known), std::vector<std::string>{"V100-16GB"});
  EXPECT_EQ(ResolveGpuName("a100-40g", known), std::vector<std::string>{"A100-40GB"});
  EXPECT_EQ(ResolveGpuName("H100", known).size(), 2u);
  EXPECT_TRUE(ResolveGpuName("A100-90GB", known).empty());
  // The PCIe part is its own row (data/gpus.csv), in the family and by its own alias.
  const std::vector<std::string> with_pcie = {"A100-40GB", "A100-80GB", "A100-80GB-PCIe"};
  EXPECT_EQ(ResolveGpuName("a100-pcie", with_pcie), std::vector<std::string>{"A100-80GB-PCIe"});
  EXPECT_EQ(ResolveGpuName("A100", with_pcie).size(), 3u);
}

}  // namespace
}  // namespace frugal::catalog

#include "frugal/estimate/network.h"

#include <gtest/gtest.h>

#include "support/test_support.h"

namespace frugal::estimate {
namespace {

TEST(NetworkTable, ShippedTableGivesPerCloudFigures) {
  auto table = ReadNetworkTable(testing::SourceDir() / "data" / "catalog" / "network.csv");
  ASSERT_TRUE(table) << table.error().message;
  EXPECT_EQ(NetworkGbpsFor(*table, "aws", "p4d.24xlarge"), 400);
  EXPECT_EQ(NetworkGbpsFor(*table, "AWS", "p5.48xlarge"), 3200);
  EXPECT_EQ(NetworkGbpsFor(*table, "azure", "Standard_ND96amsr_A100_v4"), 1600);
  EXPECT_FALSE(NetworkGbpsFor(*table, "aws", "no-such-instance"));
  EXPECT_EQ(BestNetworkGbps(*table, "H100-80GB-SXM"), 3200);
  EXPECT_EQ(BestNetworkGbps(*table, "A100-80GB"), 1600);
  EXPECT_FALSE(BestNetworkGbps(*table, "L4"));
}

TEST(NetworkTable, BadBandwidthNamesFileLineAndColumn) {
  testing::TempDir dir;
  testing::WriteTestFile(dir / "n.csv",
                         "cloud,instance_type,gpu,network_gbps,fabric,source_url,notes\n"
                         "aws,p5.48xlarge,H100-80GB-SXM,fast,efa,https://example.com,\n");
  auto table = ReadNetworkTable(dir / "n.csv");
  ASSERT_FALSE(table);
  EXPECT_EQ(table.error().code, ErrorCode::kBadInput);
  EXPECT_NE(table.error().message.find("n.csv:2:"), std::string::npos) << table.error().message;
  EXPECT_NE(table.error().message.find("network_gbps"), std::string::npos);
}

}  // namespace
}  // namespace frugal::estimate

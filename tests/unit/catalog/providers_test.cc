#include "frugal/catalog/providers.h"

#include <gtest/gtest.h>

#include "frugal/catalog/catalog.h"
#include "support/test_support.h"

namespace frugal::catalog {
namespace {

TEST(Providers, TheShippedTableNamesVastAndOnlyVastAMarketplace) {
  auto c = Catalog::LoadFrom(testing::SourceDir() / "data");
  ASSERT_TRUE(c) << c.error().message;
  EXPECT_TRUE(c->IsMarketplace("vast"));
  for (const char* cloud : {"aws", "gcp", "azure", "lambda", "test"}) {
    EXPECT_FALSE(c->IsMarketplace(cloud)) << cloud;
  }
}

TEST(Providers, BadRowsNameFileLineAndField) {
  testing::TempDir dir;
  const auto path = dir.path() / "providers.csv";
  testing::WriteTestFile(path, "cloud,hosts,source\naws,provider,x\nvast,market,y\n");
  auto bad = ReadMarketplaces(path);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("providers.csv:3"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("field 'hosts': expected provider or marketplace, got "
                                     "'market'"),
            std::string::npos)
      << bad.error().message;
  testing::WriteTestFile(path, "cloud,hosts,source\nvast,marketplace,x\nVast,provider,y\n");
  bad = ReadMarketplaces(path);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("field 'cloud': 'Vast' is empty or listed twice"),
            std::string::npos)
      << bad.error().message;
  testing::WriteTestFile(path, "cloud,hosts,source\nvast,marketplace,x\naws,provider,y\n");
  auto ok = ReadMarketplaces(path);
  ASSERT_TRUE(ok) << ok.error().message;
  EXPECT_EQ(*ok, (std::set<std::string, std::less<>>{"vast"}));
}

}  // namespace
}  // namespace frugal::catalog

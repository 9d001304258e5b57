// The transfer-price table: egress by route, storage, and malformed rows named by file:line.

#include "frugal/catalog/transfer_prices.h"

#include <gtest/gtest.h>

namespace frugal::catalog {
namespace {

constexpr const char* kHeader =
    "cloud,inter_region_usd_per_gb,internet_usd_per_gb,object_storage_usd_per_gb_month\n";

TEST(TransferPrices, EgressIsFreeInTheRegionInterRegionInACloudAndInternetAcross) {
  auto t = TransferPrices::Parse(std::string(kHeader) + "AWS,0.02,0.09,0.023\ngcp,0.02,0.12,0.02\n",
                                 "t.csv");
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_EQ(*t->EgressPerGb("aws", "ap-south-1", "aws", "ap-south-1"), Money());
  EXPECT_EQ(*t->EgressPerGb("aws", "ap-south-1", "aws", "us-east-1"), Money::FromCents(2));
  EXPECT_EQ(*t->EgressPerGb("aws", "ap-south-1", "gcp", "us-central1"), Money::FromCents(9));
  EXPECT_EQ(*t->EgressPerGb("gcp", "us-central1", "aws", "us-east-1"), Money::FromCents(12));
  EXPECT_FALSE(t->EgressPerGb("lambda", "us-south-1", "aws", "us-east-1"));
  EXPECT_EQ(t->Find("GCP")->storage_per_gb_month, Money::FromCents(2));
  EXPECT_EQ(t->Clouds(), (std::vector<std::string>{"aws", "gcp"}));
}

TEST(TransferPrices, MalformedRowsNameFileLineAndField) {
  auto bad = TransferPrices::Parse(std::string(kHeader) + "aws,0.02,free,0.023\n", "t.csv");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().code, ErrorCode::kBadInput);
  EXPECT_NE(bad.error().message.find("t.csv:2:"), std::string::npos) << bad.error().message;
  EXPECT_NE(bad.error().message.find("'internet_usd_per_gb'"), std::string::npos);
  auto twice = TransferPrices::Parse(std::string(kHeader) + "aws,1,1,1\nAWS,1,1,1\n", "t.csv");
  ASSERT_FALSE(twice);
  EXPECT_NE(twice.error().message.find("listed twice"), std::string::npos);
}

TEST(TransferPrices, TheShippedTableLoads) {
  auto t = LoadShippedTransferPrices();
  ASSERT_TRUE(t) << t.error().message;
  EXPECT_NE(t->Find("aws"), nullptr);
  EXPECT_NE(t->Find("gcp"), nullptr);
  EXPECT_NE(t->Find("azure"), nullptr);
}

}  // namespace
}  // namespace frugal::catalog

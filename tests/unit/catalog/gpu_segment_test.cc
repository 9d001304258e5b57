// Who a GPU is sold to, as data/gpus.csv states it: GeForce boards are consumer parts, the
// professional RTX boards workstation parts, the rest data-centre parts; a value the table does
// not know is bad input naming the file, line and field.

#include <gtest/gtest.h>

#include "frugal/catalog/gpu.h"
#include "frugal/catalog/offer_table.h"
#include "support/test_support.h"

namespace frugal::catalog {
namespace {

TEST(GpuSegment, TheShippedTableSaysWhoEachBoardIsSoldTo) {
  auto gpus = ReadGpuTable(frugal::testing::SourceDir() / "data" / "gpus.csv");
  ASSERT_TRUE(gpus) << gpus.error().message;
  std::map<std::string, GpuSegment> segment;
  for (const GpuSpec& g : *gpus) segment[g.name] = g.segment;
  EXPECT_EQ(segment.at("RTX4090"), GpuSegment::kConsumer);
  EXPECT_EQ(segment.at("RTX3090"), GpuSegment::kConsumer);
  EXPECT_EQ(segment.at("RTXA6000"), GpuSegment::kWorkstation);
  EXPECT_EQ(segment.at("RTX6000-Ada"), GpuSegment::kWorkstation);
  EXPECT_EQ(segment.at("RTX6000"), GpuSegment::kWorkstation);  // Quadro RTX 6000, not GeForce
  EXPECT_EQ(segment.at("A100-80GB"), GpuSegment::kDataCentre);
  EXPECT_EQ(segment.at("L4"), GpuSegment::kDataCentre);
}

TEST(GpuSegment, EachNameReadsBackAndAnUnknownOneIsBadInputNamingTheField) {
  for (const GpuSegment s :
       {GpuSegment::kDataCentre, GpuSegment::kWorkstation, GpuSegment::kConsumer}) {
    EXPECT_EQ(ParseGpuSegment(GpuSegmentName(s)), s);
  }
  frugal::testing::TempDir dir;
  const auto path = dir.path() / "gpus.csv";
  frugal::testing::WriteTestFile(
      path,
      "name,memory_gib,memory_bandwidth_gbps,fp32_tflops,tf32_tflops,bf16_tflops,fp8_tflops,"
      "nvlink_gbps,tdp_watts,architecture,release_year,supports_bf16,tensor_cores,estimated,"
      "source_url,notes,segment\n"
      "X1,24,900,10,20,40,,,300,Ampere,2021,true,true,false,,,data_centre\n"
      "X2,24,900,10,20,40,,,300,Ampere,2021,true,true,false,,,gaming\n");
  auto read = ReadGpuTable(path);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::kBadInput);
  EXPECT_NE(read.error().message.find(":3"), std::string::npos) << read.error().message;
  EXPECT_NE(read.error().message.find("field 'segment': unknown segment 'gaming'"),
            std::string::npos)
      << read.error().message;
}

}  // namespace
}  // namespace frugal::catalog

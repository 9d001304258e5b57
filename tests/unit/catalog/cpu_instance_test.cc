#include "frugal/catalog/cpu_instance.h"

#include <gtest/gtest.h>

namespace frugal::catalog {
namespace {

TEST(CpuInstance, FamiliesHaveTheirCloudsClass) {
  EXPECT_EQ(ImportedCpuFamily("aws", "m7i.4xlarge"), CpuClass::kGeneral);
  EXPECT_EQ(ImportedCpuFamily("aws", "c6i.large"), CpuClass::kCompute);
  EXPECT_EQ(ImportedCpuFamily("aws", "x2idn.16xlarge"), CpuClass::kMemory);
  // GCP's c2-standard has 4 GiB per vCPU but is Google's compute-optimized series.
  EXPECT_EQ(ImportedCpuFamily("gcp", "c2-standard-8"), CpuClass::kCompute);
  EXPECT_EQ(ImportedCpuFamily("gcp", "n2-highmem-16"), CpuClass::kMemory);
  EXPECT_EQ(ImportedCpuFamily("azure", "Standard_D8s_v5"), CpuClass::kGeneral);
  EXPECT_EQ(ImportedCpuFamily("azure", "Standard_E64s_v5"), CpuClass::kMemory);
  EXPECT_EQ(ImportedCpuFamily("azure", "Standard_F16s_v2"), CpuClass::kCompute);
  EXPECT_EQ(ImportedCpuFamily("azure", "Standard_M128s"), CpuClass::kMemory);
  // Not imported: other versions and features, burstable, GPU hosts, another cloud's name.
  EXPECT_EQ(ImportedCpuFamily("azure", "Standard_D8ds_v5"), std::nullopt);
  EXPECT_EQ(ImportedCpuFamily("azure", "Standard_Ds_v5"), std::nullopt);
  EXPECT_EQ(ImportedCpuFamily("aws", "t3.micro"), std::nullopt);
  EXPECT_EQ(ImportedCpuFamily("gcp", "a2-highgpu-1g"), std::nullopt);
  EXPECT_EQ(ImportedCpuFamily("gcp", "m6i.large"), std::nullopt);
}

TEST(CpuInstance, CustomOffersAreClassedByMemoryPerVcpu) {
  Offer o;
  o.cloud = "onprem";
  o.instance_type = "box";
  o.vcpus = 16;
  o.ram_gib = 32;
  EXPECT_EQ(ClassifyCpuOffer(o), CpuClass::kCompute);
  o.ram_gib = 64;
  EXPECT_EQ(ClassifyCpuOffer(o), CpuClass::kGeneral);
  o.ram_gib = 128;
  EXPECT_EQ(ClassifyCpuOffer(o), CpuClass::kMemory);
}

TEST(CpuInstance, ParsesClassNames) {
  EXPECT_EQ(ParseCpuClass("memory-optimized"), CpuClass::kMemory);
  EXPECT_EQ(ParseCpuClass("Compute"), CpuClass::kCompute);
  auto bad = ParseCpuClass("gpu");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("expected general, memory or compute"), std::string::npos);
}

}  // namespace
}  // namespace frugal::catalog

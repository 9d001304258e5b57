// Device names as NVML (nvmlDeviceGetName) and PyTorch (torch.cuda.get_device_name) print them,
// mapped to the shipped GPU table's names, so a profile taken on a real GPU feeds the cross-GPU
// model.

#include <gtest/gtest.h>

#include "frugal/catalog/catalog.h"
#include "frugal/catalog/gpu_names.h"
#include "support/test_support.h"

namespace frugal::catalog {
namespace {

const std::vector<std::string>& ShippedNames() {
  static const std::vector<std::string> names = [] {
    auto loaded = Catalog::LoadFrom(frugal::testing::SourceDir() / "data");
    EXPECT_TRUE(loaded.has_value()) << loaded.error().message;
    return loaded ? loaded->gpu_names() : std::vector<std::string>();
  }();
  return names;
}

TEST(GpuFromDeviceName, MapsTheNamesNvmlAndPytorchPrint) {
  const struct {
    const char* device;
    const char* gpu;
  } kCases[] = {
      {"NVIDIA A100-SXM4-80GB", "A100-80GB"},
      {"NVIDIA A100-SXM4-40GB", "A100-40GB"},
      {"NVIDIA A100-PCIE-40GB", "A100-40GB"},
      {"NVIDIA A100 80GB PCIe", "A100-80GB"},
      {"Tesla T4", "T4"},
      {"NVIDIA T4G", "T4g"},
      {"NVIDIA H100 80GB HBM3", "H100-80GB-SXM"},
      {"NVIDIA H100 PCIe", "H100-80GB-PCIe"},
      {"NVIDIA H100 NVL", "H100-80GB-PCIe"},
      {"NVIDIA H200", "H200"},
      {"NVIDIA GH200 480GB", "GH200"},
      {"NVIDIA B200", "B200"},
      {"NVIDIA GeForce RTX 4090", "RTX4090"},
      {"NVIDIA GeForce RTX 3090", "RTX3090"},
      {"NVIDIA GeForce RTX 5090", "RTX5090"},
      {"NVIDIA A10G", "A10G"},
      {"NVIDIA A10", "A10"},
      {"NVIDIA L4", "L4"},
      {"NVIDIA L40S", "L40S"},
      {"NVIDIA L40", "L40"},
      {"NVIDIA A40", "A40"},
      {"NVIDIA RTX A6000", "RTXA6000"},
      {"NVIDIA RTX A5000", "RTXA5000"},
      {"NVIDIA RTX A4000", "RTXA4000"},
      {"NVIDIA RTX 6000 Ada Generation", "RTX6000-Ada"},
      {"NVIDIA RTX 4000 Ada Generation", "RTX4000-Ada"},
      {"Quadro RTX 6000", "RTX6000"},
      {"Quadro RTX 8000", "RTX8000"},
      {"NVIDIA RTX PRO 6000 Blackwell Workstation Edition", "RTXPRO6000WS"},
      {"Tesla V100-SXM2-16GB", "V100-16GB"},
      {"Tesla V100-SXM2-32GB", "V100-32GB"},
      {"Tesla V100-PCIE-16GB", "V100-16GB"},
      {"Tesla P100-PCIE-16GB", "P100"},
      {"Tesla P4", "P4"},
      {"Tesla M60", "M60"},
      {"Tesla K80", "K80"},
      {"AMD Instinct MI300X", "MI300X"},
      // The catalog's own names, as a user or a test would type them.
      {"A100-80GB", "A100-80GB"},
      {"t4", "T4"},
  };
  for (const auto& c : kCases) {
    const std::optional<std::string> gpu = GpuFromDeviceName(c.device, ShippedNames());
    ASSERT_TRUE(gpu.has_value()) << c.device;
    EXPECT_EQ(*gpu, c.gpu) << c.device;
  }
}

TEST(GpuFromDeviceName, KeepsPartsTheTableDoesNotListUnmapped) {
  // Variants a near name would misprice: a faster Ti, the V100S's wider memory, a China-market
  // A800; the profile keeps them and the plan reports them as unmatched.
  for (const char* device :
       {"NVIDIA GeForce RTX 3090 Ti", "Tesla V100S-PCIE-32GB", "NVIDIA A800-SXM4-80GB",
        "NVIDIA H20", "NVIDIA RTX PRO 6000 Blackwell Server Edition",
        "NVIDIA H100 80GB HBM3 (mixed)", "NVIDIA", "", "AMD EPYC 7B13",
        "Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz"}) {
    EXPECT_FALSE(GpuFromDeviceName(device, ShippedNames()).has_value()) << device;
  }
}

TEST(GpuFromDeviceName, HostileNamesAreNeverACrash) {
  EXPECT_FALSE(GpuFromDeviceName(std::string(100000, 'x'), ShippedNames()).has_value());
  EXPECT_FALSE(GpuFromDeviceName("99999999999999999999GB", ShippedNames()).has_value());
  EXPECT_FALSE(GpuFromDeviceName(std::string("T4\0x", 4), ShippedNames()).has_value());
  EXPECT_FALSE(GpuFromDeviceName("T4", {}).has_value());
}

}  // namespace
}  // namespace frugal::catalog

#pragma once
// GPU name normalization. Price lists name accelerators loosely ("A100" for both memory sizes on
// some clouds, "H100" for SXM and PCIe parts); frugal keys everything on one canonical name per
// distinct part, the names of data/gpus.csv.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace frugal::catalog {

/// What a price-list row says about its accelerator.
struct AcceleratorHint {
  std::string_view cloud;
  std::string_view accelerator_name;  ///< SkyPilot's AcceleratorName
  std::string_view instance_type;
  std::optional<double> memory_gib_per_gpu;  ///< from GpuInfo, when given
};

/// The canonical name for a price-list accelerator:
///   A100 → A100-80GB when GpuInfo says ≥ 70 GiB per GPU, else A100-40GB;
///   V100 → V100-32GB when ≥ 24 GiB, else V100-16GB;
///   H100 → H100-80GB-PCIe when the instance type says pcie, on Azure NC-series VMs (PCIe/NVL
///   cards; ND-series are SXM) and on 94 GB parts; otherwise H100-80GB-SXM (H100-MEGA included);
///   "Radeon MI25" → MI25; every other name is kept as it is.
std::string NormalizeGpuName(const AcceleratorHint& hint);

/// Canonical names a user-typed name refers to, case-insensitively: the canonical name itself,
/// an alias (A100-80G → A100-80GB, H100-SXM → H100-80GB-SXM) or a family (A100 → both A100
/// memory sizes, V100 → both V100 sizes, H100 → both H100 parts). Empty when the name is
/// unknown to `known`. The one rule every command follows: listings take all the names; where
/// one GPU must be chosen, more than one name is refused as ambiguous (AmbiguousGpuMessage).
std::vector<std::string> ResolveGpuName(std::string_view name,
                                        const std::vector<std::string>& known);

/// "'H100' is ambiguous (H100-80GB-SXM, H100-80GB-PCIe); name the exact part".
std::string AmbiguousGpuMessage(std::string_view name, const std::vector<std::string>& names);

/// The canonical name of the GPU a device name from NVML or PyTorch
/// (`torch.cuda.get_device_name`) denotes: "NVIDIA A100-SXM4-80GB" → A100-80GB, "Tesla T4" →
/// T4, "NVIDIA H100 80GB HBM3" → H100-80GB-SXM, "NVIDIA H100 PCIe" and "NVIDIA H100 NVL" →
/// H100-80GB-PCIe, "NVIDIA GeForce RTX 4090" → RTX4090, "NVIDIA RTX A6000" → RTXA6000,
/// "NVIDIA RTX 6000 Ada Generation" → RTX6000-Ada, "Tesla V100-SXM2-32GB" → V100-32GB. The
/// vendor and product-line words (NVIDIA, Tesla, GeForce, Quadro, AMD Instinct), the form factor
/// (SXM, PCIe) and the memory size are set aside, except where they tell two parts apart (A100
/// and V100 memory sizes, H100 SXM and PCIe); what remains must equal a name in `known`, compared
/// without case, spaces or dashes. nullopt for a name that denotes no part in `known` (a variant
/// the table does not list, such as "RTX 3090 Ti" or "V100S"): the caller keeps and reports it.
std::optional<std::string> GpuFromDeviceName(std::string_view device,
                                             const std::vector<std::string>& known);

}  // namespace frugal::catalog

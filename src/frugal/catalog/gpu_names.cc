#include "frugal/catalog/gpu_names.h"

#include <algorithm>

#include "frugal/core/text.h"

namespace frugal::catalog {

std::string NormalizeGpuName(const AcceleratorHint& hint) {
  const std::string name(hint.accelerator_name);
  const std::string type = ToLower(hint.instance_type);
  const double memory = hint.memory_gib_per_gpu.value_or(0);
  if (name == "A100") return memory >= 70 ? "A100-80GB" : "A100-40GB";
  if (name == "A100-80GB" || name == "A100-80GB-SXM") return "A100-80GB";
  if (name == "V100") return memory >= 24 ? "V100-32GB" : "V100-16GB";
  if (name == "H100" || name == "H100-MEGA" || name == "H100-SXM") {
    const bool pcie = type.find("pcie") != std::string::npos ||
                      (hint.cloud == "azure" && type.starts_with("standard_nc")) ||
                      (memory > 90 && memory < 100);
    return pcie ? "H100-80GB-PCIe" : "H100-80GB-SXM";
  }
  if (name == "H200-SXM") return "H200";
  if (name == "Radeon MI25") return "MI25";
  return name;
}

std::vector<std::string> ResolveGpuName(std::string_view name,
                                        const std::vector<std::string>& known) {
  const std::string wanted = ToLower(name);
  for (const std::string& k : known) {
    if (ToLower(k) == wanted) return {k};
  }
  struct Alias {
    const char* alias;
    std::vector<std::string> names;
  };
  static const std::vector<Alias> kAliases = {
      {"a100", {"A100-40GB"}},
      {"a100-40g", {"A100-40GB"}},
      {"a100-80g", {"A100-80GB"}},
      {"v100", {"V100-16GB"}},
      {"h100-sxm", {"H100-80GB-SXM"}},
      {"h100-pcie", {"H100-80GB-PCIe"}},
      {"h100", {"H100-80GB-SXM", "H100-80GB-PCIe"}},
      {"h100-80gb", {"H100-80GB-SXM", "H100-80GB-PCIe"}},
  };
  for (const Alias& a : kAliases) {
    if (wanted == a.alias) {
      std::vector<std::string> out;
      for (const std::string& n : a.names) {
        if (std::find(known.begin(), known.end(), n) != known.end()) out.push_back(n);
      }
      return out;
    }
  }
  return {};
}

}  // namespace frugal::catalog

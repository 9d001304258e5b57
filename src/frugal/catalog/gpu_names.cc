#include "frugal/catalog/gpu_names.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "frugal/core/text.h"

namespace frugal::catalog {

std::string NormalizeGpuName(const AcceleratorHint& hint) {
  std::string name(hint.accelerator_name);
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
      // A family name names every part of it: a listing shows them all, and where one GPU
      // must be chosen (estimate --gpu, a spec, a pool) the name is refused as ambiguous.
      {"a100", {"A100-40GB", "A100-80GB", "A100-80GB-PCIe"}},
      {"a100-pcie", {"A100-80GB-PCIe"}},
      {"a100-40g", {"A100-40GB"}},
      {"a100-80g", {"A100-80GB"}},
      {"v100", {"V100-16GB", "V100-32GB"}},
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

std::string AmbiguousGpuMessage(std::string_view name, const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return fmt::format("'{}' is ambiguous ({}); name the exact part", Abbreviate(name), list);
}

namespace {

/// Lowercase words of a device name, split at spaces, dashes and underscores.
std::vector<std::string> DeviceWords(std::string_view device) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : device) {
    if (c == ' ' || c == '-' || c == '_' || c == '\t' || c == '(' || c == ')' || c == ',') {
      if (!word.empty()) words.push_back(std::move(word));
      word.clear();
    } else {
      word.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

/// "80gb", "16gb", "480gb": a memory size; its GB figure.
std::optional<int> MemoryWord(const std::string& w) {
  if (w.size() < 3 || !w.ends_with("gb")) return std::nullopt;
  int gb = 0;
  for (size_t i = 0; i + 2 < w.size(); ++i) {
    if (w[i] < '0' || w[i] > '9' || gb > 100000) return std::nullopt;
    gb = gb * 10 + (w[i] - '0');
  }
  return gb;
}

/// Letters and digits only, lowercase: "RTX6000-Ada" → "rtx6000ada".
std::string Squashed(std::string_view name) {
  std::string out;
  for (const char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    }
  }
  return out;
}

}  // namespace

std::optional<std::string> GpuFromDeviceName(std::string_view device,
                                             const std::vector<std::string>& known) {
  if (device.size() > 200) return std::nullopt;
  const std::vector<std::string> words = DeviceWords(device);
  int memory_gb = 0;
  bool pcie = false;
  std::string core;  // what remains once vendor, form factor and memory are set aside
  for (const std::string& w : words) {
    if (const auto gb = MemoryWord(w)) {
      memory_gb = *gb;
      continue;
    }
    if (w == "pcie" || w == "nvl") {
      pcie = true;
      continue;
    }
    if (w == "nvidia" || w == "tesla" || w == "geforce" || w == "quadro" || w == "amd" ||
        w == "instinct" || w == "radeon" || w == "generation" || w == "hbm3" || w == "hbm3e" ||
        w == "hbm2" || w == "hbm2e" || w.starts_with("sxm")) {
      continue;
    }
    core += w;
  }
  std::string wanted = core;
  if (core == "a100") wanted = memory_gb >= 70 ? "A100-80GB" : "A100-40GB";
  if (core == "v100") wanted = memory_gb >= 24 ? "V100-32GB" : "V100-16GB";
  if (core == "h100") wanted = pcie ? "H100-80GB-PCIe" : "H100-80GB-SXM";
  if (core == "rtxpro6000blackwellworkstationedition") wanted = "RTXPRO6000WS";
  const std::string squashed = Squashed(wanted);
  if (squashed.empty()) return std::nullopt;
  for (const std::string& k : known) {
    if (Squashed(k) == squashed) return k;
  }
  return std::nullopt;
}

}  // namespace frugal::catalog

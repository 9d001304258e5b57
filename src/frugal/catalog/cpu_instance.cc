#include "frugal/catalog/cpu_instance.h"

#include <fmt/format.h>

#include <array>
#include <cctype>

#include "frugal/core/text.h"

namespace frugal::catalog {
namespace {

struct Family {
  std::string_view cloud;
  std::string_view prefix;  ///< the instance type starts with it
  CpuClass cpu_class;
};

// One or two current generations of each class per cloud: enough to price tabular and
// small-model work without shipping every family the price lists hold.
constexpr std::array kFamilies = {
    Family{"aws", "m6i.", CpuClass::kGeneral},
    Family{"aws", "m7i.", CpuClass::kGeneral},
    Family{"aws", "c6i.", CpuClass::kCompute},
    Family{"aws", "c7i.", CpuClass::kCompute},
    Family{"aws", "r6i.", CpuClass::kMemory},
    Family{"aws", "x2idn.", CpuClass::kMemory},
    Family{"gcp", "n2-standard-", CpuClass::kGeneral},
    Family{"gcp", "n2-highmem-", CpuClass::kMemory},
    Family{"gcp", "n2-highcpu-", CpuClass::kCompute},
    Family{"gcp", "c2-standard-", CpuClass::kCompute},
    Family{"gcp", "m1-megamem-", CpuClass::kMemory},
    Family{"gcp", "m1-ultramem-", CpuClass::kMemory},
    Family{"gcp", "m3-megamem-", CpuClass::kMemory},
    Family{"gcp", "m3-ultramem-", CpuClass::kMemory},
};

// Azure names its sizes Standard_<series><vCPUs><features>_<version>: D (general), E (memory),
// F (compute), M (memory). Only the plain Intel "s" sizes of the current versions are taken.
std::optional<CpuClass> AzureFamily(std::string_view type) {
  constexpr std::string_view kPrefix = "Standard_";
  if (!type.starts_with(kPrefix)) return std::nullopt;
  type.remove_prefix(kPrefix.size());
  if (type.empty()) return std::nullopt;
  const char series = type.front();
  size_t i = 1;
  while (i < type.size() && std::isdigit(static_cast<unsigned char>(type[i]))) ++i;
  if (i == 1) return std::nullopt;
  const std::string_view rest = type.substr(i);
  if (series == 'D' && rest == "s_v5") return CpuClass::kGeneral;
  if (series == 'E' && rest == "s_v5") return CpuClass::kMemory;
  if (series == 'F' && rest == "s_v2") return CpuClass::kCompute;
  if (series == 'M' && rest == "s") return CpuClass::kMemory;
  return std::nullopt;
}

}  // namespace

std::string_view CpuClassName(CpuClass c) {
  switch (c) {
    case CpuClass::kGeneral:
      return "general";
    case CpuClass::kMemory:
      return "memory";
    case CpuClass::kCompute:
      return "compute";
  }
  return "general";
}

Result<CpuClass> ParseCpuClass(std::string_view text) {
  const std::string t = ToLower(text);
  if (t == "general" || t == "general-purpose" || t == "general_purpose") return CpuClass::kGeneral;
  if (t == "memory" || t == "memory-optimized" || t == "memory_optimized") return CpuClass::kMemory;
  if (t == "compute" || t == "compute-optimized" || t == "compute_optimized")
    return CpuClass::kCompute;
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown CPU class '{}' (expected general, memory or compute)", text));
}

std::optional<CpuClass> ImportedCpuFamily(std::string_view cloud, std::string_view instance_type) {
  if (cloud == "azure") return AzureFamily(instance_type);
  for (const Family& f : kFamilies) {
    if (f.cloud == cloud && instance_type.starts_with(f.prefix)) return f.cpu_class;
  }
  return std::nullopt;
}

CpuClass ClassifyCpuOffer(const Offer& o) {
  if (auto family = ImportedCpuFamily(o.cloud, o.instance_type)) return *family;
  const double gib_per_vcpu = o.vcpus > 0 ? o.ram_gib / o.vcpus : 4;
  if (gib_per_vcpu <= 2.5) return CpuClass::kCompute;
  if (gib_per_vcpu >= 6) return CpuClass::kMemory;
  return CpuClass::kGeneral;
}

}  // namespace frugal::catalog

#pragma once
// CPU-only instances: which families frugal imports from SkyPilot price lists, and their class
// (general-purpose, memory- or compute-optimized) for queries and the planner.

#include <optional>
#include <string_view>

#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

/// The kind of CPU instance, as the clouds group their families.
enum class CpuClass { kGeneral, kMemory, kCompute };
/// "general", "memory", "compute".
[[nodiscard]] std::string_view CpuClassName(CpuClass c);
/// Accepts the names above (and "general-purpose", "memory-optimized", "compute-optimized");
/// kBadInput otherwise.
[[nodiscard]] Result<CpuClass> ParseCpuClass(std::string_view text);

/// The class of a CPU instance type of a family frugal imports (AWS m6i/m7i/c6i/c7i/r6i/x2idn,
/// GCP n2-standard/highmem/highcpu, c2-standard, m1/m3, Azure D*s_v5/E*s_v5/F*s_v2/M*s);
/// nullopt for any other type (GPU hosts, burstable, storage, HPC families), which the importer
/// skips with a count.
[[nodiscard]] std::optional<CpuClass> ImportedCpuFamily(std::string_view cloud,
                                                        std::string_view instance_type);

/// The class of a CPU-only offer: its family's, else by memory per vCPU (at most 2.5 GiB:
/// compute, at least 6 GiB: memory, between: general), so custom CPU offers have one too.
[[nodiscard]] CpuClass ClassifyCpuOffer(const Offer& o);

}  // namespace frugal::catalog

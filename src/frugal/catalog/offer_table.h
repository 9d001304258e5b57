#pragma once
// The normalized offer table frugal ships and imports into (offers.csv), and the GPU table
// (gpus.csv).
//
// offers.csv, format version 1 (the version lives in the snapshot.json beside it):
//   cloud,instance_type,region,zone,gpu,gpu_count,vcpus,ram_gib,tier,price_per_hour[,gpu_fraction]
// One row per offer; tier is on_demand or spot (reserved tiers are derived on load); zone is
// empty where prices do not differ by zone; gpu empty and gpu_count 0 for CPU-only offers;
// price_per_hour in dollars with up to 6 decimals. A missing or malformed price is an error.
// gpu_fraction (a later, optional column: a table without it has whole GPUs) is the share of
// its GPU a partition holds (0.125 for 1/8), 1 for whole GPUs.
//
// snapshot.json: {"format_version": 1, "snapshot_date": "YYYY-MM-DD", "sources": ["..."]}

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/catalog/gpu.h"
#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

inline constexpr int kOfferTableVersion = 1;

struct SnapshotMeta {
  int format_version = kOfferTableVersion;
  std::string snapshot_date;
  std::vector<std::string> sources;
};

[[nodiscard]] Result<std::vector<Offer>> ReadOfferTable(const std::filesystem::path& path,
                                                        OfferSource source);
/// As ReadOfferTable, from the table's text; `source_name` names it in errors.
[[nodiscard]] Result<std::vector<Offer>> ParseOfferTable(std::string_view text,
                                                         std::string source_name,
                                                         OfferSource source);
/// Writes offers.csv and snapshot.json into `dir` atomically (each file temp → fsync → rename).
[[nodiscard]] Result<void> WriteOfferTable(const std::filesystem::path& dir,
                                           const std::vector<Offer>& offers,
                                           const SnapshotMeta& meta);
[[nodiscard]] Result<SnapshotMeta> ReadSnapshotMeta(const std::filesystem::path& path);

/// Sets usable_memory_gib on the GPUs data/gpu_memory.csv lists (format version 1:
/// gpu,usable_memory_gib,basis). kBadInput naming file:line:column for a figure that is not a
/// positive number at most the nameplate, or a GPU the table does not have.
[[nodiscard]] Result<void> ReadUsableMemory(const std::filesystem::path& path,
                                            std::vector<GpuSpec>& gpus);

/// Reads data/gpus.csv (see scripts/build-gpu-table.py for its columns).
[[nodiscard]] Result<std::vector<GpuSpec>> ReadGpuTable(const std::filesystem::path& path);

}  // namespace frugal::catalog

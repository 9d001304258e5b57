#pragma once
// Import of price lists in SkyPilot's catalog format (v8 vms.csv, one file per cloud). Columns
// are read by name since their order differs per cloud. GCP GPU VMs are priced as host VM +
// accelerator in the same zone, as GCP bills them.

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "frugal/catalog/gpu_fractions.h"
#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

/// What importing one file did: how many rows became offers and why the others did not.
struct ImportReport {
  std::string cloud;
  std::filesystem::path file;
  size_t rows_read = 0;
  size_t offers = 0;
  size_t gpu_shares = 0;                  ///< rows imported as a share of a GPU (gpu_fractions.csv)
  std::map<std::string, size_t> skipped;  ///< reason → rows
  std::map<std::string, size_t> unknown_gpus;  ///< accelerator name → rows
};

struct ImportResult {
  std::vector<Offer> offers;  ///< on_demand and spot offers; reserved tiers are derived on load
  std::vector<ImportReport> reports;
};

/// Imports SkyPilot vms.csv files. Each input is a file named <cloud>_vms.csv or <cloud>/vms.csv,
/// or a directory holding such files. `known_gpus` are the canonical names of data/gpus.csv;
/// rows for other accelerators are skipped and counted. Rows with an empty or absurd price,
/// TPUs and duplicate conflicting rows are skipped and counted. An instance type `shares` lists
/// (data/catalog/gpu_fractions.csv) holds the share it states, whatever AcceleratorCount says
/// (a share below 1 is one GPU with Offer::gpu_fraction set); other rows with a fractional
/// AcceleratorCount are skipped and counted. With `memory_gib` (canonical name → nameplate GiB),
/// a row whose GpuInfo states well under the named part's memory per GPU is another part under
/// the same name (an 8 GB RTX 3060 Ti listed as RTX3060): skipped and counted. Fails with
/// kBadInput, importing nothing, when a file is not in the expected format (missing columns, a
/// cloud that cannot be told), a price is malformed (names file:line:column), or a file yields
/// no offer at all (importing it would delete every offer of its cloud). Negative prices and
/// GPU counts are skipped and counted as bad rows.
[[nodiscard]] Result<ImportResult> ImportSkyPilot(
    const std::vector<std::filesystem::path>& inputs, const std::vector<std::string>& known_gpus,
    const GpuShares* shares = nullptr, const std::map<std::string, double>* memory_gib = nullptr);

}  // namespace frugal::catalog

#pragma once
// Instance types that hold a share of a GPU (a partition: Azure NVv4 and NVadsA10 v5, AWS
// g6f), from data/catalog/gpu_fractions.csv. Price lists do not say so reliably (SkyPilot's
// rows give the NVv4 sizes `AcceleratorCount: 1`), so the importer reads the share from here.
//
// gpu_fractions.csv, format version 1: a header row, then one row per instance type:
//   cloud,instance_type,gpu,gpu_share,source_url
// gpu_share is how many GPUs' worth the instance holds: below 1 a partition of one GPU (0.125
// is 1/8), 1 or more whole GPUs (listed where the family also sells partitions); source_url is
// the cloud's page that states it.

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::catalog {

struct GpuShare {
  std::string cloud;
  std::string instance_type;
  std::string gpu;   ///< canonical GPU name (data/gpus.csv)
  double share = 1;  ///< GPUs' worth: 0.125 for 1/8 of one GPU, 2 for two whole GPUs
  std::string source_url;
};

class GpuShares {
 public:
  /// kBadInput "file:line:col: field 'gpu_share': ..." for a share that is not a positive
  /// number (or above 1 and not whole), a missing column or an instance type listed twice.
  [[nodiscard]] static Result<GpuShares> Load(const std::filesystem::path& path);
  [[nodiscard]] static Result<GpuShares> Parse(std::string_view text, std::string source);

  /// The row for this cloud and instance type, or null.
  [[nodiscard]] const GpuShare* Find(std::string_view cloud, std::string_view instance_type) const;
  const std::vector<GpuShare>& rows() const { return rows_; }

 private:
  std::vector<GpuShare> rows_;
};

/// The shipped table, `<data dir>/catalog/gpu_fractions.csv`.
[[nodiscard]] Result<GpuShares> LoadShippedGpuShares();

/// "1/8", "1/6", "1/2" for a share below 1 (the nearest 1/n), else "x2" style "2".
[[nodiscard]] std::string ShareLabel(double share);

}  // namespace frugal::catalog

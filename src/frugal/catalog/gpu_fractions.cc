#include "frugal/catalog/gpu_fractions.h"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <utility>

#include "frugal/core/csv.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"

namespace frugal::catalog {
namespace {

Result<std::vector<GpuShare>> FromTable(const CsvTable& t) {
  std::vector<GpuShare> rows;
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t type = FRUGAL_TRY(t.RequireColumn("instance_type"));
  const size_t gpu = FRUGAL_TRY(t.RequireColumn("gpu"));
  const size_t share = FRUGAL_TRY(t.RequireColumn("gpu_share"));
  const size_t url = FRUGAL_TRY(t.RequireColumn("source_url"));
  std::set<std::pair<std::string, std::string>> seen;
  for (const CsvRecord& r : t.rows()) {
    GpuShare s;
    s.cloud = ToLower(Trim(CsvTable::Field(r, cloud)));
    s.instance_type = std::string(Trim(CsvTable::Field(r, type)));
    s.gpu = std::string(Trim(CsvTable::Field(r, gpu)));
    s.source_url = std::string(Trim(CsvTable::Field(r, url)));
    const auto value = ParseDouble(Trim(CsvTable::Field(r, share)));
    if (!value || !(*value > 0) || (*value > 1 && std::floor(*value) != *value)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'gpu_share': '{}' is not a share of one GPU (0 to 1) or "
                              "a whole number of GPUs",
                              t.Where(r, share), CsvTable::Field(r, share)));
    }
    s.share = *value;
    if (s.cloud.empty() || s.instance_type.empty()) {
      return Fail(ErrorCode::kBadInput, fmt::format("{}: field 'instance_type': empty",
                                                    t.Where(r, s.cloud.empty() ? cloud : type)));
    }
    if (!seen.emplace(s.cloud, s.instance_type).second) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'instance_type': {} {} is listed twice", t.Where(r, type),
                              s.cloud, s.instance_type));
    }
    rows.push_back(std::move(s));
  }
  return rows;
}

}  // namespace

Result<GpuShares> GpuShares::Load(const std::filesystem::path& path) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  FRUGAL_TRY(t.RequireFullRows());
  GpuShares shares;
  shares.rows_ = FRUGAL_TRY(FromTable(t));
  return shares;
}

Result<GpuShares> GpuShares::Parse(std::string_view text, std::string source) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Parse(text, std::move(source)));
  FRUGAL_TRY(t.RequireFullRows());
  GpuShares shares;
  shares.rows_ = FRUGAL_TRY(FromTable(t));
  return shares;
}

const GpuShare* GpuShares::Find(std::string_view cloud, std::string_view instance_type) const {
  for (const GpuShare& s : rows_) {
    if (s.instance_type == instance_type && s.cloud == ToLower(cloud)) return &s;
  }
  return nullptr;
}

Result<GpuShares> LoadShippedGpuShares() {
  return GpuShares::Load(ShippedDataDir() / "catalog" / "gpu_fractions.csv");
}

std::string ShareLabel(double share) {
  if (share >= 1) return fmt::format("{:g}", share);
  const double n = std::round(1 / share);
  if (std::abs(1 / n - share) < 0.01) return fmt::format("1/{:g}", n);
  return fmt::format("{:.2f}", share);
}

}  // namespace frugal::catalog

#include "frugal/estimate/network.h"

#include <fmt/format.h>

#include "frugal/core/csv.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"

namespace frugal::estimate {

Result<std::vector<NetworkFigure>> ReadNetworkTable(const std::filesystem::path& path) {
  const CsvTable table = FRUGAL_TRY(CsvTable::Load(path));
  const size_t cloud = FRUGAL_TRY(table.RequireColumn("cloud"));
  const size_t instance = FRUGAL_TRY(table.RequireColumn("instance_type"));
  const size_t gpu = FRUGAL_TRY(table.RequireColumn("gpu"));
  const size_t gbps = FRUGAL_TRY(table.RequireColumn("network_gbps"));
  const size_t fabric = FRUGAL_TRY(table.RequireColumn("fabric"));
  const size_t source = FRUGAL_TRY(table.RequireColumn("source_url"));
  std::vector<NetworkFigure> out;
  for (const CsvRecord& r : table.rows()) {
    NetworkFigure f;
    f.cloud = ToLower(Trim(CsvTable::Field(r, cloud)));
    f.instance_type = std::string(Trim(CsvTable::Field(r, instance)));
    f.gpu = std::string(Trim(CsvTable::Field(r, gpu)));
    auto value = ParseDouble(CsvTable::Field(r, gbps));
    if (!value || !(*value > 0)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: column 'network_gbps': expected a positive number, got '{}'",
                              table.Where(r, gbps), CsvTable::Field(r, gbps)));
    }
    f.network_gbps = *value;
    f.fabric = CsvTable::Field(r, fabric);
    f.source_url = CsvTable::Field(r, source);
    if (f.cloud.empty() || f.instance_type.empty()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: cloud and instance_type are required", table.Where(r, cloud)));
    }
    out.push_back(std::move(f));
  }
  return out;
}

Result<std::vector<NetworkFigure>> LoadShippedNetworkTable() {
  const std::filesystem::path path = ShippedDataDir() / "catalog" / "network.csv";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::vector<NetworkFigure>{};
  return ReadNetworkTable(path);
}

std::optional<double> NetworkGbpsFor(const std::vector<NetworkFigure>& table,
                                     std::string_view cloud, std::string_view instance_type) {
  const std::string c = ToLower(cloud);
  for (const NetworkFigure& f : table) {
    if (f.cloud == c && f.instance_type == instance_type) return f.network_gbps;
  }
  return std::nullopt;
}

std::optional<double> BestNetworkGbps(const std::vector<NetworkFigure>& table,
                                      std::string_view gpu) {
  std::optional<double> best;
  for (const NetworkFigure& f : table) {
    if (f.gpu == gpu && (!best || f.network_gbps > *best)) best = f.network_gbps;
  }
  return best;
}

}  // namespace frugal::estimate

#pragma once
// What moving and keeping data costs per cloud: inter-region and internet egress per GB and
// object storage per GB-month. Read from data/transfer/transfer_prices.csv (format version 1,
// described in its SOURCE.md): a header row, then one row per cloud. The planner prices a
// job's data with it before the run; the audit prices the egress runs paid after it.

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/money.h"

namespace frugal {
class CsvTable;
}  // namespace frugal

namespace frugal::catalog {

struct CloudTransferPrices {
  Money inter_region_per_gb;
  Money internet_per_gb;
  Money storage_per_gb_month;
};

class TransferPrices {
 public:
  /// kBadInput "file:line:col: field 'x': ..." for a missing column, a bad number or a cloud
  /// listed twice.
  [[nodiscard]] static Result<TransferPrices> Load(const std::filesystem::path& path);
  [[nodiscard]] static Result<TransferPrices> Parse(std::string_view text, std::string source);

  /// The cloud's prices (name compared case-insensitively), or null.
  [[nodiscard]] const CloudTransferPrices* Find(std::string_view cloud) const;
  /// Egress per GB from (cloud, region) to (cloud, region): zero in the same region,
  /// inter-region within a cloud, internet egress across clouds; null when the source cloud
  /// has no prices.
  [[nodiscard]] std::optional<Money> EgressPerGb(std::string_view from_cloud,
                                                 std::string_view from_region,
                                                 std::string_view to_cloud,
                                                 std::string_view to_region) const;
  const std::string& source() const { return source_; }
  /// The clouds it prices, sorted.
  [[nodiscard]] std::vector<std::string> Clouds() const;

 private:
  [[nodiscard]] static Result<TransferPrices> FromTable(const CsvTable& table);
  std::string source_;
  std::map<std::string, CloudTransferPrices> clouds_;
};

/// The shipped table, `<data dir>/transfer/transfer_prices.csv`.
[[nodiscard]] Result<TransferPrices> LoadShippedTransferPrices();

}  // namespace frugal::catalog

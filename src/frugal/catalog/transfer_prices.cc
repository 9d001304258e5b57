#include "frugal/catalog/transfer_prices.h"

#include <fmt/format.h>

#include "frugal/core/csv.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"

namespace frugal::catalog {
namespace {

/// A non-negative dollar amount in `column` of `row`.
Result<Money> PriceAt(const CsvTable& t, const CsvRecord& row, size_t column,
                      std::string_view name) {
  const std::string& text = CsvTable::Field(row, column);
  Result<double> v = ParseDouble(Trim(text));
  if (!v || *v < 0) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}: field '{}': '{}' is not a price in dollars",
                                                  t.Where(row, column), name, text));
  }
  return Money::FromDollars(*v);
}

}  // namespace

Result<TransferPrices> TransferPrices::FromTable(const CsvTable& t) {
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t inter = FRUGAL_TRY(t.RequireColumn("inter_region_usd_per_gb"));
  const size_t internet = FRUGAL_TRY(t.RequireColumn("internet_usd_per_gb"));
  const size_t storage = FRUGAL_TRY(t.RequireColumn("object_storage_usd_per_gb_month"));
  TransferPrices prices;
  prices.source_ = t.source();
  for (const CsvRecord& row : t.rows()) {
    const std::string name = ToLower(Trim(CsvTable::Field(row, cloud)));
    if (name.empty()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'cloud': empty", t.Where(row, cloud)));
    }
    CloudTransferPrices p;
    p.inter_region_per_gb = FRUGAL_TRY(PriceAt(t, row, inter, "inter_region_usd_per_gb"));
    p.internet_per_gb = FRUGAL_TRY(PriceAt(t, row, internet, "internet_usd_per_gb"));
    p.storage_per_gb_month =
        FRUGAL_TRY(PriceAt(t, row, storage, "object_storage_usd_per_gb_month"));
    if (!prices.clouds_.emplace(name, p).second) {
      return Fail(ErrorCode::kBadInput, fmt::format("{}: field 'cloud': '{}' is listed twice",
                                                    t.Where(row, cloud), name));
    }
  }
  return prices;
}

Result<TransferPrices> TransferPrices::Load(const std::filesystem::path& path) {
  return FromTable(FRUGAL_TRY(CsvTable::Load(path)));
}

Result<TransferPrices> TransferPrices::Parse(std::string_view text, std::string source) {
  return FromTable(FRUGAL_TRY(CsvTable::Parse(text, std::move(source))));
}

const CloudTransferPrices* TransferPrices::Find(std::string_view cloud) const {
  auto it = clouds_.find(ToLower(cloud));
  return it == clouds_.end() ? nullptr : &it->second;
}

std::optional<Money> TransferPrices::EgressPerGb(std::string_view from_cloud,
                                                 std::string_view from_region,
                                                 std::string_view to_cloud,
                                                 std::string_view to_region) const {
  const bool same_cloud = ToLower(from_cloud) == ToLower(to_cloud);
  if (same_cloud && from_region == to_region) return Money();
  const CloudTransferPrices* p = Find(from_cloud);
  if (p == nullptr) return std::nullopt;
  return same_cloud ? p->inter_region_per_gb : p->internet_per_gb;
}

std::vector<std::string> TransferPrices::Clouds() const {
  std::vector<std::string> names;
  for (const auto& [name, prices] : clouds_) names.push_back(name);
  return names;
}

Result<TransferPrices> LoadShippedTransferPrices() {
  return TransferPrices::Load(ShippedDataDir() / "transfer" / "transfer_prices.csv");
}

}  // namespace frugal::catalog

#include "frugal/catalog/spot_prices.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::catalog {
namespace {

/// The value at share q of sorted `v` (nearest rank).
int64_t Quantile(const std::vector<int64_t>& v, double q) {
  const auto i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

struct Peers {
  std::vector<int64_t> micros_per_gpu;  ///< sorted
};

/// Whether `per_gpu` is an outlier among `peers` (see spot_prices.h for the two rules).
bool IsOutlier(int64_t per_gpu, const Peers& peers, bool price_moves) {
  const auto price = static_cast<double>(per_gpu);
  const auto median = static_cast<double>(Quantile(peers.micros_per_gpu, 0.5));
  if (price < kSpotOutlierShare * median) return true;
  if (!price_moves) return false;
  const auto q1 = static_cast<double>(Quantile(peers.micros_per_gpu, 0.25));
  const auto q3 = static_cast<double>(Quantile(peers.micros_per_gpu, 0.75));
  return price < q1 - 1.5 * (q3 - q1) && price < kSpotFenceShare * median;
}

}  // namespace

Result<std::vector<SpotMarket>> ReadSpotMarkets(const std::filesystem::path& path) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t moves = FRUGAL_TRY(t.RequireColumn("price_moves"));
  const size_t source = FRUGAL_TRY(t.RequireColumn("source"));
  std::vector<SpotMarket> out;
  for (const CsvRecord& r : t.rows()) {
    SpotMarket m;
    m.cloud = CsvTable::Field(r, cloud);
    const std::string value = ToLower(CsvTable::Field(r, moves));
    if (value != "yes" && value != "no") {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'price_moves': expected yes or no, got '{}'",
                              t.Where(r, moves), CsvTable::Field(r, moves)));
    }
    m.price_moves = value == "yes";
    m.source = CsvTable::Field(r, source);
    out.push_back(std::move(m));
  }
  return out;
}

void CheckSpotPrices(std::vector<Offer>& offers, const std::vector<SpotMarket>& markets) {
  std::map<std::tuple<std::string, std::string, std::string, int>, Peers> by_type;
  std::map<std::pair<std::string, int>, Peers> by_gpu;
  for (const Offer& o : offers) {
    if (o.tier != CapacityTier::kSpot || o.gpu.empty()) continue;
    const int64_t per_gpu = o.PricePerGpuHour().micros();
    by_type[{o.cloud, o.instance_type, o.gpu, o.gpu_count}].micros_per_gpu.push_back(per_gpu);
    by_gpu[{o.gpu, o.gpu_count}].micros_per_gpu.push_back(per_gpu);
  }
  for (auto& [key, p] : by_gpu) std::sort(p.micros_per_gpu.begin(), p.micros_per_gpu.end());
  for (auto& [key, p] : by_type) std::sort(p.micros_per_gpu.begin(), p.micros_per_gpu.end());
  const auto price_moves = [&markets](const std::string& cloud) {
    for (const SpotMarket& m : markets) {
      if (m.cloud == cloud) return m.price_moves;
    }
    return true;
  };
  for (Offer& o : offers) {
    if (o.tier != CapacityTier::kSpot || o.gpu.empty()) continue;
    const Peers& same_type = by_type[{o.cloud, o.instance_type, o.gpu, o.gpu_count}];
    const Peers& peers = static_cast<int>(same_type.micros_per_gpu.size()) >= kMinSpotPeers
                             ? same_type
                             : by_gpu[{o.gpu, o.gpu_count}];
    if (static_cast<int>(peers.micros_per_gpu.size()) < kMinSpotPeers) continue;
    if (!IsOutlier(o.PricePerGpuHour().micros(), peers, price_moves(o.cloud))) continue;
    // Back from per GPU-hour to the instance's price.
    const double scale = o.gpu_count * o.gpu_fraction;
    SpotPriceCheck check;
    check.peers = static_cast<int>(peers.micros_per_gpu.size());
    check.median = Money::FromMicros(Quantile(peers.micros_per_gpu, 0.5)).Scaled(scale);
    check.planned = Money::FromMicros(Quantile(peers.micros_per_gpu, 0.25)).Scaled(scale);
    check.same_instance_type = &peers == &same_type;
    o.spot_outlier = check;
  }
}

}  // namespace frugal::catalog

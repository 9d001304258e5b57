#include "frugal/catalog/spot_prices.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>

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

}  // namespace

void CheckSpotPrices(std::vector<Offer>& offers) {
  std::map<std::tuple<std::string, std::string, std::string, int>, Peers> by_type;
  std::map<std::pair<std::string, int>, Peers> by_gpu;
  for (const Offer& o : offers) {
    if (o.tier != Tier::kSpot || o.gpu.empty()) continue;
    const int64_t per_gpu = o.PricePerGpuHour().micros();
    by_type[{o.cloud, o.instance_type, o.gpu, o.gpu_count}].micros_per_gpu.push_back(per_gpu);
    by_gpu[{o.gpu, o.gpu_count}].micros_per_gpu.push_back(per_gpu);
  }
  for (auto& [key, p] : by_gpu) std::sort(p.micros_per_gpu.begin(), p.micros_per_gpu.end());
  for (auto& [key, p] : by_type) std::sort(p.micros_per_gpu.begin(), p.micros_per_gpu.end());
  for (Offer& o : offers) {
    if (o.tier != Tier::kSpot || o.gpu.empty()) continue;
    const Peers& same_type = by_type[{o.cloud, o.instance_type, o.gpu, o.gpu_count}];
    const Peers& peers = static_cast<int>(same_type.micros_per_gpu.size()) >= kMinSpotPeers
                             ? same_type
                             : by_gpu[{o.gpu, o.gpu_count}];
    if (static_cast<int>(peers.micros_per_gpu.size()) < kMinSpotPeers) continue;
    const int64_t median = Quantile(peers.micros_per_gpu, 0.5);
    const int64_t per_gpu = o.PricePerGpuHour().micros();
    if (static_cast<double>(per_gpu) >= kSpotOutlierShare * static_cast<double>(median)) continue;
    // Back from per GPU-hour to the instance's price.
    const double scale = o.gpu_count * o.gpu_fraction;
    SpotPriceCheck check;
    check.peers = static_cast<int>(peers.micros_per_gpu.size());
    check.median = Money::FromMicros(median).Scaled(scale);
    check.planned = Money::FromMicros(Quantile(peers.micros_per_gpu, 0.25)).Scaled(scale);
    check.same_instance_type = &peers == &same_type;
    o.spot_outlier = check;
  }
}

}  // namespace frugal::catalog

#pragma once
// Data locality priced before the run. A job's data lives in one cloud region (its `data:`
// section, docs/job-spec.md); every option reads it from there, or from a preprocessed cache
// that lives elsewhere, and pays egress to its own cloud and region (inter-region within a
// cloud, internet across clouds; data/transfer/) plus the time to stage it at the offer's
// bandwidth (fixed_costs.h). When several runs will read it, one copy near the compute plus its
// storage may cost less than egress on every run; the cheaper of the two is taken. "Train
// where the data lives" then falls out of the ranking.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/catalog/transfer_prices.h"
#include "frugal/core/money.h"
#include "frugal/plan/fixed_costs.h"
#include "frugal/plan/job_spec.h"

namespace frugal::plan {

struct Option;

/// How an option gets its data.
enum class DataRoute {
  kNone,         ///< no location declared: staging time only, nothing priced
  kSameRegion,   ///< the data is in the offer's cloud and region: no egress
  kInterRegion,  ///< read from another region of the same cloud on every run
  kInternet,     ///< read from another cloud (internet egress) on every run
  kCopy,         ///< one copy into the offer's region shared by the runs, kept as storage
};
[[nodiscard]] std::string_view DataRouteName(DataRoute r);

/// The job's data as the planner prices it: where each run reads from (the cache when the spec
/// gives its location and size, else the dataset), how much, and what is recomputed.
struct DataSource {
  DataLocation from;            ///< not declared: no location, staging time only
  std::optional<double> gb;     ///< GB read per run
  double preprocess_hours = 0;  ///< preprocessing every run repeats (declared, no cache)
  bool from_cache = false;
  int runs = 1;
  double keep_hours = 730;
  [[nodiscard]] bool Priced() const { return from.declared(); }
};

/// What one option pays for its data on one run.
struct DataCost {
  DataRoute route = DataRoute::kNone;
  double gb = 0;
  Money egress_per_gb;        ///< from the data's region to the offer's
  Money cost;                 ///< this run's share: egress per read, or 1/runs of copy + storage
  Money copy_cost;            ///< kCopy: moving one copy, once
  Money storage_cost;         ///< kCopy: keeping it keep_hours
  double reads = 1;           ///< reads over the network: 1 + expected spot restarts (0 for kCopy)
  double transfer_hours = 0;  ///< staging at the offer's bandwidth (in launch_hours)
  double preprocess_hours = 0;  ///< preprocessing recomputed (in launch_hours)
  [[nodiscard]] double Hours() const { return transfer_hours + preprocess_hours; }
};

/// Checks the spec's data section against the catalog and the transfer prices and says where
/// runs read from. kBadInput "file:line:col: field 'cloud'|'region'|'location': ..." for a
/// cloud neither the catalog nor the price table knows, a region no offer of that cloud is in
/// (with "did you mean"), a region without a cloud that is in no cloud or in several, and a
/// location without size_gb. `prices` may be null only when no location is declared.
[[nodiscard]] Result<DataSource> ResolveData(const DataSpec& d, const catalog::Catalog& c,
                                             const catalog::TransferPrices* prices);

/// What `offer` pays for the data on one run, with `restarts` expected spot restarts (each
/// stages the data again: another read, unless it comes from a copy in the region). nullopt
/// when egress from the data's cloud to the offer has no price.
[[nodiscard]] std::optional<DataCost> PriceData(const DataSource& s,
                                                const catalog::TransferPrices* prices,
                                                const catalog::Offer& offer,
                                                const LaunchCosts& launch, double restarts);

/// One advice line on where the data lives against where the best option computes: "training
/// where the data lives wins ..." with the egress arithmetic, or what moving it costs and
/// saves. nullopt when nothing is located or nothing ranked.
[[nodiscard]] std::optional<std::string> DataAdvice(const DataSource& s,
                                                    const std::vector<Option>& ranked);

}  // namespace frugal::plan

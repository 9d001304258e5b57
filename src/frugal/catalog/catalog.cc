#include "frugal/catalog/catalog.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <set>

#include "frugal/catalog/custom_offers.h"
#include "frugal/catalog/gpu_names.h"
#include "frugal/catalog/offer_cache.h"
#include "frugal/catalog/offer_table.h"
#include "frugal/catalog/pricing_rules.h"
#include "frugal/catalog/providers.h"
#include "frugal/catalog/spot_prices.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"

namespace frugal::catalog {
namespace fs = std::filesystem;

// The data directory's tables as read, before custom offers and derived prices: what every
// catalog built on them shares (WithCustomFiles reads none of them again). The offer table's
// rows are not kept here but moved into the first catalog, which starts with them
// (Catalog::TableRows gives them back without their derived prices).
struct Catalog::Tables {
  std::vector<GpuSpec> gpus;  ///< with their usable memory
  SnapshotMeta meta;
  fs::path offers_path;
  bool imported = false;
  std::vector<PreemptionRate> rates;
  std::vector<ReservedDiscount> discounts;
  std::vector<SpotMarket> markets;
  std::set<std::string, std::less<>> marketplaces;  ///< clouds whose hosts are a marketplace's
};

namespace {

struct ReadTablesResult {
  std::shared_ptr<const Catalog::Tables> tables;
  std::vector<Offer> rows;  ///< the offer table's rows, nothing derived
};

// Reads the data directory's GPU table, offers and pricing rules; the offers through the cache
// in `cache_dir` when one is given (catalog/offer_cache.h).
Result<ReadTablesResult> ReadTables(const fs::path& data_dir, const fs::path& offers_dir,
                                    bool imported, const std::optional<fs::path>& cache_dir) {
  auto t = std::make_shared<Catalog::Tables>();
  t->gpus = FRUGAL_TRY(ReadGpuTable(data_dir / "gpus.csv"));
  // Optional: a data directory without it takes every GPU at the default usable share.
  std::error_code ec;
  if (fs::exists(data_dir / "gpu_memory.csv", ec)) {
    FRUGAL_TRY(ReadUsableMemory(data_dir / "gpu_memory.csv", t->gpus));
  }
  t->meta = FRUGAL_TRY(ReadSnapshotMeta(offers_dir / "snapshot.json"));
  t->offers_path = offers_dir / "offers.csv";
  t->imported = imported;
  const OfferSource source = imported ? OfferSource::kImported : OfferSource::kShipped;
  std::vector<Offer> rows =
      cache_dir ? FRUGAL_TRY(ReadOfferTableCached(t->offers_path, source, *cache_dir))
                : FRUGAL_TRY(ReadOfferTable(t->offers_path, source));
  t->rates = FRUGAL_TRY(ReadPreemptionRates(data_dir / "catalog" / "preemption_rates.csv"));
  t->discounts = FRUGAL_TRY(ReadReservedDiscounts(data_dir / "catalog" / "reserved_discounts.csv"));
  // Optional: without it every cloud's spot quotes are taken as moving (spot_prices.h).
  if (fs::exists(data_dir / "catalog" / "spot_markets.csv", ec)) {
    t->markets = FRUGAL_TRY(ReadSpotMarkets(data_dir / "catalog" / "spot_markets.csv"));
  }
  // Optional: without it no cloud is taken as a marketplace (catalog/providers.h).
  if (fs::exists(data_dir / "catalog" / "providers.csv", ec)) {
    t->marketplaces = FRUGAL_TRY(ReadMarketplaces(data_dir / "catalog" / "providers.csv"));
  }
  return ReadTablesResult{std::move(t), std::move(rows)};
}

// What Build derives for the offer table's rows (ApplyPreemptionRates, CheckSpotPrices), undone:
// the rows as the table holds them.
void UndoDerived(std::vector<Offer>& rows) {
  for (Offer& o : rows) {
    o.preemptions_per_hour = 0;
    o.spot_risk = SpotRisk{};
    o.spot_outlier.reset();
  }
}

}  // namespace

Result<Catalog> Catalog::Build(std::shared_ptr<const Tables> tables, std::vector<Offer> rows,
                               const std::vector<fs::path>& custom_files) {
  Catalog c;
  c.tables_ = std::move(tables);
  const Tables& t = *c.tables_;
  c.gpus_ = t.gpus;
  std::vector<CustomCatalog> customs;
  size_t custom_offers = 0;
  for (const fs::path& file : custom_files) {
    customs.push_back(FRUGAL_TRY(ReadCustomOffers(file, t.gpus)));
    custom_offers += customs.back().offers.size();
  }
  std::vector<Offer>& offers = c.offers_;
  c.table_rows_ = rows.size();
  offers = std::move(rows);
  // Room for the custom offers and every reserved tier derived from both, made once: growing a
  // vector of 30,000 offers twice costs more than deriving them.
  size_t reserved = CountReservedOffers(t.discounts, offers);
  for (const CustomCatalog& custom : customs)
    reserved += CountReservedOffers(t.discounts, custom.offers);
  offers.reserve(offers.size() + custom_offers + reserved);
  // Later files override earlier ones, and every user rule beats the shipped table.
  std::vector<PreemptionRate> rates;
  for (size_t i = 0; i < customs.size(); ++i) {
    offers.insert(offers.end(), customs[i].offers.begin(), customs[i].offers.end());
    rates.insert(rates.begin(), customs[i].preemption_rates.begin(),
                 customs[i].preemption_rates.end());
    c.info_.custom_files.push_back(custom_files[i]);
  }
  rates.insert(rates.end(), t.rates.begin(), t.rates.end());
  DeriveReservedOffers(t.discounts, offers);
  ApplyPreemptionRates(rates, offers);
  CheckSpotPrices(offers, t.markets);
  c.info_.snapshot_date = t.meta.snapshot_date;
  c.info_.sources = t.meta.sources;
  c.info_.offers_path = t.offers_path;
  c.info_.imported = t.imported;
  // Counted per run of one cloud (the table is grouped by cloud) before the map is touched.
  constexpr size_t kTiers = static_cast<size_t>(CapacityTier::kReserved3y) + 1;  // offers' tiers
  for (size_t i = 0; i < offers.size();) {
    const std::string& cloud = offers[i].cloud;
    std::array<size_t, kTiers> n{};
    for (; i < offers.size() && offers[i].cloud == cloud; ++i) {
      ++n[static_cast<size_t>(offers[i].tier)];
    }
    for (size_t k = 0; k < kTiers; ++k) {
      if (n[k] > 0)
        c.info_.counts[cloud][std::string(CapacityTierName(static_cast<CapacityTier>(k)))] += n[k];
    }
  }
  c.IndexGpus();
  return c;
}

bool Catalog::IsMarketplace(std::string_view cloud) const {
  return tables_ && tables_->marketplaces.contains(cloud);
}

bool IsCpuName(std::string_view name) { return ToLower(name) == "cpu"; }

Result<Catalog> Catalog::LoadFrom(const fs::path& data_dir,
                                  const std::vector<fs::path>& custom_files) {
  ReadTablesResult read =
      FRUGAL_TRY(ReadTables(data_dir, data_dir / "catalog", false, std::nullopt));
  return Build(std::move(read.tables), std::move(read.rows), custom_files);
}

Result<Catalog> Catalog::LoadDefault(const std::vector<fs::path>& custom_files) {
  std::vector<fs::path> files = custom_files;
  std::error_code ec;
  const fs::path user_offers = UserConfigDir() / "offers.yaml";
  if (fs::exists(user_offers, ec)) files.insert(files.begin(), user_offers);
  const fs::path imported = UserDataDir() / "catalog";
  const bool use_imported = fs::exists(imported / "offers.csv", ec);
  ReadTablesResult read = FRUGAL_TRY(
      ReadTables(ShippedDataDir(), use_imported ? imported : ShippedDataDir() / "catalog",
                 use_imported, UserCacheDir() / "catalog"));
  return Build(std::move(read.tables), std::move(read.rows), files);
}

std::vector<fs::path> Catalog::FilesAnd(const std::vector<fs::path>& files) const {
  std::vector<fs::path> all = info_.custom_files;
  all.insert(all.end(), files.begin(), files.end());
  return all;
}

Result<Catalog> Catalog::WithCustomFiles(const std::vector<fs::path>& files) const& {
  return Build(tables_ ? tables_ : std::make_shared<const Tables>(), TableRows(), FilesAnd(files));
}

Result<Catalog> Catalog::WithCustomFiles(const std::vector<fs::path>& files) && {
  const std::vector<fs::path> all = FilesAnd(files);
  std::vector<Offer> rows = std::move(offers_);
  offers_.clear();
  rows.erase(rows.begin() + static_cast<std::ptrdiff_t>(table_rows_), rows.end());
  UndoDerived(rows);
  std::shared_ptr<const Tables> tables =
      tables_ ? std::move(tables_) : std::make_shared<const Tables>();
  *this = Catalog();
  return Build(std::move(tables), std::move(rows), all);
}

std::vector<Offer> Catalog::TableRows() const {
  std::vector<Offer> rows(offers_.begin(),
                          offers_.begin() + static_cast<std::ptrdiff_t>(table_rows_));
  UndoDerived(rows);
  return rows;
}

Result<std::vector<GpuSpec>> Catalog::LoadDefaultGpus() {
  return ReadGpuTable(ShippedDataDir() / "gpus.csv");
}

Result<std::vector<std::string>> Catalog::LoadDefaultGpuNames() {
  std::vector<std::string> names;
  for (const GpuSpec& g : FRUGAL_TRY(LoadDefaultGpus())) names.push_back(g.name);
  return names;
}

void Catalog::IndexGpus() {
  gpu_names_.clear();
  gpus_by_name_.clear();
  for (const GpuSpec& g : gpus_) {
    gpu_names_.push_back(g.name);
    gpus_by_name_.emplace(g.name, &g);
  }
}

const Offer* Catalog::FindOffer(std::string_view id_or_instance, std::string_view gpu) const {
  for (const Offer& o : offers_) {
    if ((o.Id() == id_or_instance || o.instance_type == id_or_instance) && o.gpu == gpu) return &o;
  }
  return nullptr;
}

const GpuSpec* Catalog::FindGpu(std::string_view name) const {
  if (auto exact = gpus_by_name_.find(name); exact != gpus_by_name_.end()) return exact->second;
  const auto names = ResolveGpuName(name, gpu_names_);
  // A family name (H100, A100) is not one GPU: RequireGpu says so.
  if (names.size() != 1) return nullptr;
  auto found = gpus_by_name_.find(names.front());
  return found == gpus_by_name_.end() ? nullptr : found->second;
}

Result<const GpuSpec*> Catalog::RequireGpu(std::string_view name) const {
  if (const GpuSpec* g = FindGpu(name)) return g;
  if (const auto names = ResolveGpuName(name, gpu_names_); names.size() > 1) {
    return Fail(ErrorCode::kBadInput, AmbiguousGpuMessage(name, names));
  }
  return Fail(ErrorCode::kBadInput, fmt::format("unknown GPU '{}'{} (see 'frugal catalog gpus')",
                                                Abbreviate(name), DidYouMean(name, gpu_names_)));
}

std::vector<std::string> Catalog::Clouds() const {
  std::set<std::string, std::less<>> clouds;
  const std::string* last = nullptr;
  for (const Offer& o : offers_) {
    // The offers come in runs of one cloud: only a change of cloud is looked up.
    if (last == nullptr || *last != o.cloud) clouds.insert(o.cloud);
    last = &o.cloud;
  }
  return {clouds.begin(), clouds.end()};
}

Result<std::vector<const Offer*>> Catalog::Query(const OfferQuery& query) const {
  std::vector<std::string> gpu_names;
  const bool cpu_only = query.cpu_class.has_value() || (query.gpu && IsCpuName(*query.gpu));
  if (query.gpu && !cpu_only) {
    gpu_names = ResolveGpuName(*query.gpu, gpu_names_);
    if (gpu_names.empty()) FRUGAL_TRY(RequireGpu(*query.gpu));
  }
  const std::string cloud = query.cloud ? ToLower(*query.cloud) : "";
  if (query.cloud) {
    const std::vector<std::string> clouds = Clouds();
    if (std::find(clouds.begin(), clouds.end(), cloud) == clouds.end()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("unknown cloud '{}'{} (the catalog has offers from {})",
                              Abbreviate(*query.cloud), DidYouMean(cloud, clouds),
                              fmt::join(clouds, ", ")));
    }
  }
  std::vector<const Offer*> out;
  for (const Offer& o : offers_) {
    if (!gpu_names.empty() &&
        std::find(gpu_names.begin(), gpu_names.end(), o.gpu) == gpu_names.end())
      continue;
    if (cpu_only && !o.gpu.empty()) continue;
    if (query.cpu_class && ClassifyCpuOffer(o) != *query.cpu_class) continue;
    if (o.gpu_count < query.min_gpus) continue;
    if (o.vcpus < query.min_vcpus || o.ram_gib < query.min_ram_gib) continue;
    if (query.cloud && o.cloud != cloud) continue;
    if (query.region && o.region != *query.region) continue;
    if (query.tier && o.tier != *query.tier) continue;
    if (query.max_price_per_hour && o.price.per_hour > *query.max_price_per_hour) continue;
    out.push_back(&o);
  }
  auto key = [&](const Offer* o) {
    return query.sort == OfferQuery::Sort::kPricePerGpu ? o->PricePerGpuHour() : o->price.per_hour;
  };
  std::sort(out.begin(), out.end(), [&](const Offer* a, const Offer* b) {
    const Money ka = key(a);
    const Money kb = key(b);
    if (ka != kb) return ka < kb;
    return a->Id() < b->Id();
  });
  if (query.limit > 0 && out.size() > query.limit) out.resize(query.limit);
  return out;
}

}  // namespace frugal::catalog

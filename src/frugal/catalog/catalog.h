#pragma once
// The catalog: GPU specs and every offer frugal knows, loaded from the shipped snapshot under
// data/ (or the user's imported copy, which takes precedence) plus custom offers from YAML.

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/cpu_instance.h"
#include "frugal/catalog/gpu.h"
#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

/// Filters for Catalog::Query; unset fields match everything.
struct OfferQuery {
  /// Canonical name or alias ("A100-80GB", "a100-80gb"); "CPU" (any case) selects the offers
  /// without a GPU.
  std::optional<std::string> gpu;
  int min_gpus = 0;
  std::optional<CpuClass> cpu_class;  ///< only CPU offers of this class
  double min_vcpus = 0;
  double min_ram_gib = 0;
  std::optional<std::string> cloud;
  std::optional<std::string> region;
  std::optional<CapacityTier> tier;
  std::optional<Money> max_price_per_hour;
  enum class Sort { kPrice, kPricePerGpu } sort = Sort::kPrice;
  size_t limit = 0;  ///< 0: no limit
};

/// True for "CPU" in any case: the name that stands for the offers without a GPU.
[[nodiscard]] bool IsCpuName(std::string_view name);

/// Where the loaded catalog came from, for `catalog info`.
struct CatalogInfo {
  std::string snapshot_date;          ///< "2026-05-20"
  std::filesystem::path offers_path;  ///< the offers file in use
  bool imported = false;              ///< true when the user's imported copy is in use
  std::vector<std::string> sources;   ///< source lines from the snapshot's metadata
  std::vector<std::filesystem::path> custom_files;
  /// Row counts per cloud and tier.
  std::map<std::string, std::map<std::string, size_t>> counts;
};

class Catalog {
 public:
  Catalog() = default;
  // The GPU index points into gpus_: moving keeps the vector's buffer, copying would not.
  Catalog(const Catalog&) = delete;
  Catalog& operator=(const Catalog&) = delete;
  Catalog(Catalog&&) = default;
  Catalog& operator=(Catalog&&) = default;

  /// Loads the catalog: the user's imported offers when present (UserDataDir()/catalog),
  /// otherwise the shipped snapshot; then the custom offers in `custom_files`, then the user's
  /// config-directory offers.yaml if it exists. kBadInput names file and line on a malformed row.
  /// The offer table is read through the binary cache in UserCacheDir()/catalog, rebuilt when
  /// the table's content changes or the cache is damaged (catalog/offer_cache.h).
  [[nodiscard]] static Result<Catalog> LoadDefault(
      const std::vector<std::filesystem::path>& custom_files = {});
  /// The shipped GPU table alone (data/gpus.csv), for what needs no offer: `catalog gpus` does
  /// not read the offer table. kBadInput names file and line on a malformed row.
  [[nodiscard]] static Result<std::vector<GpuSpec>> LoadDefaultGpus();
  /// The names of the shipped GPU table's models: what a spec's GPU names are read against.
  [[nodiscard]] static Result<std::vector<std::string>> LoadDefaultGpuNames();
  /// Loads from an explicit data directory (tests, benchmarks).
  [[nodiscard]] static Result<Catalog> LoadFrom(
      const std::filesystem::path& data_dir,
      const std::vector<std::filesystem::path>& custom_files = {});

  /// This catalog with more custom offer files after its own (a spec's `catalog:`), as if they
  /// had been given when it was loaded: the data directory's tables are not read again, only
  /// the files, and the derived prices are worked out again over the whole (a file's preemption
  /// rates and spot offers bear on every offer). Errors as LoadDefault's for a custom file.
  [[nodiscard]] Result<Catalog> WithCustomFiles(
      const std::vector<std::filesystem::path>& files) const&;
  /// The same, consuming this catalog: its offer table's rows move into the new one instead of
  /// being copied (a command that plans one spec needs only the catalog with its files). This
  /// catalog is left empty, also when it fails.
  [[nodiscard]] Result<Catalog> WithCustomFiles(const std::vector<std::filesystem::path>& files) &&;

  const std::vector<GpuSpec>& gpus() const { return gpus_; }
  /// The canonical GPU names, in table order (for name resolution and suggestions).
  const std::vector<std::string>& gpu_names() const { return gpu_names_; }
  const std::vector<Offer>& offers() const { return offers_; }
  const CatalogInfo& info() const { return info_; }

  /// The GPU with this name or alias (case-insensitive), or nullptr (also for a family name
  /// such as H100 that names several parts). A canonical name is a map lookup, cheap enough
  /// for the planner's inner loop.
  const GpuSpec* FindGpu(std::string_view name) const;
  /// As FindGpu, but kBadInput "unknown GPU 'A100-80G' (did you mean 'A100-80GB'?)", or
  /// "'H100' is ambiguous (H100-80GB-SXM, H100-80GB-PCIe); name the exact part".
  [[nodiscard]] Result<const GpuSpec*> RequireGpu(std::string_view name) const;

  /// The first offer of GPU `gpu` whose id or instance type is `id_or_instance` (a user's
  /// `--offer`), or nullptr.
  [[nodiscard]] const Offer* FindOffer(std::string_view id_or_instance, std::string_view gpu) const;

  /// True for a cloud whose hosts are independent machines listed on a marketplace
  /// (data/catalog/providers.csv): no uptime commitment across its hosts.
  [[nodiscard]] bool IsMarketplace(std::string_view cloud) const;

  /// The clouds with at least one offer (custom offers included), sorted.
  [[nodiscard]] std::vector<std::string> Clouds() const;

  /// Offers matching the query, sorted and limited. kBadInput for an unknown GPU name, or a
  /// cloud no offer is from ("unknown cloud 'awz' (did you mean 'aws'?)").
  [[nodiscard]] Result<std::vector<const Offer*>> Query(const OfferQuery& query) const;

  /// The data directory's tables as read, shared by the catalogs built on them (catalog.cc).
  struct Tables;

 private:
  /// The catalog of `tables`, the offer table's `rows` and these custom files, with every
  /// derived price. The rows come first in offers_ (table_rows_ of them), then the custom
  /// offers, then the derived reserved tiers.
  [[nodiscard]] static Result<Catalog> Build(
      std::shared_ptr<const Tables> tables, std::vector<Offer> rows,
      const std::vector<std::filesystem::path>& custom_files);
  /// The offer table's rows as read: the first table_rows_ offers without what Build derived.
  [[nodiscard]] std::vector<Offer> TableRows() const;
  /// Every custom file of this catalog, then `files`.
  [[nodiscard]] std::vector<std::filesystem::path> FilesAnd(
      const std::vector<std::filesystem::path>& files) const;
  /// Builds gpu_names_ and gpus_by_name_ from gpus_; called once after loading.
  void IndexGpus();

  std::shared_ptr<const Tables> tables_;
  std::vector<GpuSpec> gpus_;
  std::vector<std::string> gpu_names_;
  std::map<std::string, const GpuSpec*, std::less<>> gpus_by_name_;
  std::vector<Offer> offers_;
  size_t table_rows_ = 0;
  CatalogInfo info_;
};

}  // namespace frugal::catalog

#include "frugal/catalog/skypilot_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <tuple>

#include "frugal/catalog/cpu_instance.h"
#include "frugal/catalog/gpu_names.h"
#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::catalog {
namespace {

namespace fs = std::filesystem;

// A price per GPU-hour outside this range is a data error, not an offer.
constexpr int64_t kMinMicrosPerGpuHour = 1'000;        // $0.001
constexpr int64_t kMaxMicrosPerGpuHour = 200'000'000;  // $200

struct Columns {
  size_t instance_type, accelerator, count, vcpus, memory, price, spot, region;
  std::optional<size_t> zone, gpu_info;
};

Result<Columns> FindColumns(const CsvTable& t) {
  Columns c{};
  c.instance_type = FRUGAL_TRY(t.RequireColumn("InstanceType"));
  c.accelerator = FRUGAL_TRY(t.RequireColumn("AcceleratorName"));
  c.count = FRUGAL_TRY(t.RequireColumn("AcceleratorCount"));
  c.vcpus = FRUGAL_TRY(t.RequireColumn("vCPUs"));
  c.memory = FRUGAL_TRY(t.RequireColumn("MemoryGiB"));
  c.price = FRUGAL_TRY(t.RequireColumn("Price"));
  c.spot = FRUGAL_TRY(t.RequireColumn("SpotPrice"));
  c.region = FRUGAL_TRY(t.RequireColumn("Region"));
  c.zone = t.Column("AvailabilityZone");
  c.gpu_info = t.Column("GpuInfo");
  return c;
}

// Per-GPU memory from GpuInfo's "'SizeInMiB': N". Vast reports the total of the row's GPUs.
std::optional<double> MemoryPerGpu(const std::string& gpu_info, std::string_view cloud, int count) {
  const size_t pos = gpu_info.find("'SizeInMiB':");
  if (pos == std::string::npos) return std::nullopt;
  size_t start = pos + 12;
  while (start < gpu_info.size() && gpu_info[start] == ' ') ++start;
  size_t end = start;
  while (end < gpu_info.size() &&
         (std::isdigit(static_cast<unsigned char>(gpu_info[end])) || gpu_info[end] == '.'))
    ++end;
  auto mib = ParseDouble(gpu_info.substr(start, end - start));
  if (!mib) return std::nullopt;
  double gib = *mib / 1024.0;
  if (cloud == "vast" && count > 0) gib /= count;
  return gib;
}

// A price field: nullopt when empty; kBadInput naming the place when malformed.
Result<std::optional<Money>> PriceField(const CsvTable& t, const CsvRecord& r, size_t column,
                                        std::string_view name) {
  const std::string_view text = Trim(CsvTable::Field(r, column));
  if (text.empty() || text == "nan" || text == "NaN") return std::optional<Money>();
  auto money = Money::Parse(text);
  if (!money) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}: field '{}': malformed price '{}'",
                                                  t.Where(r, column), name, text));
  }
  return std::optional<Money>(*money);
}

std::string CloudOf(const fs::path& file) {
  const std::string stem = file.stem().string();
  // <cloud>_cpu_vms.csv: a CPU-only price list of the same cloud.
  if (stem.ends_with("_cpu_vms")) return stem.substr(0, stem.size() - 8);
  if (stem.ends_with("_vms")) return stem.substr(0, stem.size() - 4);
  if (stem == "vms" && file.has_parent_path()) return file.parent_path().filename().string();
  return "";
}

// GCP accelerators attach to host VMs; these are the hosts for `count` of `gpu`.
std::vector<std::string> GcpHosts(const std::string& accelerator, int count) {
  const std::string n = std::to_string(count);
  if (accelerator == "A100") return {count == 16 ? "a2-megagpu-16g" : "a2-highgpu-" + n + "g"};
  if (accelerator == "A100-80GB") return {"a2-ultragpu-" + n + "g"};
  if (accelerator == "H100") return {"a3-highgpu-" + n + "g"};
  if (accelerator == "H100-MEGA") return {"a3-megagpu-8g"};
  if (accelerator == "H200") return {"a3-ultragpu-8g"};
  if (accelerator == "B200") return {"a4-highgpu-8g"};
  if (accelerator == "L4") {
    switch (count) {
      case 1:
        return {"g2-standard-4", "g2-standard-8", "g2-standard-12", "g2-standard-16",
                "g2-standard-32"};
      case 2:
        return {"g2-standard-24"};
      case 4:
        return {"g2-standard-48"};
      case 8:
        return {"g2-standard-96"};
      default:
        return {};
    }
  }
  // T4, V100, P100, P4 attach to N1 VMs: frugal pairs them with an n1-highmem host of about
  // 4–8 vCPUs per GPU (8 vCPUs for one GPU, as SkyPilot's default host does).
  switch (count) {
    case 1:
      return {"n1-highmem-8"};
    case 2:
      return {"n1-highmem-16"};
    case 4:
      return {"n1-highmem-32"};
    case 8:
      return {"n1-highmem-64"};
    default:
      return {};
  }
}

struct HostPrice {
  double vcpus = 0, memory = 0;
  std::optional<Money> price, spot;
};

class FileImporter {
 public:
  FileImporter(const CsvTable& table, std::string cloud, const std::vector<std::string>& known,
               const GpuShares* shares, const std::map<std::string, double>* memory,
               ImportReport& report, std::vector<Offer>& out)
      : t_(table),
        cloud_(std::move(cloud)),
        known_(known),
        shares_(shares),
        memory_(memory),
        report_(report),
        out_(out) {}

  Result<void> Run() {
    const Columns c = FRUGAL_TRY(FindColumns(t_));
    if (cloud_ == "gcp") FRUGAL_TRY(CollectGcpHosts(c));
    for (const CsvRecord& r : t_.rows()) {
      ++report_.rows_read;
      FRUGAL_TRY(Row(c, r));
    }
    return {};
  }

 private:
  void Skip(const std::string& reason) { ++report_.skipped[reason]; }

  Result<void> CollectGcpHosts(const Columns& c) {
    for (const CsvRecord& r : t_.rows()) {
      if (!CsvTable::Field(r, c.accelerator).empty()) continue;
      HostPrice h;
      h.vcpus = ParseDouble(CsvTable::Field(r, c.vcpus)).value_or(0);
      h.memory = ParseDouble(CsvTable::Field(r, c.memory)).value_or(0);
      h.price = FRUGAL_TRY(PriceField(t_, r, c.price, "Price"));
      h.spot = FRUGAL_TRY(PriceField(t_, r, c.spot, "SpotPrice"));
      const std::string zone = c.zone ? CsvTable::Field(r, *c.zone) : "";
      hosts_[{zone, CsvTable::Field(r, c.instance_type)}] = h;
    }
    return {};
  }

  Result<void> Row(const Columns& c, const CsvRecord& r) {
    const std::string& accelerator = CsvTable::Field(r, c.accelerator);
    if (accelerator.empty()) return CpuRow(c, r);
    if (accelerator.starts_with("tpu-")) {
      Skip("TPU (not a GPU)");
      return {};
    }
    auto count = ParseDouble(CsvTable::Field(r, c.count));
    if (!count) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'AcceleratorCount': not a number", t_.Where(r, c.count)));
    }
    const std::string instance_type = CsvTable::Field(r, c.instance_type);
    double fraction = 1;
    // The cloud's own statement of the share beats the row's count (NVv4 rows say 1).
    if (const GpuShare* share = shares_ ? shares_->Find(cloud_, instance_type) : nullptr) {
      count = share->share < 1 ? 1.0 : share->share;
      fraction = std::min(share->share, 1.0);
      if (fraction < 1) ++report_.gpu_shares;
    }
    if (*count <= 0) {
      Skip("bad row: AcceleratorCount zero or negative");
      return {};
    }
    if (*count < 1 || std::floor(*count) != *count) {
      Skip("fractional GPU");
      return {};
    }
    const int gpus = static_cast<int>(*count);
    const std::string gpu_info = c.gpu_info ? CsvTable::Field(r, *c.gpu_info) : "";
    const std::optional<double> stated = MemoryPerGpu(gpu_info, cloud_, gpus);
    const std::string gpu = NormalizeGpuName({cloud_, accelerator, instance_type, stated});
    if (std::find(known_.begin(), known_.end(), gpu) == known_.end()) {
      ++report_.unknown_gpus[accelerator];
      Skip("unknown GPU name");
      return {};
    }
    if (IsAnotherPart(gpu, stated)) {
      Skip("GPU memory below the named part's (another part under the same name)");
      return {};
    }
    Offer base;
    base.cloud = cloud_;
    base.region = CsvTable::Field(r, c.region);
    base.gpu = gpu;
    base.gpu_count = gpus;
    base.gpu_fraction = fraction;
    base.source = OfferSource::kImported;
    const std::string zone = c.zone ? CsvTable::Field(r, *c.zone) : "";
    std::optional<Money> price = FRUGAL_TRY(PriceField(t_, r, c.price, "Price"));
    std::optional<Money> spot = FRUGAL_TRY(PriceField(t_, r, c.spot, "SpotPrice"));

    if (cloud_ != "gcp") {
      base.instance_type = instance_type;
      base.vcpus = ParseDouble(CsvTable::Field(r, c.vcpus)).value_or(0);
      base.ram_gib = ParseDouble(CsvTable::Field(r, c.memory)).value_or(0);
      Emit(base, zone, price, spot);
      return {};
    }
    bool any_host = false;
    for (const std::string& host_type : GcpHosts(accelerator, gpus)) {
      auto host = hosts_.find({zone, host_type});
      if (host == hosts_.end()) continue;
      any_host = true;
      Offer o = base;
      o.instance_type = host_type;
      o.vcpus = host->second.vcpus;
      o.ram_gib = host->second.memory;
      auto sum = [](std::optional<Money> a, std::optional<Money> b) {
        return a && b ? std::optional<Money>(*a + *b) : std::nullopt;
      };
      Emit(o, zone, sum(price, host->second.price), sum(spot, host->second.spot));
    }
    if (!any_host) Skip("GCP accelerator with no host VM priced in its zone");
    return {};
  }

  // A row without accelerators: a CPU offer when its family is one frugal imports.
  Result<void> CpuRow(const Columns& c, const CsvRecord& r) {
    const std::string instance_type = CsvTable::Field(r, c.instance_type);
    if (!ImportedCpuFamily(cloud_, instance_type)) {
      Skip(cloud_ == "gcp" && IsGcpGpuHost(instance_type)
               ? "GCP host VM row (joined with accelerators)"
               : "CPU instance outside the imported general, memory and compute families");
      return {};
    }
    Offer base;
    base.cloud = cloud_;
    base.instance_type = instance_type;
    base.region = CsvTable::Field(r, c.region);
    base.vcpus = ParseDouble(CsvTable::Field(r, c.vcpus)).value_or(0);
    base.ram_gib = ParseDouble(CsvTable::Field(r, c.memory)).value_or(0);
    base.source = OfferSource::kImported;
    if (base.vcpus <= 0) {
      Skip("bad row: CPU instance without vCPUs");
      return {};
    }
    const std::string zone = c.zone ? CsvTable::Field(r, *c.zone) : "";
    const std::optional<Money> price = FRUGAL_TRY(PriceField(t_, r, c.price, "Price"));
    const std::optional<Money> spot = FRUGAL_TRY(PriceField(t_, r, c.spot, "SpotPrice"));
    Emit(base, zone, price, spot);
    return {};
  }

  static bool IsGcpGpuHost(std::string_view type) {
    return type.starts_with("a2-") || type.starts_with("a3-") || type.starts_with("a4-") ||
           type.starts_with("g2-") || type.starts_with("n1-");
  }

  bool Plausible(const Offer& o, Money price) {
    const int64_t per_gpu = price.micros() / std::max(1, o.gpu_count);
    return per_gpu >= kMinMicrosPerGpuHour && per_gpu <= kMaxMicrosPerGpuHour;
  }

  void Emit(Offer o, const std::string& zone, std::optional<Money> price,
            std::optional<Money> spot) {
    if (!price) {
      Skip("no on-demand price");
    } else if (price->micros() < 0) {
      Skip("bad row: negative on-demand Price");
    } else if (!Plausible(o, *price)) {
      Skip("absurd on-demand price");
    } else {
      Offer od = o;
      od.tier = CapacityTier::kOnDemand;
      od.price = Rate{*price};
      Add(od);
    }
    if (!spot || spot->IsZero()) {
      Skip("no spot price");
      return;
    }
    if (spot->micros() < 0) {
      Skip("bad row: negative SpotPrice");
      return;
    }
    if (cloud_ == "aws" && price && *spot >= *price) {
      Skip("spot capped at the on-demand price (unavailable)");
      return;
    }
    if (!Plausible(o, *spot)) {
      Skip("absurd spot price");
      return;
    }
    o.tier = CapacityTier::kSpot;
    o.zone = zone;
    o.price = Rate{*spot};
    Add(o);
  }

  void Add(const Offer& o) {
    auto key = std::make_tuple(o.instance_type, o.region, o.zone, o.gpu, o.gpu_count, o.tier);
    auto [it, inserted] = seen_.emplace(key, o.price.per_hour);
    if (!inserted) {
      if (it->second != o.price.per_hour) Skip("duplicate row with a conflicting price");
      // Identical duplicates (on-demand rows repeated per zone) collapse silently.
      return;
    }
    out_.push_back(o);
    ++report_.offers;
  }

  const CsvTable& t_;
  std::string cloud_;
  /// True when the row states less memory per GPU than `gpu` has (kMinMemoryShare of it): a
  /// marketplace row naming an RTX 3060 Ti (8 GB) "RTX3060" (12 GB) is not an RTX 3060.
  [[nodiscard]] bool IsAnotherPart(const std::string& gpu, std::optional<double> stated) const {
    if (memory_ == nullptr || !stated || *stated <= 0) return false;
    const auto it = memory_->find(gpu);
    return it != memory_->end() && *stated < kMinMemoryShare * it->second;
  }

  /// Listings state usable memory a little under the nameplate (an L4 as 22.5 GiB of 24 GB).
  static constexpr double kMinMemoryShare = 0.85;

  const std::vector<std::string>& known_;
  const GpuShares* shares_;
  const std::map<std::string, double>* memory_;
  ImportReport& report_;
  std::vector<Offer>& out_;
  std::map<std::pair<std::string, std::string>, HostPrice> hosts_;
  std::map<std::tuple<std::string, std::string, std::string, std::string, int, CapacityTier>, Money>
      seen_;
};

Result<std::vector<fs::path>> ExpandInputs(const std::vector<fs::path>& inputs) {
  std::vector<fs::path> files;
  for (const fs::path& input : inputs) {
    std::error_code ec;
    if (fs::is_directory(input, ec)) {
      for (const auto& entry : fs::recursive_directory_iterator(input, ec)) {
        const std::string name = entry.path().filename().string();
        if (entry.is_regular_file() && (name == "vms.csv" || name.ends_with("_vms.csv"))) {
          files.push_back(entry.path());
        }
      }
      if (ec)
        return Fail(ErrorCode::kBadInput, fmt::format("{}: {}", input.string(), ec.message()));
    } else if (fs::exists(input, ec)) {
      files.push_back(input);
    } else {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: no such file or directory", input.string()));
    }
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) {
    return Fail(ErrorCode::kBadInput,
                "no SkyPilot vms.csv files found (expected <cloud>_vms.csv or <cloud>/vms.csv)");
  }
  return files;
}

}  // namespace

Result<ImportResult> ImportSkyPilot(const std::vector<fs::path>& inputs,
                                    const std::vector<std::string>& known_gpus,
                                    const GpuShares* shares,
                                    const std::map<std::string, double>* memory_gib) {
  ImportResult result;
  for (const fs::path& file : FRUGAL_TRY(ExpandInputs(inputs))) {
    const std::string cloud = CloudOf(file);
    if (cloud.empty()) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format(
              "{}: cannot tell the cloud (name the file <cloud>_vms.csv or <cloud>/vms.csv)",
              file.string()));
    }
    const CsvTable table = FRUGAL_TRY(CsvTable::Load(file));
    if (auto full = table.RequireFullRows(); !full) {
      return Fail(ErrorCode::kBadInput, full.error().message + " (nothing was imported)");
    }
    ImportReport report;
    report.cloud = cloud;
    report.file = file;
    FileImporter importer(table, cloud, known_gpus, shares, memory_gib, report, result.offers);
    auto ran = importer.Run();
    if (!ran) {
      return Fail(ErrorCode::kBadInput, ran.error().message + " (nothing was imported)");
    }
    // Importing a file replaces its cloud's offers: one with none (a header, a cut-off
    // download, rows all skipped) would silently delete them all.
    if (report.offers == 0) {
      std::string why;
      for (const auto& [reason, n] : report.skipped) {
        why += fmt::format("{}{} {}", why.empty() ? "; skipped: " : ", ", n, reason);
      }
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: no usable rows ({} read{}), so no {} offers would be left; "
                              "nothing was imported",
                              file.string(), report.rows_read, why, cloud));
    }
    result.reports.push_back(std::move(report));
  }
  return result;
}

}  // namespace frugal::catalog

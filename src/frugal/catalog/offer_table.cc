#include "frugal/catalog/offer_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "frugal/core/atomic_file.h"
#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::catalog {
namespace {

Result<double> NumberField(const CsvTable& t, const CsvRecord& r, size_t column,
                           std::string_view name) {
  auto v = ParseDouble(CsvTable::Field(r, column));
  if (!v || *v < 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field '{}': '{}' is not a non-negative number", t.Where(r, column),
                            name, CsvTable::Field(r, column)));
  }
  return *v;
}

Result<std::optional<double>> OptionalNumber(const CsvTable& t, const CsvRecord& r, size_t column,
                                             std::string_view name) {
  if (Trim(CsvTable::Field(r, column)).empty()) return std::optional<double>();
  return std::optional<double>(FRUGAL_TRY(NumberField(t, r, column, name)));
}

}  // namespace

Result<std::vector<Offer>> ReadOfferTable(const std::filesystem::path& path, OfferSource source) {
  return ParseOfferTable(FRUGAL_TRY(ReadFile(path)), path.string(), source);
}

Result<std::vector<Offer>> ParseOfferTable(std::string_view text, std::string source_name,
                                           OfferSource source) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Parse(text, std::move(source_name)));
  const size_t cloud = FRUGAL_TRY(t.RequireColumn("cloud"));
  const size_t type = FRUGAL_TRY(t.RequireColumn("instance_type"));
  const size_t region = FRUGAL_TRY(t.RequireColumn("region"));
  const size_t zone = FRUGAL_TRY(t.RequireColumn("zone"));
  const size_t gpu = FRUGAL_TRY(t.RequireColumn("gpu"));
  const size_t count = FRUGAL_TRY(t.RequireColumn("gpu_count"));
  const size_t vcpus = FRUGAL_TRY(t.RequireColumn("vcpus"));
  const size_t ram = FRUGAL_TRY(t.RequireColumn("ram_gib"));
  const size_t tier = FRUGAL_TRY(t.RequireColumn("tier"));
  const size_t price = FRUGAL_TRY(t.RequireColumn("price_per_hour"));
  const std::optional<size_t> fraction = t.Column("gpu_fraction");
  std::vector<Offer> offers;
  offers.reserve(t.rows().size());
  for (const CsvRecord& r : t.rows()) {
    Offer o;
    o.cloud = CsvTable::Field(r, cloud);
    o.instance_type = CsvTable::Field(r, type);
    o.region = CsvTable::Field(r, region);
    o.zone = CsvTable::Field(r, zone);
    o.gpu = CsvTable::Field(r, gpu);
    auto n = ParseInt(CsvTable::Field(r, count));
    if (!n || *n < 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'gpu_count': not a count", t.Where(r, count)));
    }
    o.gpu_count = static_cast<int>(*n);
    o.vcpus = FRUGAL_TRY(NumberField(t, r, vcpus, "vcpus"));
    o.ram_gib = FRUGAL_TRY(NumberField(t, r, ram, "ram_gib"));
    auto parsed_tier = ParseRentedTier(CsvTable::Field(r, tier));
    if (!parsed_tier)
      return Fail(ErrorCode::kBadInput, fmt::format("{}: field 'tier': {}", t.Where(r, tier),
                                                    parsed_tier.error().message));
    o.tier = *parsed_tier;
    auto money = Money::Parse(CsvTable::Field(r, price));
    if (!money || *money <= Money()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'price_per_hour': {}", t.Where(r, price),
                              money ? "must be positive" : money.error().message));
    }
    o.price = Rate{*money};
    if (fraction && !Trim(CsvTable::Field(r, *fraction)).empty()) {
      o.gpu_fraction = FRUGAL_TRY(NumberField(t, r, *fraction, "gpu_fraction"));
      if (!(o.gpu_fraction > 0 && o.gpu_fraction <= 1)) {
        return Fail(ErrorCode::kBadInput, fmt::format("{}: field 'gpu_fraction': must be in (0, 1]",
                                                      t.Where(r, *fraction)));
      }
    }
    o.source = source;
    offers.push_back(std::move(o));
  }
  return offers;
}

Result<void> WriteOfferTable(const std::filesystem::path& dir, const std::vector<Offer>& offers,
                             const SnapshotMeta& meta) {
  std::string csv =
      "cloud,instance_type,region,zone,gpu,gpu_count,vcpus,ram_gib,tier,price_per_hour,"
      "gpu_fraction\n";
  for (const Offer& o : offers) {
    // Empty for whole GPUs: the column only marks the partitions.
    const std::string fraction = o.gpu_fraction < 1 ? fmt::format("{:g}", o.gpu_fraction) : "";
    csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{}\n", CsvEscape(o.cloud),
                       CsvEscape(o.instance_type), CsvEscape(o.region), CsvEscape(o.zone),
                       CsvEscape(o.gpu), o.gpu_count, o.vcpus, o.ram_gib, CapacityTierName(o.tier),
                       o.price.per_hour.ToPlainString(), fraction);
  }
  nlohmann::json j = {{"format_version", meta.format_version},
                      {"snapshot_date", meta.snapshot_date},
                      {"sources", meta.sources}};
  // offers.csv is what makes a directory an imported catalog (Catalog::LoadDefault), so it is
  // renamed into place last: a write that fails or a process killed in between never leaves
  // offers.csv without the snapshot.json every later command would then fail to read.
  FRUGAL_TRY(WriteFileAtomically(dir / "snapshot.json", j.dump(2) + "\n"));
  return WriteFileAtomically(dir / "offers.csv", csv);
}

Result<SnapshotMeta> ReadSnapshotMeta(const std::filesystem::path& path) {
  const std::string text = FRUGAL_TRY(ReadFile(path));
  try {
    const auto j = nlohmann::json::parse(text);
    SnapshotMeta meta;
    meta.format_version = j.at("format_version").get<int>();
    meta.snapshot_date = j.at("snapshot_date").get<std::string>();
    meta.sources = j.value("sources", std::vector<std::string>{});
    if (meta.format_version > kOfferTableVersion) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: format_version {} is newer than this frugal knows ({})",
                              path.string(), meta.format_version, kOfferTableVersion));
    }
    return meta;
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}: {}", path.string(), e.what()));
  }
}

Result<void> ReadUsableMemory(const std::filesystem::path& path, std::vector<GpuSpec>& gpus) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  const size_t name = FRUGAL_TRY(t.RequireColumn("gpu"));
  const size_t usable = FRUGAL_TRY(t.RequireColumn("usable_memory_gib"));
  for (const CsvRecord& r : t.rows()) {
    const std::string& gpu = CsvTable::Field(r, name);
    auto it =
        std::find_if(gpus.begin(), gpus.end(), [&](const GpuSpec& g) { return g.name == gpu; });
    if (it == gpus.end()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'gpu': '{}' is not in gpus.csv", t.Where(r, name), gpu));
    }
    const double gib = FRUGAL_TRY(NumberField(t, r, usable, "usable_memory_gib"));
    if (!(gib > 0) || gib > it->memory_gib) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'usable_memory_gib': {:g} is not in (0, {:g}] (the "
                              "nameplate)",
                              t.Where(r, usable), gib, it->memory_gib));
    }
    it->usable_memory_gib = gib;
  }
  return {};
}

Result<std::vector<GpuSpec>> ReadGpuTable(const std::filesystem::path& path) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Load(path));
  const size_t name = FRUGAL_TRY(t.RequireColumn("name"));
  const size_t memory = FRUGAL_TRY(t.RequireColumn("memory_gib"));
  const size_t bandwidth = FRUGAL_TRY(t.RequireColumn("memory_bandwidth_gbps"));
  const size_t fp32 = FRUGAL_TRY(t.RequireColumn("fp32_tflops"));
  const size_t tf32 = FRUGAL_TRY(t.RequireColumn("tf32_tflops"));
  const size_t bf16 = FRUGAL_TRY(t.RequireColumn("bf16_tflops"));
  const size_t fp8 = FRUGAL_TRY(t.RequireColumn("fp8_tflops"));
  const size_t nvlink = FRUGAL_TRY(t.RequireColumn("nvlink_gbps"));
  const size_t tdp = FRUGAL_TRY(t.RequireColumn("tdp_watts"));
  const size_t arch = FRUGAL_TRY(t.RequireColumn("architecture"));
  const size_t year = FRUGAL_TRY(t.RequireColumn("release_year"));
  const size_t bf16_ok = FRUGAL_TRY(t.RequireColumn("supports_bf16"));
  const size_t url = FRUGAL_TRY(t.RequireColumn("source_url"));
  const size_t notes = FRUGAL_TRY(t.RequireColumn("notes"));
  // Later columns: a table without them has tensor cores everywhere and no estimated figure.
  const std::optional<size_t> tensor = t.Column("tensor_cores");
  const std::optional<size_t> estimated = t.Column("estimated");
  const std::optional<size_t> segment = t.Column("segment");  // absent: data-centre parts
  std::vector<GpuSpec> gpus;
  for (const CsvRecord& r : t.rows()) {
    GpuSpec g;
    g.name = CsvTable::Field(r, name);
    g.memory_gib = FRUGAL_TRY(NumberField(t, r, memory, "memory_gib"));
    g.memory_bandwidth_gbps =
        FRUGAL_TRY(OptionalNumber(t, r, bandwidth, "memory_bandwidth_gbps")).value_or(0);
    g.fp32_tflops = FRUGAL_TRY(OptionalNumber(t, r, fp32, "fp32_tflops"));
    g.tf32_tflops = FRUGAL_TRY(OptionalNumber(t, r, tf32, "tf32_tflops"));
    g.bf16_tflops = FRUGAL_TRY(OptionalNumber(t, r, bf16, "bf16_tflops"));
    g.fp8_tflops = FRUGAL_TRY(OptionalNumber(t, r, fp8, "fp8_tflops"));
    g.nvlink_gbps = FRUGAL_TRY(OptionalNumber(t, r, nvlink, "nvlink_gbps"));
    g.tdp_watts = FRUGAL_TRY(OptionalNumber(t, r, tdp, "tdp_watts"));
    g.architecture = CsvTable::Field(r, arch);
    g.release_year =
        static_cast<int>(FRUGAL_TRY(OptionalNumber(t, r, year, "release_year")).value_or(0));
    g.supports_bf16 = CsvTable::Field(r, bf16_ok) != "false";
    g.source_url = CsvTable::Field(r, url);
    g.notes = CsvTable::Field(r, notes);
    if (tensor) g.tensor_cores = CsvTable::Field(r, *tensor) != "false";
    if (estimated) g.estimated = CsvTable::Field(r, *estimated) == "true";
    if (segment) {
      Result<GpuSegment> s = ParseGpuSegment(CsvTable::Field(r, *segment));
      if (!s) {
        return Fail(ErrorCode::kBadInput, fmt::format("{}: field 'segment': {}",
                                                      t.Where(r, *segment), s.error().message));
      }
      g.segment = *s;
    }
    gpus.push_back(std::move(g));
  }
  return gpus;
}

}  // namespace frugal::catalog

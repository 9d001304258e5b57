#include "frugal/audit/inventory.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "frugal/catalog/gpu_names.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/csv.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_guard.h"

namespace frugal::audit {
namespace {

Error FieldError(std::string_view where, std::string_view field, std::string_view message) {
  return Error{ErrorCode::kBadInput, fmt::format("{}: field '{}': {}", where, field, message)};
}

/// The canonical name of a GPU the inventory names; "did you mean" when it is unknown.
Result<std::string> ResolveGpu(std::string_view name, const catalog::Catalog& catalog,
                               std::string_view where) {
  const std::vector<std::string> names = catalog::ResolveGpuName(name, catalog.gpu_names());
  if (names.size() == 1) return names.front();
  if (names.empty()) {
    return Fail(FieldError(where, "gpu",
                           fmt::format("unknown GPU '{}'{}", Abbreviate(name),
                                       DidYouMean(name, catalog.gpu_names()))));
  }
  return Fail(FieldError(
      where, "gpu",
      fmt::format("'{}' is ambiguous ({}); name the exact part", name, fmt::join(names, ", "))));
}

Result<CapacityTier> ResolveTier(std::string_view text, std::string_view where) {
  Result<CapacityTier> tier = ParseCapacityTier(text);
  if (!tier) return Fail(FieldError(where, "tier", tier.error().message));
  return *tier;
}

/// A launch time after now is a mistake (a wrong year, a local time read as UTC): the instance
/// would be counted from a time that has not come.
Result<ledger::Timestamp> Launched(std::string_view text, std::string_view where,
                                   ledger::Timestamp now) {
  Result<ledger::Timestamp> t = ledger::ParseTimestamp(text);
  if (!t) return Fail(FieldError(where, "launched", t.error().message));
  if (*t > now) {
    return Fail(FieldError(where, "launched",
                           fmt::format("{} is in the future (now is {})",
                                       ledger::FormatTimestamp(*t), ledger::FormatTimestamp(now))));
  }
  return *t;
}

Result<double> Utilization(std::string_view text, std::string_view where) {
  Result<double> v = ParseDouble(Trim(text));
  if (!v || *v < 0 || *v > 100) {
    return Fail(FieldError(where, "gpu_util", fmt::format("'{}' is not a percentage 0-100", text)));
  }
  return *v;
}

// --- YAML -------------------------------------------------------------------------------

Result<std::vector<UtilizationSpan>> ReadHistory(const YamlDoc& doc, const YAML::Node& n) {
  std::vector<UtilizationSpan> history;
  if (!n.IsDefined() || n.IsNull()) return history;
  FRUGAL_TRY(doc.CheckKeys(n, "utilization", {"start", "step", "gpu_util"}));
  const std::string start_text = FRUGAL_TRY(doc.RequiredString(n, "start"));
  Result<ledger::Timestamp> start = ledger::ParseTimestamp(start_text);
  if (!start) return Fail(doc.ErrorAt(n["start"], "start", start.error().message));
  const Duration step = FRUGAL_TRY(doc.OptionalDuration(n, "step")).value_or(std::chrono::hours(1));
  if (step.count() <= 0) return Fail(doc.ErrorAt(n["step"], "step", "must be positive"));
  const YAML::Node values = n["gpu_util"];
  if (!values || !values.IsSequence())
    return Fail(doc.ErrorAt(n, "gpu_util", "expected a list of percentages"));
  ledger::Timestamp t = *start;
  for (const YAML::Node& v : values) {
    const double util = FRUGAL_TRY(Utilization(v.IsScalar() ? v.Scalar() : "", doc.Where(v)));
    history.push_back({t, t + step, util});
    t += step;
  }
  return history;
}

Result<InventoryInstance> ReadYamlInstance(const YamlDoc& doc, const YAML::Node& n,
                                           const catalog::Catalog& catalog, ledger::Timestamp now) {
  FRUGAL_TRY(doc.CheckKeys(n, "instance",
                           {"id", "cloud", "region", "instance_type", "gpu", "gpus", "tier",
                            "price_per_hour", "tags", "launched", "utilization"}));
  InventoryInstance i;
  i.where = doc.Where(n);
  i.id = FRUGAL_TRY(doc.RequiredString(n, "id"));
  i.cloud = ToLower(FRUGAL_TRY(doc.RequiredString(n, "cloud")));
  i.region = FRUGAL_TRY(doc.RequiredString(n, "region"));
  i.instance_type = FRUGAL_TRY(doc.OptionalString(n, "instance_type")).value_or("");
  const std::string gpu = FRUGAL_TRY(doc.RequiredString(n, "gpu"));
  i.gpu = FRUGAL_TRY(ResolveGpu(gpu, catalog, doc.Where(n["gpu"])));
  const int64_t gpus = FRUGAL_TRY(doc.OptionalInt(n, "gpus")).value_or(1);
  if (gpus < 1 || gpus > 1024) return Fail(doc.ErrorAt(n["gpus"], "gpus", "must be 1-1024"));
  i.gpu_count = static_cast<int>(gpus);
  if (auto tier = FRUGAL_TRY(doc.OptionalString(n, "tier"))) {
    i.tier = FRUGAL_TRY(ResolveTier(*tier, doc.Where(n["tier"])));
  }
  const std::optional<Money> price = FRUGAL_TRY(doc.OptionalMoney(n, "price_per_hour"));
  if (!price || *price <= Money()) {
    return Fail(doc.ErrorAt(price ? n["price_per_hour"] : n, "price_per_hour",
                            "needs the positive price per hour the instance costs"));
  }
  i.price = Rate{*price};
  if (const YAML::Node tags = n["tags"]; tags.IsDefined()) {
    if (!tags.IsMap()) return Fail(doc.ErrorAt(tags, "tags", "expected a map of key: value"));
    for (const auto& kv : tags) i.tags.Set(kv.first.Scalar(), kv.second.Scalar());
  }
  if (auto launched = FRUGAL_TRY(doc.OptionalString(n, "launched"))) {
    i.launched = FRUGAL_TRY(Launched(*launched, doc.Where(n["launched"]), now));
  }
  i.history = FRUGAL_TRY(ReadHistory(doc, n["utilization"]));
  return i;
}

Result<Inventory> ReadYaml(const YamlDoc& doc, const catalog::Catalog& catalog,
                           ledger::Timestamp now);

Result<Inventory> ParseYaml(std::string_view text, std::string source,
                            const catalog::Catalog& catalog, ledger::Timestamp now) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, std::move(source)));
  return GuardYaml(doc.source(), [&] { return ReadYaml(doc, catalog, now); });
}

Result<Inventory> ReadYaml(const YamlDoc& doc, const catalog::Catalog& catalog,
                           ledger::Timestamp now) {
  Inventory inv;
  inv.source = doc.source();
  FRUGAL_TRY(doc.CheckKeys(doc.root(), "inventory", {"version", "instances"}));
  if (auto v = FRUGAL_TRY(doc.OptionalInt(doc.root(), "version")); v && *v != 1) {
    return Fail(doc.ErrorAt(doc.root()["version"], "version",
                            fmt::format("unsupported version {} (this frugal reads 1)", *v)));
  }
  const YAML::Node list = doc.root()["instances"];
  if (!list || !list.IsSequence()) {
    return Fail(doc.ErrorAt(list.IsDefined() ? list : doc.root(), "instances",
                            "expected a list of instances"));
  }
  for (const YAML::Node& n : list) {
    inv.instances.push_back(FRUGAL_TRY(ReadYamlInstance(doc, n, catalog, now)));
  }
  return inv;
}

// --- CSV --------------------------------------------------------------------------------

struct CsvColumns {
  size_t id, cloud, region, gpu, price;
  std::optional<size_t> type, gpus, tier, team, project, owner, launched, time, util;
};

Result<CsvColumns> Columns(const CsvTable& t) {
  CsvColumns c{FRUGAL_TRY(t.RequireColumn("id")),
               FRUGAL_TRY(t.RequireColumn("cloud")),
               FRUGAL_TRY(t.RequireColumn("region")),
               FRUGAL_TRY(t.RequireColumn("gpu")),
               FRUGAL_TRY(t.RequireColumn("price_per_hour")),
               t.Column("instance_type"),
               t.Column("gpus"),
               t.Column("tier"),
               t.Column("team"),
               t.Column("project"),
               t.Column("owner"),
               t.Column("launched"),
               t.Column("time"),
               t.Column("gpu_util")};
  if (c.time.has_value() != c.util.has_value()) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}:1: give both columns 'time' and 'gpu_util', or neither", t.source()));
  }
  return c;
}

std::string Optional(const CsvRecord& row, std::optional<size_t> column) {
  return column ? std::string(Trim(CsvTable::Field(row, *column))) : std::string();
}

Result<InventoryInstance> ReadCsvInstance(const CsvTable& t, const CsvRecord& row,
                                          const CsvColumns& c, const catalog::Catalog& catalog,
                                          ledger::Timestamp now) {
  InventoryInstance i;
  i.where = fmt::format("{}:{}", t.source(), row.line);
  auto required = [&](size_t column, std::string_view name) -> Result<std::string> {
    std::string v(Trim(CsvTable::Field(row, column)));
    if (v.empty()) return Fail(FieldError(t.Where(row, column), name, "required"));
    return v;
  };
  i.id = FRUGAL_TRY(required(c.id, "id"));
  i.cloud = ToLower(FRUGAL_TRY(required(c.cloud, "cloud")));
  i.region = FRUGAL_TRY(required(c.region, "region"));
  i.instance_type = Optional(row, c.type);
  const std::string gpu = FRUGAL_TRY(required(c.gpu, "gpu"));
  i.gpu = FRUGAL_TRY(ResolveGpu(gpu, catalog, t.Where(row, c.gpu)));
  if (const std::string gpus = Optional(row, c.gpus); !gpus.empty()) {
    Result<int64_t> n = ParseInt(gpus);
    if (!n || *n < 1 || *n > 1024)
      return Fail(FieldError(t.Where(row, *c.gpus), "gpus", "must be 1-1024"));
    i.gpu_count = static_cast<int>(*n);
  }
  if (const std::string tier = Optional(row, c.tier); !tier.empty()) {
    i.tier = FRUGAL_TRY(ResolveTier(tier, t.Where(row, *c.tier)));
  }
  Result<Money> price = Money::Parse(FRUGAL_TRY(required(c.price, "price_per_hour")));
  if (!price || *price <= Money()) {
    return Fail(
        FieldError(t.Where(row, c.price), "price_per_hour", "needs a positive price per hour"));
  }
  i.price = Rate{*price};
  for (auto [key, column] :
       {std::pair{"team", c.team}, {"project", c.project}, {"owner", c.owner}}) {
    if (std::string v = Optional(row, column); !v.empty()) i.tags.Set(key, v);
  }
  if (const std::string launched = Optional(row, c.launched); !launched.empty()) {
    i.launched = FRUGAL_TRY(Launched(launched, t.Where(row, *c.launched), now));
  }
  return i;
}

Result<Inventory> ParseCsv(std::string_view text, std::string source,
                           const catalog::Catalog& catalog, ledger::Timestamp now) {
  const CsvTable t = FRUGAL_TRY(CsvTable::Parse(text, std::move(source)));
  const CsvColumns c = FRUGAL_TRY(Columns(t));
  Inventory inv;
  inv.source = t.source();
  std::map<std::string, size_t> index;  // id → position in inv.instances
  std::vector<std::vector<std::pair<ledger::Timestamp, double>>> readings;
  for (const CsvRecord& row : t.rows()) {
    const std::string id(Trim(CsvTable::Field(row, c.id)));
    auto [it, fresh] = index.try_emplace(id, inv.instances.size());
    if (fresh) {
      inv.instances.push_back(FRUGAL_TRY(ReadCsvInstance(t, row, c, catalog, now)));
      readings.emplace_back();
    }
    const std::string time = Optional(row, c.time);
    const std::string util = Optional(row, c.util);
    if (time.empty() && util.empty()) continue;
    Result<ledger::Timestamp> at = ledger::ParseTimestamp(time);
    if (!at) return Fail(FieldError(t.Where(row, *c.time), "time", at.error().message));
    auto& mine = readings[it->second];
    if (!mine.empty() && *at <= mine.back().first) {
      return Fail(
          FieldError(t.Where(row, *c.time), "time",
                     fmt::format("'{}' is not after the instance's previous reading", time)));
    }
    mine.emplace_back(*at, FRUGAL_TRY(Utilization(util, t.Where(row, *c.util))));
  }
  for (size_t k = 0; k < readings.size(); ++k) {
    const auto& r = readings[k];
    for (size_t j = 0; j < r.size(); ++j) {
      const Duration length = j + 1 < r.size() ? r[j + 1].first - r[j].first
                              : j > 0          ? r[j].first - r[j - 1].first
                                               : Duration(std::chrono::hours(1));
      inv.instances[k].history.push_back({r[j].first, r[j].first + length, r[j].second});
    }
  }
  return inv;
}

}  // namespace

std::string InventoryInstance::Label() const {
  return fmt::format("instance {} ({}x {})", id, gpu_count, gpu);
}

Result<Inventory> ParseInventory(std::string_view text, std::string source, InventoryFormat format,
                                 const catalog::Catalog& catalog, ledger::Timestamp now) {
  Inventory inv = format == InventoryFormat::kCsv
                      ? FRUGAL_TRY(ParseCsv(text, std::move(source), catalog, now))
                      : FRUGAL_TRY(ParseYaml(text, std::move(source), catalog, now));
  std::set<std::string> ids;
  for (const InventoryInstance& i : inv.instances) {
    if (!ids.insert(i.id).second) {
      return Fail(FieldError(i.where, "id", fmt::format("'{}' is listed twice", i.id)));
    }
  }
  return inv;
}

Result<Inventory> LoadInventory(const std::filesystem::path& path, const catalog::Catalog& catalog,
                                ledger::Timestamp now) {
  const std::string ext = ToLower(path.extension().string());
  InventoryFormat format;
  if (ext == ".csv") {
    format = InventoryFormat::kCsv;
  } else if (ext == ".yaml" || ext == ".yml") {
    format = InventoryFormat::kYaml;
  } else {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: an inventory is a .yaml, .yml or .csv file", path.string()));
  }
  const std::string text = FRUGAL_TRY(ReadFile(path));
  return ParseInventory(text, path.string(), format, catalog, now);
}

}  // namespace frugal::audit

#include "frugal/plan/job_spec_sections.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <utility>

#include "frugal/core/atomic_file.h"
#include "frugal/core/duration.h"
#include "frugal/core/file_name.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml_bounds.h"

namespace frugal::plan {

Result<estimate::ModelFamily> ReadFamily(const YamlDoc& doc, const YAML::Node& model) {
  auto text = FRUGAL_TRY(doc.OptionalString(model, "family"));
  if (!text) return estimate::ModelFamily::kTransformer;
  auto family = estimate::ParseModelFamily(*text);
  if (!family) return Fail(doc.ErrorAt(model["family"], "family", family.error().message));
  return *family;
}

Result<std::optional<double>> ReadHostRam(const YamlDoc& doc, const YAML::Node& root) {
  const YAML::Node n = root["memory"];
  if (!n.IsDefined() || n.IsNull()) return std::optional<double>();
  FRUGAL_TRY(doc.CheckKeys(n, "memory", {"host_ram_gib"}));
  auto gib = FRUGAL_TRY(doc.OptionalDouble(n, "host_ram_gib"));
  if (gib && !(*gib > 0)) {
    return Fail(doc.ErrorAt(n["host_ram_gib"], "host_ram_gib", "must be positive"));
  }
  return gib;
}

Result<LaunchOverrides> ReadFixedCosts(const YamlDoc& doc, const YAML::Node& root) {
  LaunchOverrides o;
  const YAML::Node n = root["fixed_costs"];
  if (!n.IsDefined() || n.IsNull()) return o;
  FRUGAL_TRY(doc.CheckKeys(
      n, "fixed_costs", {"boot", "setup", "staging_gbps", "billing_increment", "minimum_billed"}));
  for (const auto& [key, field] : {std::pair{"boot", &o.boot_hours},
                                   {"setup", &o.setup_hours},
                                   {"billing_increment", &o.billing_increment_hours},
                                   {"minimum_billed", &o.minimum_billed_hours}}) {
    if (auto d = FRUGAL_TRY(doc.OptionalDuration(n, key))) {
      if (d->count() < 0) return Fail(doc.ErrorAt(n[key], key, "must not be negative"));
      *field = ToHours(*d);
    }
  }
  o.staging_gbps = FRUGAL_TRY(doc.OptionalDouble(n, "staging_gbps"));
  if (o.staging_gbps && !(*o.staging_gbps > 0)) {
    return Fail(doc.ErrorAt(n["staging_gbps"], "staging_gbps", "must be positive"));
  }
  return o;
}

namespace {

/// `location: cloud:region`, or `cloud` and `region`, in map `n` (section `what`). The cloud
/// is kept lower case; checked against the catalog by the planner (data_locality.h).
Result<DataLocation> ReadLocation(const YamlDoc& doc, const YAML::Node& n) {
  DataLocation l;
  const auto location = FRUGAL_TRY(doc.OptionalString(n, "location"));
  const auto cloud = FRUGAL_TRY(doc.OptionalString(n, "cloud"));
  const auto region = FRUGAL_TRY(doc.OptionalString(n, "region"));
  if (location) {
    if (cloud || region) {
      return Fail(doc.ErrorAt(n["location"], "location",
                              "give either location (cloud:region) or cloud and region"));
    }
    const std::string text(Trim(*location));
    const size_t colon = text.find(':');
    const auto part_ok = [](std::string_view p) {
      return !p.empty() && p.find_first_of(" \t:/") == std::string_view::npos;
    };
    if (colon == std::string::npos || !part_ok(std::string_view(text).substr(0, colon)) ||
        !part_ok(std::string_view(text).substr(colon + 1))) {
      return Fail(doc.ErrorAt(
          n["location"], "location",
          fmt::format("'{}' is not cloud:region (for example aws:ap-south-1)", Abbreviate(text))));
    }
    l.cloud = ToLower(text.substr(0, colon));
    l.region = text.substr(colon + 1);
    l.where = l.cloud_where = doc.Where(n["location"]);
    return l;
  }
  l.cloud = ToLower(Trim(cloud.value_or("")));
  l.region = std::string(Trim(region.value_or("")));
  if (cloud && l.cloud.empty()) return Fail(doc.ErrorAt(n["cloud"], "cloud", "is empty"));
  if (region && l.region.empty()) return Fail(doc.ErrorAt(n["region"], "region", "is empty"));
  if (!l.cloud.empty() && l.region.empty()) {
    return Fail(doc.ErrorAt(n["cloud"], "cloud", "needs the region the data is in ('region')"));
  }
  if (region) l.where = doc.Where(n["region"]);
  if (cloud) l.cloud_where = doc.Where(n["cloud"]);
  return l;
}

Result<std::optional<double>> PositiveGb(const YamlDoc& doc, const YAML::Node& n) {
  const auto gb = FRUGAL_TRY(doc.OptionalDouble(n, "size_gb"));
  // An exabyte bounds every price of moving or keeping it well inside Money.
  if (gb && !(*gb > 0 && *gb <= 1e9)) {
    return Fail(doc.ErrorAt(n["size_gb"], "size_gb", "must be positive and at most 1e9 GB"));
  }
  return gb;
}

/// `preprocessing: {cache_key, duration, cache}` into `d`; `cache` is a URL, or a map with
/// the cache's location, size and URL.
Result<void> ReadPreprocessing(const YamlDoc& doc, const YAML::Node& p, DataSpec& d) {
  FRUGAL_TRY(doc.CheckKeys(p, "preprocessing", {"cache_key", "duration", "cache"}));
  d.cache_key = FRUGAL_TRY(doc.RequiredString(p, "cache_key"));
  if (auto t = FRUGAL_TRY(doc.OptionalDuration(p, "duration"))) {
    if (t->count() <= 0) return Fail(doc.ErrorAt(p["duration"], "duration", "must be positive"));
    d.preprocess_hours = ToHours(*t);
  }
  const YAML::Node c = p["cache"];
  if (!c.IsDefined() || !c.IsMap()) {
    d.cache = FRUGAL_TRY(doc.OptionalString(p, "cache")).value_or("");
    return {};
  }
  FRUGAL_TRY(doc.CheckKeys(c, "cache", {"location", "cloud", "region", "size_gb", "url"}));
  d.cache_location = FRUGAL_TRY(ReadLocation(doc, c));
  if (!d.cache_location.declared()) {
    return Fail(doc.ErrorAt(c, "cache",
                            "needs where the cache is ('location: cloud:region', or 'cloud' and "
                            "'region')"));
  }
  d.cache_size_gb = FRUGAL_TRY(PositiveGb(doc, c));
  if (!d.cache_size_gb) return Fail(doc.Missing(c, "size_gb"));
  d.cache = FRUGAL_TRY(doc.OptionalString(c, "url")).value_or(d.cache_location.Label());
  return {};
}

}  // namespace

Result<DataSpec> ReadData(const YamlDoc& doc, const YAML::Node& root) {
  DataSpec d;
  const YAML::Node n = root["data"];
  if (!n.IsDefined() || n.IsNull()) return d;
  FRUGAL_TRY(doc.CheckKeys(
      n, "data", {"location", "cloud", "region", "size_gb", "runs", "keep", "preprocessing"}));
  const DataLocation l = FRUGAL_TRY(ReadLocation(doc, n));
  d.cloud = l.cloud;
  d.region = l.region;
  d.where = l.where;
  d.cloud_where = l.cloud_where;
  d.size_gb = FRUGAL_TRY(PositiveGb(doc, n));
  d.size_where = doc.Where(n);
  d.runs = FRUGAL_TRY(OptionalIntIn(doc, n, "runs", 1, 1'000'000)).value_or(1);
  if (auto keep = FRUGAL_TRY(doc.OptionalDuration(n, "keep"))) {
    d.keep_hours = ToHours(*keep);
    if (!(d.keep_hours > 0 && d.keep_hours <= 100 * 8766.0)) {
      return Fail(doc.ErrorAt(n["keep"], "keep", "must be positive and at most 100 years"));
    }
  }
  const YAML::Node p = n["preprocessing"];
  if (p.IsDefined() && !p.IsNull()) FRUGAL_TRY(ReadPreprocessing(doc, p, d));
  return d;
}

Result<void> ReadRecordedProfile(const YamlDoc& doc, const YAML::Node& at, const std::string& name,
                                 const std::filesystem::path& profiles_dir, MeasuredProfile& p) {
  FRUGAL_TRY(CheckFileName(name, fmt::format("{}: field 'profile'", doc.Where(at))));
  const std::filesystem::path path = profiles_dir / (name + ".json");
  std::error_code ec;
  if (profiles_dir.empty() || !std::filesystem::exists(path, ec)) {
    return Fail(doc.ErrorAt(at, "profile",
                            fmt::format("no recorded profile '{}' ({}); record one with `frugal "
                                        "profile --name {} -- COMMAND`",
                                        name, path.string(), name)));
  }
  const Result<std::string> text = ReadFile(path);
  if (!text) return Fail(doc.ErrorAt(at, "profile", text.error().message));
  const auto record = nlohmann::json::parse(*text, nullptr, false);
  if (!record.is_object() || record.value("format_version", 0) != 1 ||
      !record.contains("units_per_second") || !record["units_per_second"].is_number() ||
      !(record["units_per_second"].get<double>() > 0)) {
    return Fail(doc.ErrorAt(at, "profile",
                            fmt::format("{} is not a frugal profile record", path.string())));
  }
  const double rate = record["units_per_second"].get<double>();
  const std::string units = record.value("units", "steps");
  if (units == "tokens") {
    p.tokens_per_second = rate;
  } else if (units == "samples") {
    p.samples_per_second = rate;
  } else {
    return Fail(
        doc.ErrorAt(at, "profile",
                    fmt::format("profile '{}' measured {}, not samples or tokens: record it "
                                "again with --units-per-step, or report a cumulative "
                                "'samples' metric",
                                name, units)));
  }
  p.source = fmt::format("profile '{}' measured {} on {}", name, record.value("measured_at", "?"),
                         record.value("device", "?"));
  if (const auto id = record.find("profile_id"); id != record.end() && id->is_number_integer()) {
    p.profile_id = id->get<int64_t>();
  }
  return {};
}

}  // namespace frugal::plan

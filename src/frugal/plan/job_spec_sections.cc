#include "frugal/plan/job_spec_sections.h"

#include <fmt/format.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <utility>

#include "frugal/core/duration.h"

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

Result<void> ReadRecordedProfile(const YamlDoc& doc, const YAML::Node& at, const std::string& name,
                                 const std::filesystem::path& profiles_dir, MeasuredProfile& p) {
  const std::filesystem::path path = profiles_dir / (name + ".json");
  std::ifstream in(path);
  if (profiles_dir.empty() || !in) {
    return Fail(doc.ErrorAt(at, "profile",
                            fmt::format("no recorded profile '{}' ({}); record one with `frugal "
                                        "profile --name {} -- COMMAND`",
                                        name, path.string(), name)));
  }
  const auto record = nlohmann::json::parse(in, nullptr, false);
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

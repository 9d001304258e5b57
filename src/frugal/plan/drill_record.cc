#include "frugal/plan/drill_record.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "frugal/core/atomic_file.h"

namespace frugal::plan {
namespace {

using nlohmann::json;

Error FieldError(const std::filesystem::path& path, std::string_view field, std::string_view why) {
  return Error{ErrorCode::kBadInput, fmt::format("{}: field '{}': {}", path.string(), field, why)};
}

/// The `max` of a {max, mean} statistic in seconds; nullopt when the drill measured nothing.
Result<std::optional<double>> StatMax(const std::filesystem::path& path, const json& doc,
                                      const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || it->is_null()) return std::nullopt;
  const std::string field = std::string(key) + ".max";
  if (!it->is_object()) return Fail(FieldError(path, key, "expected {max, mean}"));
  const auto max = it->find("max");
  if (max == it->end() || max->is_null()) return std::nullopt;
  if (!max->is_number() || max->get<double>() < 0) {
    return Fail(FieldError(path, field, "expected seconds (a number >= 0)"));
  }
  return max->get<double>();
}

Result<bool> Flag(const std::filesystem::path& path, const json& doc, const char* key) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_boolean()) {
    return Fail(FieldError(path, key, "expected true or false"));
  }
  return it->get<bool>();
}

}  // namespace

Result<DrillRecord> ReadDrillRecord(const std::filesystem::path& path) {
  const std::string text = FRUGAL_TRY(ReadFile(path));
  const json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: not a drill record (expected a JSON object)", path.string()));
  }
  if (doc.value("v", 0) != 1) {
    return Fail(FieldError(path, "v", "unsupported drill record version (expected 1)"));
  }
  DrillRecord r;
  r.name = doc.value("name", path.stem().string());
  r.measured_at = doc.value("measured_at", "");
  r.checkpoint_write_max = FRUGAL_TRY(StatMax(path, doc, "checkpoint_write_seconds"));
  r.restart_max = FRUGAL_TRY(StatMax(path, doc, "restart_seconds"));
  r.checkpoint_on_notice = FRUGAL_TRY(Flag(path, doc, "checkpoint_on_notice"));
  r.spot_ready = FRUGAL_TRY(Flag(path, doc, "spot_ready"));
  if (const auto it = doc.find("reasons"); it != doc.end() && it->is_array()) {
    for (const json& reason : *it) {
      if (reason.is_string()) r.reasons.push_back(reason.get<std::string>());
    }
  }
  return r;
}

}  // namespace frugal::plan

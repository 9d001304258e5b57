#include "frugal/audit/thresholds.h"

#include <fmt/format.h>

#include "frugal/core/paths.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_guard.h"

namespace frugal::audit {
namespace {

/// Reads an optional number into `value`, checking lo <= value <= hi.
Result<void> ReadNumber(const YamlDoc& doc, std::string_view key, double lo, double hi,
                        double& value) {
  std::optional<double> read = FRUGAL_TRY(doc.OptionalDouble(doc.root(), key));
  if (!read) return {};
  if (!(*read >= lo && *read <= hi)) {
    return tl::unexpected(doc.ErrorAt(doc.root()[std::string(key)], key,
                                      fmt::format("{} is out of range [{}, {}]", *read, lo, hi)));
  }
  value = *read;
  return {};
}

/// The document's keys and version.
Result<void> CheckThresholdsDoc(const YamlDoc& doc) {
  FRUGAL_TRY(doc.CheckKeys(doc.root(), "thresholds",
                           {"version",
                            "idle_gpu_util_pct",
                            "idle_min_hours",
                            "underutil_gpu_util_pct",
                            "underutil_min_minutes",
                            "memory_headroom_pct",
                            "spot_max_run_hours",
                            "spot_restart_minutes",
                            "spot_checkpoint_min_minutes",
                            "commitment_min_days",
                            "commitment_tier",
                            "untagged_max_share_pct",
                            "attribution_tags",
                            "study_min_trials",
                            "forgotten_days",
                            "forgotten_idle_days",
                            "tensor_min_sm_active_pct",
                            "tensor_unused_pct",
                            "tensor_matmul_share_pct",
                            "data_far_min_gb",
                            "preprocess_min_runs",
                            "budget_burn_days",
                            "commitment_min_history_days",
                            "commitment_max_unused_pct",
                            "month_days",
                            "budgets"}));
  std::optional<int64_t> version = FRUGAL_TRY(doc.OptionalInt(doc.root(), "version"));
  if (version && *version != 1) {
    return tl::unexpected(
        doc.ErrorAt(doc.root()["version"], "version",
                    fmt::format("unsupported version {} (this frugal reads 1)", *version)));
  }
  return {};
}

/// Every numeric threshold the document sets, each within its range.
Result<void> ReadNumbers(const YamlDoc& doc, Thresholds& t) {
  FRUGAL_TRY(ReadNumber(doc, "idle_gpu_util_pct", 0, 100, t.idle_gpu_util_pct));
  FRUGAL_TRY(ReadNumber(doc, "idle_min_hours", 1, 24 * 365, t.idle_min_hours));
  FRUGAL_TRY(ReadNumber(doc, "underutil_gpu_util_pct", 0, 100, t.underutil_gpu_util_pct));
  FRUGAL_TRY(ReadNumber(doc, "underutil_min_minutes", 1, 24 * 60 * 30, t.underutil_min_minutes));
  FRUGAL_TRY(ReadNumber(doc, "memory_headroom_pct", 0, 100, t.memory_headroom_pct));
  FRUGAL_TRY(ReadNumber(doc, "spot_max_run_hours", 0.1, 24 * 30, t.spot_max_run_hours));
  FRUGAL_TRY(ReadNumber(doc, "spot_restart_minutes", 0, 24 * 60, t.spot_restart_minutes));
  FRUGAL_TRY(
      ReadNumber(doc, "spot_checkpoint_min_minutes", 0, 24 * 60, t.spot_checkpoint_min_minutes));
  FRUGAL_TRY(ReadNumber(doc, "commitment_min_days", 1, 365 * 3, t.commitment_min_days));
  FRUGAL_TRY(ReadNumber(doc, "untagged_max_share_pct", 0, 100, t.untagged_max_share_pct));
  FRUGAL_TRY(ReadNumber(doc, "study_min_trials", 1, 1e6, t.study_min_trials));
  FRUGAL_TRY(ReadNumber(doc, "forgotten_days", 1, 365, t.forgotten_days));
  FRUGAL_TRY(ReadNumber(doc, "forgotten_idle_days", 1, 365, t.forgotten_idle_days));
  FRUGAL_TRY(ReadNumber(doc, "tensor_min_sm_active_pct", 0, 100, t.tensor_min_sm_active_pct));
  FRUGAL_TRY(ReadNumber(doc, "tensor_unused_pct", 0, 100, t.tensor_unused_pct));
  FRUGAL_TRY(ReadNumber(doc, "tensor_matmul_share_pct", 0, 100, t.tensor_matmul_share_pct));
  FRUGAL_TRY(ReadNumber(doc, "data_far_min_gb", 0, 1e9, t.data_far_min_gb));
  FRUGAL_TRY(ReadNumber(doc, "preprocess_min_runs", 2, 1e6, t.preprocess_min_runs));
  FRUGAL_TRY(ReadNumber(doc, "budget_burn_days", 1, 365, t.budget_burn_days));
  FRUGAL_TRY(ReadNumber(doc, "commitment_min_history_days", 1, 365, t.commitment_min_history_days));
  FRUGAL_TRY(ReadNumber(doc, "commitment_max_unused_pct", 0, 100, t.commitment_max_unused_pct));
  FRUGAL_TRY(ReadNumber(doc, "month_days", 28, 31, t.month_days));
  return {};
}

Result<Thresholds> FromDoc(const YamlDoc& doc) {
  Thresholds t;
  if (!doc.root() || doc.root().IsNull()) return t;
  FRUGAL_TRY(CheckThresholdsDoc(doc));
  FRUGAL_TRY(ReadNumbers(doc, t));
  t.budgets = FRUGAL_TRY(ReadBudgets(doc, doc.root()));
  if (auto tier = FRUGAL_TRY(doc.OptionalString(doc.root(), "commitment_tier"))) {
    const std::optional<CapacityTier> parsed = TierNamed(*tier);
    if (!parsed || !IsReservedTier(*parsed)) {
      return tl::unexpected(doc.ErrorAt(doc.root()["commitment_tier"], "commitment_tier",
                                        "must be reserved_1y or reserved_3y"));
    }
    t.commitment_tier = *parsed;
  }
  if (doc.root()["attribution_tags"]) {
    t.attribution_tags = FRUGAL_TRY(doc.StringList(doc.root(), "attribution_tags"));
    if (t.attribution_tags.empty()) {
      return tl::unexpected(doc.ErrorAt(doc.root()["attribution_tags"], "attribution_tags",
                                        "needs at least one tag key"));
    }
  }
  return t;
}

}  // namespace

Result<Thresholds> LoadThresholds(const std::filesystem::path& path) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  Thresholds t = FRUGAL_TRY(GuardYaml(doc.source(), [&] { return FromDoc(doc); }));
  t.source = path.string();
  return t;
}

Result<Thresholds> ResolveThresholds(const std::filesystem::path& explicit_path) {
  if (!explicit_path.empty()) return LoadThresholds(explicit_path);
  const std::filesystem::path user = UserConfigDir() / "audit.yaml";
  std::error_code ec;
  if (std::filesystem::exists(user, ec)) return LoadThresholds(user);
  return Thresholds{};
}

Result<Thresholds> ParseThresholds(std::string_view text, std::string source) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, std::move(source)));
  Thresholds t = FRUGAL_TRY(GuardYaml(doc.source(), [&] { return FromDoc(doc); }));
  t.source = doc.source();
  return t;
}

}  // namespace frugal::audit

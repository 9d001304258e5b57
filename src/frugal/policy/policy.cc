#include "frugal/policy/policy.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <string>
#include <vector>

#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_guard.h"

namespace frugal::policy {
namespace {

/// apiVersion and kind, and the policy's name and revision.
Result<void> ReadPolicyHeader(const YamlDoc& doc, const YAML::Node& root, Policy& p) {
  const std::string api = FRUGAL_TRY(doc.RequiredString(root, "apiVersion"));
  if (api != "frugal/v1") {
    return tl::unexpected(doc.ErrorAt(root["apiVersion"], "apiVersion", "must be frugal/v1"));
  }
  if (FRUGAL_TRY(doc.RequiredString(root, "kind")) != "Policy") {
    return tl::unexpected(doc.ErrorAt(root["kind"], "kind", "must be Policy"));
  }
  p.name = FRUGAL_TRY(doc.RequiredString(root, "name"));
  // The revision is required: every refusal and override names the policy by it.
  const std::optional<int64_t> version = FRUGAL_TRY(doc.OptionalInt(root, "version"));
  if (!version) {
    return tl::unexpected(
        doc.ErrorAt(root, "version", "missing: the policy's revision (1, 2, ...) is required"));
  }
  p.version = *version;
  if (p.version < 1) {
    return tl::unexpected(doc.ErrorAt(root["version"], "version", "must be 1 or more"));
  }
  return {};
}

/// The tag that names a run's workload class, the default class, and each class's GPU models.
Result<void> ReadWorkloadClasses(const YamlDoc& doc, const YAML::Node& root,
                                 const catalog::Catalog& catalog, Policy& p) {
  p.workload_tag = FRUGAL_TRY(doc.OptionalString(root, "workload_tag")).value_or("workload");
  p.default_workload =
      FRUGAL_TRY(doc.OptionalString(root, "default_workload")).value_or("training");
  if (const YAML::Node classes = root["workload_classes"]) {
    if (!classes.IsMap()) {
      return tl::unexpected(
          doc.ErrorAt(classes, "workload_classes", "must map a class to a list of GPU models"));
    }
    for (const auto& entry : classes) {
      const std::string cls = entry.first.as<std::string>();
      for (const std::string& name : FRUGAL_TRY(doc.StringList(classes, cls))) {
        const catalog::GpuSpec* gpu = catalog.FindGpu(name);
        if (gpu == nullptr) {
          auto known = catalog.RequireGpu(name);
          return tl::unexpected(doc.ErrorAt(entry.second, "workload_classes." + cls,
                                            known ? "unknown GPU" : known.error().message));
        }
        p.allowed_gpus[cls].push_back(gpu->name);
      }
    }
  }
  // A default class no class list names would make every untagged run a violation.
  if (!p.allowed_gpus.empty() && !p.allowed_gpus.contains(p.default_workload)) {
    std::vector<std::string> classes;
    for (const auto& [cls, gpus] : p.allowed_gpus) classes.push_back(cls);
    const YAML::Node at = root["default_workload"] ? root["default_workload"] : root;
    return tl::unexpected(doc.ErrorAt(
        at, "default_workload",
        fmt::format("'{}' is not one of workload_classes ({}){}", Abbreviate(p.default_workload),
                    fmt::join(classes, ", "), DidYouMean(p.default_workload, classes))));
  }
  return {};
}

/// The rules on H100s, spot, checkpoints, budgets and tags.
Result<void> ReadPolicyRules(const YamlDoc& doc, const YAML::Node& root, Policy& p) {
  p.h100_justification_tag =
      FRUGAL_TRY(doc.OptionalString(root, "h100_justification_tag")).value_or("");
  p.spot_for_fault_tolerant_training =
      FRUGAL_TRY(doc.OptionalBool(root, "spot_for_fault_tolerant_training")).value_or(false);
  p.max_spot_checkpoint_interval =
      FRUGAL_TRY(doc.OptionalDuration(root, "max_spot_checkpoint_interval"));
  if (p.max_spot_checkpoint_interval && p.max_spot_checkpoint_interval->count() <= 0) {
    return tl::unexpected(doc.ErrorAt(root["max_spot_checkpoint_interval"],
                                      "max_spot_checkpoint_interval", "must be positive"));
  }
  p.max_budget_without_approval =
      FRUGAL_TRY(doc.OptionalMoney(root, "max_budget_without_approval"));
  if (p.max_budget_without_approval && *p.max_budget_without_approval <= Money()) {
    return tl::unexpected(doc.ErrorAt(root["max_budget_without_approval"],
                                      "max_budget_without_approval", "must be positive"));
  }
  p.approval_tag = FRUGAL_TRY(doc.OptionalString(root, "approval_tag")).value_or("approved_by");
  p.required_tags = FRUGAL_TRY(doc.StringList(root, "required_tags"));
  return {};
}

Result<Policy> FromDoc(const YamlDoc& doc, const catalog::Catalog& catalog) {
  const YAML::Node& root = doc.root();
  FRUGAL_TRY(doc.CheckKeys(root, "policy",
                           {"apiVersion", "kind", "name", "version", "workload_tag",
                            "default_workload", "workload_classes", "h100_justification_tag",
                            "spot_for_fault_tolerant_training", "max_spot_checkpoint_interval",
                            "max_budget_without_approval", "approval_tag", "required_tags"}));
  Policy p;
  p.source = doc.source();
  FRUGAL_TRY(ReadPolicyHeader(doc, root, p));
  FRUGAL_TRY(ReadWorkloadClasses(doc, root, catalog, p));
  FRUGAL_TRY(ReadPolicyRules(doc, root, p));
  return p;
}

}  // namespace

Result<Policy> LoadPolicy(const std::filesystem::path& path, const catalog::Catalog& catalog) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  return GuardYaml(doc.source(), [&] { return FromDoc(doc, catalog); });
}

Result<Policy> ParsePolicy(std::string_view text, const std::string& source,
                           const catalog::Catalog& catalog) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, source));
  return GuardYaml(doc.source(), [&] { return FromDoc(doc, catalog); });
}

}  // namespace frugal::policy

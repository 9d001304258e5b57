#pragma once
// A team's GPU policy, a versioned YAML file (docs/policy.md), and the check of a job or
// study spec against it. Format (apiVersion frugal/v1, kind Policy):
//
//   apiVersion: frugal/v1
//   kind: Policy
//   name: ml-platform
//   version: 3                          # the policy's own revision, shown with every check
//   workload_tag: workload              # the tag naming a spec's class (default: workload)
//   default_workload: training
//   workload_classes:                   # allowed GPU models per class
//     training: [A100-80GB, L4, H100-80GB-SXM]
//     inference: [T4, L4]
//   h100_justification_tag: justification
//   spot_for_fault_tolerant_training: true
//   max_spot_checkpoint_interval: 30m
//   max_budget_without_approval: 500
//   approval_tag: approved_by
//   required_tags: [team, project, owner]

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"

namespace frugal::policy {

struct Policy {
  std::string source;
  std::string name;
  int64_t version = 1;
  std::string workload_tag = "workload";
  std::string default_workload = "training";
  std::map<std::string, std::vector<std::string>> allowed_gpus;  ///< class → canonical names
  std::string h100_justification_tag;  ///< "" = H100 needs no justification
  bool spot_for_fault_tolerant_training = false;
  std::optional<Duration> max_spot_checkpoint_interval;
  std::optional<Money> max_budget_without_approval;
  std::string approval_tag = "approved_by";
  std::vector<std::string> required_tags;
};

/// Reads a policy; GPU names are checked against `catalog`. kBadInput "file:line:col: field
/// 'x': ..." on unknown keys, unknown GPUs, bad values.
[[nodiscard]] Result<Policy> LoadPolicy(const std::filesystem::path& path,
                                        const catalog::Catalog& catalog);
[[nodiscard]] Result<Policy> ParsePolicy(std::string_view text, const std::string& source,
                                         const catalog::Catalog& catalog);

/// What a spec asks for, as far as the policy cares.
struct Subject {
  std::string kind;  ///< "Job" or "Study"
  std::string name;
  std::map<std::string, std::string> tags;
  std::vector<std::string> gpus;  ///< allowed or chosen GPU models; empty = any
  std::vector<std::string> tiers;  ///< allowed tiers; empty = any
  bool fault_tolerant = false;     ///< declares checkpointing (fault_tolerance / interval)
  std::optional<Duration> checkpoint_interval;  ///< the longest interval it may use
  std::optional<Money> budget;
};

/// Reads a Job (through the planner's spec parser) or a Study spec. kBadInput with file,
/// line and field on a malformed spec.
[[nodiscard]] Result<Subject> LoadSubject(const std::filesystem::path& path,
                                          const catalog::Catalog& catalog);

struct Violation {
  std::string rule;  ///< gpu-model, h100-justification, spot-required, checkpoint-interval,
                     ///< budget-approval, required-tags
  std::string message;
};

/// Every violation of `policy` by `subject`, in rule order.
[[nodiscard]] std::vector<Violation> Check(const Policy& policy, const Subject& subject);

}  // namespace frugal::policy

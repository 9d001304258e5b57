#pragma once
// A team's GPU policy, a versioned YAML file (docs/policy.md), and the check of a job or
// study spec against it. Format (apiVersion frugal/v1, kind Policy):
//
//   apiVersion: frugal/v1
//   kind: Policy
//   name: ml-platform
//   version: 3                          # required: the policy's own revision, recorded with
//                                       # every check and override
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
#include "frugal/core/tier.h"
#include "frugal/plan/planner.h"

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

  /// "ml-platform v3": how checks, refusals and overrides name the policy.
  [[nodiscard]] std::string Label() const;
};

/// Reads a policy; GPU names are checked against `catalog`. kBadInput "file:line:col: field
/// 'x': ..." on unknown keys, a missing or non-positive version, unknown GPUs, bad values.
[[nodiscard]] Result<Policy> LoadPolicy(const std::filesystem::path& path,
                                        const catalog::Catalog& catalog);
[[nodiscard]] Result<Policy> ParsePolicy(std::string_view text, const std::string& source,
                                         const catalog::Catalog& catalog);

/// What a spec asks for, as far as the policy cares.
struct Subject {
  std::string kind;  ///< "Job", "Study", or "Run" (a `frugal run` without a spec)
  std::string name;
  std::map<std::string, std::string> tags;
  std::vector<std::string> gpus;    ///< allowed or chosen GPU models; empty = any
  bool no_gpu = false;              ///< runs on CPUs only: the GPU rules do not apply
  std::vector<CapacityTier> tiers;  ///< allowed tiers; empty = any
  bool fault_tolerant = false;      ///< declares checkpointing (fault_tolerance / interval)
  std::optional<Duration> checkpoint_interval;  ///< the longest interval it may use
  bool checkpoint_on_notice = false;  ///< saves when the preemption notice arrives (any interval)
  /// Set when the spec asks to save on notice but the save does not fit in it: why.
  std::optional<std::string> notice_too_short;
  std::optional<Money> budget;
};

/// Reads a Job (through the planner's spec parser) or a Study spec. kBadInput with file,
/// line and field on a malformed spec.
[[nodiscard]] Result<Subject> LoadSubject(const std::filesystem::path& path,
                                          const catalog::Catalog& catalog);

/// A Job spec given as text (a posted one, whose relative paths resolve nowhere); as
/// LoadSubject.
[[nodiscard]] Result<Subject> JobSubjectFromText(std::string_view yaml, const std::string& source,
                                                 const catalog::Catalog& catalog);

/// A Study spec given as text (a study's stored spec, on resume); as LoadSubject.
[[nodiscard]] Result<Subject> StudySubjectFromText(std::string_view yaml, std::string source,
                                                   const catalog::Catalog& catalog);

/// `job` (a Job subject) as one option of its plan runs it: that offer's GPU and tier, and on
/// spot the planner's checkpointing (on notice, or its periodic interval).
[[nodiscard]] Subject ForOption(const Subject& job, const plan::Option& option);

struct Violation {
  std::string rule;     ///< gpu-model, h100-justification, spot-required, checkpoint-interval,
                        ///< budget-approval, required-tags
  std::string message;  ///< what is wrong
  std::string fix;      ///< the change that complies, in the subject's field names
};

/// Every violation of `policy` by `subject`, in rule order.
[[nodiscard]] std::vector<Violation> Check(const Policy& policy, const Subject& subject);

/// The rules `violations` break, each once, in rule order.
[[nodiscard]] std::vector<std::string> RuleNames(const std::vector<Violation>& violations);

}  // namespace frugal::policy

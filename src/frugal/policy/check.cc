#include <algorithm>
#include <fmt/format.h>

#include "frugal/policy/policy.h"

namespace frugal::policy {
namespace {

bool HasTag(const Subject& s, const std::string& key) {
  auto it = s.tags.find(key);
  return it != s.tags.end() && !it->second.empty();
}

std::string List(const std::vector<std::string>& v) { return fmt::format("{}", fmt::join(v, ", ")); }

}  // namespace

std::vector<Violation> Check(const Policy& p, const Subject& s) {
  std::vector<Violation> out;
  const std::string cls =
      HasTag(s, p.workload_tag) ? s.tags.at(p.workload_tag) : p.default_workload;
  if (auto allowed = p.allowed_gpus.find(cls); allowed != p.allowed_gpus.end()) {
    const auto& ok = allowed->second;
    if (s.gpus.empty()) {
      out.push_back({"gpu-model", fmt::format("no GPU list, so any GPU may be chosen; {} work "
                                              "may use only: {}",
                                              cls, List(ok))});
    }
    for (const std::string& g : s.gpus) {
      if (std::find(ok.begin(), ok.end(), g) == ok.end()) {
        out.push_back({"gpu-model", fmt::format("{} is not allowed for {} work (allowed: {})", g,
                                                cls, List(ok))});
      }
    }
  } else if (!p.allowed_gpus.empty()) {
    out.push_back({"gpu-model", fmt::format("workload class '{}' is not in the policy", cls)});
  }
  if (!p.h100_justification_tag.empty() && !HasTag(s, p.h100_justification_tag)) {
    const bool h100 = s.gpus.empty() || std::any_of(s.gpus.begin(), s.gpus.end(), [](auto& g) {
                        return g.starts_with("H100");
                      });
    if (h100) {
      out.push_back({"h100-justification",
                     fmt::format("H100 {} without a '{}' tag",
                                 s.gpus.empty() ? "may be chosen" : "requested",
                                 p.h100_justification_tag)});
    }
  }
  const bool spot_only = s.tiers.size() == 1 && s.tiers[0] == "spot";
  const bool may_use_spot = s.tiers.empty() || std::find(s.tiers.begin(), s.tiers.end(),
                                                         "spot") != s.tiers.end();
  if (p.spot_for_fault_tolerant_training && cls == "training" && s.fault_tolerant && !spot_only) {
    out.push_back({"spot-required",
                   fmt::format("fault-tolerant training must run on spot only (tiers: {})",
                               s.tiers.empty() ? std::string("any") : List(s.tiers))});
  }
  if (p.max_spot_checkpoint_interval && may_use_spot && s.fault_tolerant) {
    if (!s.checkpoint_interval) {
      out.push_back({"checkpoint-interval",
                     fmt::format("no maximum checkpoint interval on spot (policy: at most {})",
                                 FormatDuration(*p.max_spot_checkpoint_interval))});
    } else if (*s.checkpoint_interval > *p.max_spot_checkpoint_interval) {
      out.push_back({"checkpoint-interval",
                     fmt::format("checkpoints every {} on spot; the policy allows at most {}",
                                 FormatDuration(*s.checkpoint_interval),
                                 FormatDuration(*p.max_spot_checkpoint_interval))});
    }
  }
  if (p.max_budget_without_approval && !HasTag(s, p.approval_tag)) {
    if (!s.budget) {
      out.push_back({"budget-approval",
                     fmt::format("no budget; above {} needs a '{}' tag",
                                 p.max_budget_without_approval->ToString(), p.approval_tag)});
    } else if (*s.budget > *p.max_budget_without_approval) {
      out.push_back({"budget-approval",
                     fmt::format("budget {} is above {} without a '{}' tag", s.budget->ToString(),
                                 p.max_budget_without_approval->ToString(), p.approval_tag)});
    }
  }
  for (const std::string& tag : p.required_tags) {
    if (!HasTag(s, tag)) out.push_back({"required-tags", fmt::format("missing tag '{}'", tag)});
  }
  return out;
}

}  // namespace frugal::policy

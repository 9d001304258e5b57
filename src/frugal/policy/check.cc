// The check of a subject (a job or study spec, a run about to start, one option of a plan)
// against a policy: one function per rule, each violation with the change that fixes it, in
// the field names of the subject's kind.

#include <fmt/format.h>

#include <algorithm>

#include "frugal/policy/policy.h"

namespace frugal::policy {
namespace {

bool HasTag(const Subject& s, const std::string& key) {
  auto it = s.tags.find(key);
  return it != s.tags.end() && !it->second.empty();
}

std::string List(const std::vector<std::string>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

std::string List(const std::vector<CapacityTier>& tiers) {
  std::vector<std::string> names;
  names.reserve(tiers.size());
  for (const CapacityTier t : tiers) names.emplace_back(CapacityTierName(t));
  return List(names);
}

/// Where a subject of each kind states what a rule judges.
struct Fields {
  std::string gpus, tiers, budget, checkpoint;
  std::string Tag(const std::string& key) const {
    return kind_is_run ? fmt::format("--tag {}=VALUE", key) : fmt::format("tags.{}", key);
  }
  bool kind_is_run = false;
};

Fields FieldsOf(const Subject& s) {
  if (s.kind == "Study") {
    return {"resources.offer", "resources.tier", "gates.budget_usd",
            "resources.checkpoint_interval.max", false};
  }
  if (s.kind == "Run") return {"--gpu/--offer", "--tier", "--budget", "--spec", true};
  return {"constraints.gpus", "constraints.tiers", "constraints.budget",
          "fault_tolerance.checkpoint_on_notice", false};
}

std::string WorkloadClass(const Policy& p, const Subject& s) {
  return HasTag(s, p.workload_tag) ? s.tags.at(p.workload_tag) : p.default_workload;
}

void GpuModel(const Policy& p, const Subject& s, const Fields& f, std::vector<Violation>& out) {
  if (p.allowed_gpus.empty() || s.no_gpu) return;
  const std::string cls = WorkloadClass(p, s);
  const auto allowed = p.allowed_gpus.find(cls);
  if (allowed == p.allowed_gpus.end()) {
    std::vector<std::string> classes;
    for (const auto& [name, gpus] : p.allowed_gpus) classes.push_back(name);
    out.push_back({"gpu-model", fmt::format("workload class '{}' is not in the policy", cls),
                   fmt::format("set {} to one of: {}", f.Tag(p.workload_tag), List(classes))});
    return;
  }
  const std::vector<std::string>& ok = allowed->second;
  if (s.gpus.empty()) {
    out.push_back({"gpu-model",
                   fmt::format("no GPU list, so any GPU may be chosen; {} work may use only: {}",
                               cls, List(ok)),
                   s.kind == "Study" ? fmt::format("set {} to an offer of: {}", f.gpus, List(ok))
                                     : fmt::format("list the GPUs in {}: {}", f.gpus, List(ok))});
  }
  for (const std::string& g : s.gpus) {
    if (std::find(ok.begin(), ok.end(), g) == ok.end()) {
      out.push_back({"gpu-model",
                     fmt::format("{} is not allowed for {} work (allowed: {})", g, cls, List(ok)),
                     fmt::format("use only {} in {}", List(ok), f.gpus)});
    }
  }
}

void H100Justification(const Policy& p, const Subject& s, const Fields& f,
                       std::vector<Violation>& out) {
  if (p.h100_justification_tag.empty() || s.no_gpu || HasTag(s, p.h100_justification_tag)) {
    return;
  }
  const bool h100 = s.gpus.empty() || std::any_of(s.gpus.begin(), s.gpus.end(),
                                                  [](auto& g) { return g.starts_with("H100"); });
  if (!h100) return;
  out.push_back(
      {"h100-justification",
       fmt::format("H100 {} without a '{}' tag", s.gpus.empty() ? "may be chosen" : "requested",
                   p.h100_justification_tag),
       fmt::format("add {} saying why H100 is needed, or leave H100 out of {}",
                   f.Tag(p.h100_justification_tag), f.gpus)});
}

void SpotRules(const Policy& p, const Subject& s, const Fields& f, std::vector<Violation>& out) {
  const bool spot_only = s.tiers.size() == 1 && s.tiers[0] == CapacityTier::kSpot;
  const bool may_use_spot = s.tiers.empty() || std::find(s.tiers.begin(), s.tiers.end(),
                                                         CapacityTier::kSpot) != s.tiers.end();
  if (p.spot_for_fault_tolerant_training && WorkloadClass(p, s) == "training" && s.fault_tolerant &&
      !spot_only) {
    out.push_back({"spot-required",
                   fmt::format("fault-tolerant training must run on spot only (tiers: {})",
                               s.tiers.empty() ? std::string("any") : List(s.tiers)),
                   fmt::format("set {} to spot", f.tiers)});
  }
  if (!p.max_spot_checkpoint_interval || !may_use_spot || !s.fault_tolerant ||
      s.checkpoint_on_notice) {
    return;
  }
  const std::string max = FormatDuration(*p.max_spot_checkpoint_interval);
  std::string fix =
      s.kind == "Study"
          ? fmt::format("set {} to {} or less", f.checkpoint, max)
          : fmt::format(
                "checkpoint when the preemption notice arrives ({}: true), or keep off "
                "spot ({})",
                f.checkpoint, f.tiers);
  if (s.notice_too_short) {
    fix = fmt::format(
        "{} is true, but {}: make the write fit (fault_tolerance.checkpoint_write, "
        "fault_tolerance.notice), or keep off spot ({})",
        f.checkpoint, *s.notice_too_short, f.tiers);
  }
  if (!s.checkpoint_interval) {
    out.push_back({"checkpoint-interval",
                   fmt::format("no maximum checkpoint interval on spot (policy: at most {})", max),
                   fix});
  } else if (*s.checkpoint_interval > *p.max_spot_checkpoint_interval) {
    out.push_back({"checkpoint-interval",
                   fmt::format("checkpoints every {} on spot; the policy allows at most {}",
                               FormatDuration(*s.checkpoint_interval), max),
                   fix});
  }
}

void BudgetApproval(const Policy& p, const Subject& s, const Fields& f,
                    std::vector<Violation>& out) {
  if (!p.max_budget_without_approval || HasTag(s, p.approval_tag)) return;
  const std::string max = p.max_budget_without_approval->ToString();
  const std::string fix = fmt::format("set {} to {} or less, or add {} naming who approved it",
                                      f.budget, max, f.Tag(p.approval_tag));
  if (!s.budget) {
    out.push_back({"budget-approval",
                   fmt::format("no budget; above {} needs a '{}' tag", max, p.approval_tag), fix});
  } else if (*s.budget > *p.max_budget_without_approval) {
    out.push_back({"budget-approval",
                   fmt::format("budget {} is above {} without a '{}' tag", s.budget->ToString(),
                               max, p.approval_tag),
                   fix});
  }
}

}  // namespace

std::vector<Violation> Check(const Policy& p, const Subject& s) {
  std::vector<Violation> out;
  const Fields f = FieldsOf(s);
  GpuModel(p, s, f, out);
  H100Justification(p, s, f, out);
  SpotRules(p, s, f, out);
  BudgetApproval(p, s, f, out);
  for (const std::string& tag : p.required_tags) {
    if (!HasTag(s, tag)) {
      out.push_back({"required-tags", fmt::format("missing tag '{}'", tag),
                     fmt::format("add {}", f.Tag(tag))});
    }
  }
  return out;
}

std::vector<std::string> RuleNames(const std::vector<Violation>& violations) {
  std::vector<std::string> names;
  for (const Violation& v : violations) {
    if (std::find(names.begin(), names.end(), v.rule) == names.end()) names.push_back(v.rule);
  }
  return names;
}

std::string Policy::Label() const { return fmt::format("{} v{}", name, version); }

}  // namespace frugal::policy

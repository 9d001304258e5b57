#pragma once
// Advice that turns a "does not fit" or an expensive choice into a cheaper one, and says what
// would make an infeasible plan feasible.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/plan/job_spec.h"

namespace frugal::plan {

struct Option;
struct Plan;

/// What an on-demand offer would cost with the spec's knobs exactly as written.
struct BaselineCost {
  const catalog::Offer* offer = nullptr;
  int gpus = 0;
  Money cost;
  double hours = 0;
  bool meets_deadline = true;
};

/// Advice lines for a ranked plan: knob changes that beat the knobs as written (with their
/// trade-off), what would meet an unmet deadline or budget, and when spot is worth its risk.
/// `ranked` is every ranked option, best first; `excluded` the grouped exclusion counts.
[[nodiscard]] std::vector<std::string> Advise(const JobSpec& spec, const Plan& plan,
                                              const std::vector<Option>& ranked,
                                              const std::vector<BaselineCost>& baselines,
                                              const std::map<std::string, size_t>& excluded);

/// When nothing was ranked and the job is modelled: on one GPU of the largest model the
/// constraints allow, the knob settings (LoRA, QLoRA, recompute... from knob_table.h) that would
/// fit, as `frugal estimate --knobs` lists them; nullopt when none would or the plan has options.
[[nodiscard]] std::optional<std::string> FitAdvice(const JobSpec& spec, const catalog::Catalog& c,
                                                   size_t ranked);

}  // namespace frugal::plan

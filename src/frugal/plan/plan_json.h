#pragma once
// The JSON document of a plan: what `frugal plan --json` prints and what the server's
// POST /api/v1/plan returns. The policy's verdict ("policy") is added by the caller that
// checked one.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "frugal/plan/job_spec.h"
#include "frugal/plan/planner.h"

namespace frugal::plan {

/// Whole days from `date` (YYYY-MM-DD) to today (UTC); nullopt for a date it cannot read.
[[nodiscard]] std::optional<int> DaysSince(const std::string& date);

/// One ranked option (rank counts from 1): the offer, the run kind, knobs, memory, time, cost,
/// deadline risk and, for spot, the checkpointing and fallback figures.
[[nodiscard]] nlohmann::json OptionJson(const Option& o, size_t rank);

/// The whole plan for `spec`: options, exclusions, advice and counts; `objective` is "cost" or
/// "time"; "policy" is null.
[[nodiscard]] nlohmann::json PlanJson(const JobSpec& spec, const Plan& p,
                                      const std::string& objective);

}  // namespace frugal::plan

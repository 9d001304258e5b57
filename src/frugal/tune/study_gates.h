#pragma once
// A stored study against each of its gates: what it has used, the cap, and — at the study's
// burn rate so far (spend, GPU-hours and trial starts per second of study clock) — how long
// until the gate is reached. `frugal tune status` shows it; the study's ETA is the nearest
// gate that ends the study.

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "frugal/tune/study_spec.h"
#include "frugal/tune/trial.h"

namespace frugal::tune {

/// {"<gate>": {"used", "cap", "unit", "fraction", "eta_seconds"}, ...} for every gate the spec
/// sets: budget_usd, max_gpu_hours, max_trials, plateau_trials, plateau_spend_usd,
/// trial_max_wall (used: the longest trial's wall seconds; per trial, so no ETA). eta_seconds
/// is null when the study is not running or nothing burns toward the gate yet.
nlohmann::json GatesJson(const StudySpec& spec, const nlohmann::json& state,
                         const std::vector<Trial>& trials);

/// The gate that the study reaches first at its burn rate: (gate name, seconds), if any.
std::optional<std::pair<std::string, double>> NearestGate(const nlohmann::json& gates);

/// GPU-hours to two decimals, or to two significant digits below 0.01 (a small cap is not
/// shown as 0.00).
std::string GpuHoursText(double hours);

/// The gates as an aligned table (gate, used, cap, used %, eta).
void PrintGates(std::ostream& out, const nlohmann::json& gates);

}  // namespace frugal::tune

#pragma once
// A study's caps (the dollar, GPU-hour, trial-count and per-trial wall-clock gates) as they
// stand, and changes to them on `frugal tune resume`. A study starts with its spec's gates; a
// resume may replace any of them. The caps in force are kept in the saved state ("caps"), so
// every later resume, `tune status` and the ledger's copy of the state read the same ones; the
// changes are kept too ("cap_changes"), oldest first.
//
// State format (inside the study state document, since state version 2 writers):
//   "caps": {"budget_micros": int|null, "max_gpu_hours": number|null,
//            "max_trials": int|null, "trial_max_wall_ms": int|null,
//            "plateau": {"epsilon": number, "trials": int|null, "spend_micros": int|null}|null}
//   "cap_changes": [{"field": "budget_usd", "from": "$100.00", "to": "$150.00",
//                    "at_spend_usd": number}]
// A state without "caps" (written before caps could change) uses its spec's gates.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/tune/study_spec.h"

namespace frugal::tune {

/// Caps given on a resume; each one unset keeps the study's own.
struct CapChange {
  std::optional<Money> budget;
  std::optional<double> max_gpu_hours;
  std::optional<int64_t> max_trials;
  std::optional<Duration> trial_max_wall;
  std::optional<int64_t> plateau_trials;
  std::optional<Money> plateau_spend;
  std::optional<double> plateau_epsilon;
};

/// The resume flags as given (empty: not given).
struct CapFlags {
  std::string budget;           ///< --budget
  std::string max_gpu_hours;    ///< --max-gpu-hours
  std::string max_trials;       ///< --max-trials
  std::string trial_max_wall;   ///< --trial-max-wall
  std::string plateau_trials;   ///< --plateau-trials
  std::string plateau_spend;    ///< --plateau-spend
  std::string plateau_epsilon;  ///< --plateau-epsilon
};

/// The caps of `gates` as the state's "caps" object.
nlohmann::json CapsToJson(const Gates& gates);
/// Replaces `spec`'s caps with the ones `state` keeps, when it keeps any. kBadInput when the
/// "caps" object is malformed.
[[nodiscard]] Result<void> ApplySavedCaps(StudySpec& spec, const nlohmann::json& state);

/// Parses resume flags into a CapChange. Each error names its flag (kBadInput): `--budget` and
/// `--plateau-spend` must be positive amounts, `--max-gpu-hours` positive, `--max-trials` and
/// `--plateau-trials` at least 1, `--trial-max-wall` a positive duration, `--plateau-epsilon` a
/// number not below 0.
[[nodiscard]] Result<CapChange> ParseCapFlags(const CapFlags& flags);

/// One cap that a change replaced: its gate name and the two values as text.
struct CapEdit {
  std::string field;  ///< budget_usd, max_gpu_hours, max_trials, trial_max_wall,
                      ///< plateau_trials, plateau_spend_usd, plateau_epsilon
  std::string from;   ///< "none" when the study had no such cap
  std::string to;
};

/// Applies `change` to `spec`'s gates and returns what changed (a value given equal to the
/// current one is no edit). kBadInput naming `--budget` or `--plateau-spend` when the study has
/// no price to count a dollar gate against. A plateau gate the study lacked is added (ε = 0);
/// `--plateau-epsilon` alone cannot add one (kBadInput: it would have no criterion).
[[nodiscard]] Result<std::vector<CapEdit>> ApplyCapChange(StudySpec& spec, const CapChange& change);

/// Whether the plateau gate `after` stops a study later than `before` in every case and
/// sooner in none: each criterion (trials, spend) at least as large and ε no larger, one of
/// them strictly; an absent criterion never stops it.
[[nodiscard]] bool PlateauLoosened(const std::optional<PlateauGate>& before,
                                   const std::optional<PlateauGate>& after);

}  // namespace frugal::tune

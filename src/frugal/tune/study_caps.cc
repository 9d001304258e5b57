#include "frugal/tune/study_caps.h"

#include <fmt/format.h>

#include <cmath>

#include "frugal/core/text.h"

namespace frugal::tune {

namespace {

template <typename T, typename F>
nlohmann::json OrNull(const std::optional<T>& v, F to_json) {
  return v ? nlohmann::json(to_json(*v)) : nlohmann::json(nullptr);
}

std::string GpuHoursText(double h) { return fmt::format("{:g} GPU-h", h); }

}  // namespace

nlohmann::json CapsToJson(const Gates& gates) {
  return {
      {"budget_micros", OrNull(gates.budget, [](Money m) { return m.micros(); })},
      {"max_gpu_hours", OrNull(gates.max_gpu_hours, [](double h) { return h; })},
      {"max_trials", OrNull(gates.max_trials, [](int64_t n) { return n; })},
      {"trial_max_wall_ms", OrNull(gates.trial_max_wall, [](Duration d) { return d.count(); })},
  };
}

Result<void> ApplySavedCaps(StudySpec& spec, const nlohmann::json& state) {
  const auto it = state.find("caps");
  if (it == state.end() || it->is_null()) return {};
  try {
    const nlohmann::json& caps = *it;
    Gates& g = spec.gates;
    g.budget =
        caps.at("budget_micros").is_null()
            ? std::nullopt
            : std::optional<Money>(Money::FromMicros(caps.at("budget_micros").get<int64_t>()));
    g.max_gpu_hours = caps.at("max_gpu_hours").is_null()
                          ? std::nullopt
                          : std::optional<double>(caps.at("max_gpu_hours").get<double>());
    g.max_trials = caps.at("max_trials").is_null()
                       ? std::nullopt
                       : std::optional<int64_t>(caps.at("max_trials").get<int64_t>());
    g.trial_max_wall =
        caps.at("trial_max_wall_ms").is_null()
            ? std::nullopt
            : std::optional<Duration>(Duration(caps.at("trial_max_wall_ms").get<int64_t>()));
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("study state: caps: ") + e.what());
  }
  return {};
}

Result<CapChange> ParseCapFlags(const std::string& budget, const std::string& max_gpu_hours,
                                const std::string& max_trials, const std::string& trial_max_wall) {
  CapChange change;
  if (!budget.empty()) {
    const Money m = FRUGAL_TRY(
        Money::Parse(budget).map_error([](const Error& e) { return e.Wrap("--budget"); }));
    if (m.micros() <= 0) {
      return Fail(ErrorCode::kBadInput, "--budget: '" + budget + "' must be positive");
    }
    change.budget = m;
  }
  if (!max_gpu_hours.empty()) {
    const double h = FRUGAL_TRY(ParseDouble(max_gpu_hours).map_error([](const Error& e) {
      return e.Wrap("--max-gpu-hours");
    }));
    if (!(h > 0) || !std::isfinite(h)) {
      return Fail(ErrorCode::kBadInput,
                  "--max-gpu-hours: '" + max_gpu_hours + "' must be positive");
    }
    change.max_gpu_hours = h;
  }
  if (!max_trials.empty()) {
    const int64_t n = FRUGAL_TRY(
        ParseInt(max_trials).map_error([](const Error& e) { return e.Wrap("--max-trials"); }));
    if (n < 1) {
      return Fail(ErrorCode::kBadInput, "--max-trials: '" + max_trials + "' must be at least 1");
    }
    change.max_trials = n;
  }
  if (!trial_max_wall.empty()) {
    const Duration d = FRUGAL_TRY(ParseDuration(trial_max_wall).map_error([](const Error& e) {
      return e.Wrap("--trial-max-wall");
    }));
    if (d <= Duration(0)) {
      return Fail(ErrorCode::kBadInput,
                  "--trial-max-wall: '" + trial_max_wall + "' must be positive");
    }
    change.trial_max_wall = d;
  }
  return change;
}

Result<std::vector<CapEdit>> ApplyCapChange(StudySpec& spec, const CapChange& change) {
  std::vector<CapEdit> edits;
  Gates& g = spec.gates;
  if (change.budget) {
    const auto& price = spec.resources.price_per_gpu_hour;
    if (!price || price->per_hour.micros() <= 0) {
      return Fail(ErrorCode::kBadInput,
                  "--budget: study '" + spec.name +
                      "' has no price per GPU-hour, so a dollar cap would never bind; use "
                      "--max-gpu-hours");
    }
    if (g.budget != change.budget) {
      edits.push_back(
          {"budget_usd", g.budget ? g.budget->ToString() : "none", change.budget->ToString()});
      g.budget = change.budget;
    }
  }
  if (change.max_gpu_hours && g.max_gpu_hours != change.max_gpu_hours) {
    edits.push_back({"max_gpu_hours", g.max_gpu_hours ? GpuHoursText(*g.max_gpu_hours) : "none",
                     GpuHoursText(*change.max_gpu_hours)});
    g.max_gpu_hours = change.max_gpu_hours;
  }
  if (change.max_trials && g.max_trials != change.max_trials) {
    edits.push_back({"max_trials", g.max_trials ? std::to_string(*g.max_trials) : "none",
                     std::to_string(*change.max_trials)});
    g.max_trials = change.max_trials;
  }
  if (change.trial_max_wall && g.trial_max_wall != change.trial_max_wall) {
    edits.push_back({"trial_max_wall",
                     g.trial_max_wall ? FormatDuration(*g.trial_max_wall) : "none",
                     FormatDuration(*change.trial_max_wall)});
    g.trial_max_wall = change.trial_max_wall;
  }
  return edits;
}

}  // namespace frugal::tune

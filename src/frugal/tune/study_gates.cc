#include "frugal/tune/study_gates.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "frugal/core/duration.h"
#include "frugal/core/money.h"
#include "frugal/core/table.h"

namespace frugal::tune {

namespace {

/// One gate: `used` grows at `rate` per second of study clock toward `cap`.
nlohmann::json Gate(double used, double cap, const std::string& unit, std::optional<double> rate,
                    bool running) {
  nlohmann::json g = {{"used", used},
                      {"cap", cap},
                      {"unit", unit},
                      {"fraction", cap > 0 ? used / cap : 0.0},
                      {"eta_seconds", nullptr}};
  if (running && rate && *rate > 0) g["eta_seconds"] = std::max(0.0, cap - used) / *rate;
  return g;
}

std::string Amount(double value, const std::string& unit) {
  if (unit == "usd") return Money::FromDollars(value).ToString();
  if (unit == "gpu_hours") return GpuHoursText(value) + " GPU-h";
  if (unit == "seconds") return FormatDuration(FromSeconds(value));
  return fmt::format("{:g}", value);
}

}  // namespace

std::string GpuHoursText(double hours) {
  if (hours == 0 || std::abs(hours) >= 0.01) return fmt::format("{:.2f}", hours);
  return fmt::format("{:.2g}", hours);
}

nlohmann::json GatesJson(const StudySpec& spec, const nlohmann::json& state,
                         const std::vector<Trial>& trials) {
  const nlohmann::json summary = state.value("summary", nlohmann::json::object());
  const nlohmann::json flags = state.value("flags", nlohmann::json::object());
  const bool running = state.value("status", "") != "finished";
  const double spend = summary.value("spend_usd", 0.0);
  const double gpu_hours = summary.value("gpu_hours", 0.0);
  const auto started = static_cast<double>(summary.value("trials_started", int64_t{0}));
  const double elapsed = summary.value("elapsed_seconds", 0.0);
  auto per_second = [elapsed](double used) -> std::optional<double> {
    if (elapsed <= 0 || used <= 0) return std::nullopt;
    return used / elapsed;
  };
  nlohmann::json gates = nlohmann::json::object();
  const Gates& g = spec.gates;
  if (g.budget)
    gates["budget_usd"] = Gate(spend, g.budget->dollars(), "usd", per_second(spend), running);
  if (g.max_gpu_hours) {
    gates["max_gpu_hours"] =
        Gate(gpu_hours, *g.max_gpu_hours, "gpu_hours", per_second(gpu_hours), running);
  }
  if (g.max_trials) {
    gates["max_trials"] =
        Gate(started, static_cast<double>(*g.max_trials), "trials", per_second(started), running);
  }
  if (g.plateau && !flags.value("incumbent_loss", nlohmann::json()).is_null()) {
    // Counted from the last improvement by ε, as the study counts them.
    if (g.plateau->trials) {
      const double since =
          started - static_cast<double>(flags.value("incumbent_trials_started", int64_t{0}));
      gates["plateau_trials"] = Gate(since, static_cast<double>(*g.plateau->trials), "trials",
                                     per_second(started), running);
    }
    if (g.plateau->spend && gpu_hours > 0) {
      const double dollars_per_gpu_second = spend / (gpu_hours * 3600.0);
      const double since =
          (gpu_hours * 3600.0 - flags.value("incumbent_gpu_seconds", 0.0)) * dollars_per_gpu_second;
      gates["plateau_spend_usd"] =
          Gate(since, g.plateau->spend->dollars(), "usd", per_second(spend), running);
    }
  }
  if (g.trial_max_wall) {
    double longest = 0.0;
    for (const Trial& t : trials) longest = std::max(longest, t.cost_seconds);
    gates["trial_max_wall"] =
        Gate(longest, ToSeconds(*g.trial_max_wall), "seconds", std::nullopt, running);
  }
  return gates;
}

std::optional<std::pair<std::string, double>> NearestGate(const nlohmann::json& gates) {
  std::optional<std::pair<std::string, double>> nearest;
  for (const auto& [name, g] : gates.items()) {
    if (g["eta_seconds"].is_null()) continue;
    const double eta = g["eta_seconds"].get<double>();
    if (!nearest || eta < nearest->second) nearest = std::make_pair(name, eta);
  }
  return nearest;
}

void PrintGates(std::ostream& out, const nlohmann::json& gates) {
  Table table({{"gate", Align::kLeft},
               {"used", Align::kRight},
               {"cap", Align::kRight},
               {"used %", Align::kRight},
               {"eta", Align::kRight}});
  for (const auto& [name, g] : gates.items()) {
    const std::string unit = g["unit"].get<std::string>();
    table.AddRow({name, Amount(g["used"].get<double>(), unit), Amount(g["cap"].get<double>(), unit),
                  fmt::format("{:.0f}%", 100.0 * g["fraction"].get<double>()),
                  g["eta_seconds"].is_null()
                      ? "-"
                      : FormatDuration(FromSeconds(g["eta_seconds"].get<double>()))});
  }
  table.Render(out);
}

}  // namespace frugal::tune

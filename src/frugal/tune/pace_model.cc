#include "frugal/tune/pace_model.h"

#include <algorithm>

#include "frugal/tune/trial.h"

namespace frugal::tune {

void PaceModel::ObserveInterval(int64_t trial, double units, double wall_seconds) {
  if (units <= kEps || wall_seconds <= 0) return;
  recent_[trial] = {wall_seconds / units, units};
  max_pace_ = std::max(max_pace_, wall_seconds / units);
}

void PaceModel::ObserveFirstReport(int64_t trial, double cost_seconds, double fidelity) {
  if (fidelity <= kEps || first_.contains(trial)) return;
  first_[trial] = cost_seconds / fidelity;
  if (first_report_units_ <= kEps || fidelity < first_report_units_) first_report_units_ = fidelity;
}

void PaceModel::SetInterval(int64_t trial, double seconds) {
  if (seconds > 0) interval_[trial] = seconds;
}

void PaceModel::LearnGrowth(int64_t trial, double cost_seconds, double fidelity) {
  const auto it = first_.find(trial);
  if (it == first_.end() || it->second <= 0 || fidelity <= kEps) return;
  growth_sum_ += cost_seconds / fidelity / it->second;
  ++growth_count_;
  first_.erase(it);
}

std::optional<double> PaceModel::Interval(int64_t trial) const {
  const auto it = interval_.find(trial);
  return it != interval_.end() ? std::optional(it->second) : std::nullopt;
}

std::optional<double> PaceModel::RecentPace(int64_t trial) const {
  const auto it = recent_.find(trial);
  return it != recent_.end() ? std::optional(it->second.first) : std::nullopt;
}

double PaceModel::FirstReportUnits(double to) const {
  return first_report_units_ > kEps ? std::min(first_report_units_, to) : to;
}

double PaceModel::PaceAhead(int64_t trial, std::optional<double> average, bool completed) const {
  double pace = average.value_or(0.0);
  // A schedule can grow dearer as it goes (progressive resizing, longer evaluations): what
  // completed trials paid per unit over their whole run, against their pace at their first
  // report, scales the average pace of a trial still on its way.
  if (growth_count_ > 0 && !completed) {
    pace *= std::clamp(growth_sum_ / growth_count_, 1.0, kMaxPaceGrowth);
  }
  if (const auto recent = RecentPace(trial)) pace = std::max(pace, *recent);
  return pace;
}

double PaceModel::Seconds(int64_t trial, std::optional<double> average, bool completed, double from,
                          double to) const {
  const double left = std::max(0.0, to - from);
  const double flat = PaceAhead(trial, average, completed) * left;
  // The slope is what turns the average over [0, from] into the last interval's pace (w units
  // wide).
  const auto recent = recent_.find(trial);
  if (recent == recent_.end() || !average) return flat;
  const auto [pace, width] = recent->second;
  if (from <= width + kEps) return flat;
  const double slope = std::max(0.0, (pace - *average) / ((from - width) / 2));
  const double trend = left * (pace + slope * (left + width) / 2);
  return std::clamp(trend, flat, kMaxPaceGrowth * flat);
}

nlohmann::json PaceModel::ToJson() const {
  nlohmann::json recent = nlohmann::json::array();
  for (const auto& [id, p] : recent_) recent.push_back({id, p.first, p.second});
  nlohmann::json intervals = nlohmann::json::array();
  for (const auto& [id, seconds] : interval_) intervals.push_back({id, seconds});
  nlohmann::json first = nlohmann::json::array();
  for (const auto& [id, pace] : first_) first.push_back({id, pace});
  return {{"recent", recent},
          {"intervals", intervals},
          {"first", first},
          {"max_pace", max_pace_},
          {"growth_sum", growth_sum_},
          {"growth_count", growth_count_},
          {"first_report_units", first_report_units_}};
}

void PaceModel::Restore(const nlohmann::json& pace, size_t trials) {
  const auto known = [&](int64_t id) { return id >= 0 && static_cast<size_t>(id) < trials; };
  for (const auto& r : pace.at("recent")) {
    const auto id = r.at(0).get<int64_t>();
    if (known(id)) recent_[id] = {r.at(1).get<double>(), r.at(2).get<double>()};
  }
  for (const auto& r : pace.at("intervals")) {
    const auto id = r.at(0).get<int64_t>();
    if (known(id)) interval_[id] = r.at(1).get<double>();
  }
  for (const auto& r : pace.at("first")) {
    const auto id = r.at(0).get<int64_t>();
    if (known(id)) first_[id] = r.at(1).get<double>();
  }
  max_pace_ = pace.at("max_pace").get<double>();
  growth_sum_ = pace.at("growth_sum").get<double>();
  growth_count_ = pace.at("growth_count").get<int>();
  first_report_units_ = pace.at("first_report_units").get<double>();
}

}  // namespace frugal::tune

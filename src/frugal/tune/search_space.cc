#include "frugal/tune/search_space.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace frugal::tune {

std::string ValueText(const ParamValue& value) {
  if (const auto* d = std::get_if<double>(&value)) return fmt::format("{}", *d);
  if (const auto* i = std::get_if<int64_t>(&value)) return fmt::format("{}", *i);
  return std::get<std::string>(value);
}

nlohmann::json ConfigToJson(const Config& config) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& [name, value] : config) {
    std::visit([&](const auto& v) { doc[name] = v; }, value);
  }
  return doc;
}

namespace {

bool Active(const Param& param, const Config& config) {
  for (const Condition& c : param.conditions) {
    auto it = config.find(c.parent);
    if (it == config.end()) return false;
    const std::string text = ValueText(it->second);
    if (std::find(c.values.begin(), c.values.end(), text) == c.values.end()) return false;
  }
  return true;
}

double Clamp01(double u) { return std::clamp(u, 0.0, std::nextafter(1.0, 0.0)); }

}  // namespace

Config SearchSpace::ToConfig(const std::vector<double>& point) const {
  Config config;
  for (size_t i = 0; i < params_.size(); ++i) {
    const Param& p = params_[i];
    if (!Active(p, config)) continue;
    const double u = Clamp01(i < point.size() ? point[i] : 0.5);
    switch (p.kind) {
      case ParamKind::kFloat:
        config[p.name] = p.scale == Scale::kLog
                             ? std::exp(std::log(p.low) + u * (std::log(p.high) - std::log(p.low)))
                             : p.low + u * (p.high - p.low);
        break;
      case ParamKind::kInt: {
        double v = p.scale == Scale::kLog
                       ? std::exp(std::log(p.low) + u * (std::log(p.high + 1) - std::log(p.low)))
                       : p.low + u * (p.high - p.low + 1);
        config[p.name] = static_cast<int64_t>(std::clamp(std::floor(v), p.low, p.high));
        break;
      }
      case ParamKind::kCategorical: {
        const auto n = p.choices.size();
        const auto index = std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)));
        config[p.name] =
            p.choice_values.empty() ? ParamValue(p.choices[index]) : p.choice_values[index];
        break;
      }
      case ParamKind::kFixed:
        config[p.name] =
            p.choice_values.empty() ? ParamValue(p.choices.front()) : p.choice_values.front();
        break;
    }
  }
  return config;
}

double SearchSpace::ToUnit(const Param& p, const Config& config) const {
  auto it = config.find(p.name);
  if (it == config.end()) return -1.0;
  const ParamValue& value = it->second;
  switch (p.kind) {
    case ParamKind::kFloat:
    case ParamKind::kInt: {
      const double v = std::holds_alternative<double>(value)
                           ? std::get<double>(value)
                           : static_cast<double>(std::get<int64_t>(value));
      const double hi = p.kind == ParamKind::kInt ? p.high + 1 : p.high;
      const double centre = p.kind == ParamKind::kInt ? 0.5 : 0.0;
      if (p.scale == Scale::kLog) {
        return Clamp01((std::log(v + centre) - std::log(p.low)) / (std::log(hi) - std::log(p.low)));
      }
      return Clamp01((v + centre - p.low) / (hi - p.low));
    }
    case ParamKind::kCategorical: {
      const std::string text = ValueText(value);
      auto pos = std::find(p.choices.begin(), p.choices.end(), text);
      const auto index = static_cast<double>(pos - p.choices.begin());
      return (index + 0.5) / static_cast<double>(p.choices.size());
    }
    case ParamKind::kFixed:
      return 0.5;
  }
  return -1.0;
}

}  // namespace frugal::tune

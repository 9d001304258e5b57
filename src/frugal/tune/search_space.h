#pragma once
// The search space of a study: named parameters (float linear/log, int, categorical, fixed),
// some active only when a parent parameter takes given values. A point of the space is a vector
// in the unit cube, one coordinate per parameter; samplers work on points, trials on configs.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>
#include <vector>

namespace frugal::tune {

enum class ParamKind { kFloat, kInt, kCategorical, kFixed };
enum class Scale { kLinear, kLog };

/// A parameter is active only when `parent`'s value is one of `values` (compared as text).
struct Condition {
  std::string parent;
  std::vector<std::string> values;
};

/// One value of a config: a number (float or int) or text (categorical, fixed).
using ParamValue = std::variant<double, int64_t, std::string>;

struct Param {
  std::string name;
  ParamKind kind = ParamKind::kFloat;
  Scale scale = Scale::kLinear;
  double low = 0.0;  ///< float and int bounds, inclusive
  double high = 1.0;
  /// Categorical choices, a fixed parameter's one value: as text (ValueText) for conditions and
  /// tables to compare, and as values, so a choice written as a number reaches trials as one.
  std::vector<std::string> choices;
  std::vector<Condition> conditions;      ///< all must hold for the parameter to be active
  std::vector<ParamValue> choice_values;  ///< the choices as values (empty: each is its text)
  std::string where;  ///< file:line:column of its spec entry, for errors (empty when unknown)
};

/// A configuration: active parameter name → value. Inactive parameters are absent.
using Config = std::map<std::string, ParamValue>;

/// Text form of a value ("0.001", "64", "adam"), as conditions and tables compare it.
std::string ValueText(const ParamValue& value);
nlohmann::json ConfigToJson(const Config& config);

class SearchSpace {
 public:
  SearchSpace() = default;
  /// Parameters in dependency order: a conditional parameter comes after its parent (the spec
  /// reader checks this).
  explicit SearchSpace(std::vector<Param> params) : params_(std::move(params)) {}

  const std::vector<Param>& params() const { return params_; }
  size_t dimensions() const { return params_.size(); }
  bool empty() const { return params_.empty(); }

  /// Maps a unit-cube point (one coordinate per parameter, each in [0,1)) to a config. Log
  /// floats are uniform in log space; ints round to the nearest; categoricals take equal
  /// shares of [0,1). Parameters whose conditions fail are left out.
  Config ToConfig(const std::vector<double>& point) const;
  /// The inverse of ToConfig for one parameter's value (the centre of a categorical's share);
  /// -1 when the parameter is inactive in `config`.
  double ToUnit(const Param& param, const Config& config) const;

 private:
  std::vector<Param> params_;
};

}  // namespace frugal::tune

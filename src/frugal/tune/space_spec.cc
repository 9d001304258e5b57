#include "frugal/tune/space_spec.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>

#include "frugal/core/text.h"

namespace frugal::tune {

namespace {

/// A plain YAML scalar that reads as a whole or real number is that number; anything else
/// (quoted, or text) is text. So `choices: [64, 128]` reach trials as numbers, `["64"]` as text.
ParamValue ScalarValue(const YAML::Node& node) {
  const std::string& text = node.Scalar();
  if (node.Tag() == "?") {
    if (auto whole = ParseInt(text)) return *whole;
    if (auto real = ParseDouble(text); real && std::isfinite(*real)) return *real;
  }
  return text;
}

/// The choices of a categorical (`key` choices) or fixed (`key` value) parameter.
Result<void> ParseChoices(const YamlDoc& doc, const YAML::Node& node, const std::string& name,
                          std::string_view key, Param& p) {
  const YAML::Node list = node[std::string(key)];
  const std::string field = name + "." + std::string(key);
  if (!list.IsDefined() || list.IsNull()) {
    return Fail(doc.ErrorAt(
        node, field,
        key == "value" ? "a fixed parameter needs a value" : "needs at least one choice"));
  }
  const bool one = key == "value" || list.IsScalar();
  if (!one && !list.IsSequence()) return Fail(doc.ErrorAt(list, field, "expected a list"));
  for (size_t i = 0; i < (one ? 1 : list.size()); ++i) {
    const YAML::Node item = one ? list : list[i];
    if (!item.IsScalar()) {
      return Fail(
          doc.ErrorAt(item, field, one ? "expected one value" : "expected a list of values"));
    }
    const ParamValue value = ScalarValue(item);
    const std::string text = ValueText(value);
    if (std::find(p.choices.begin(), p.choices.end(), text) != p.choices.end()) {
      return Fail(doc.ErrorAt(item, field, "'" + text + "' is listed twice"));
    }
    p.choices.push_back(text);
    p.choice_values.push_back(value);
  }
  if (p.choices.empty()) return Fail(doc.ErrorAt(list, field, "needs at least one choice"));
  return {};
}

/// `when: {parent: [values]}`: the parent must be declared above, and each value one it can
/// take (a choice, or a whole number in an int's range), or the parameter would never be active.
Result<Condition> ParseCondition(const YamlDoc& doc, const std::string& name, const YAML::Node& key,
                                 const YAML::Node& values, const std::vector<Param>& earlier) {
  const std::string field = name + ".when";
  const std::string parent = key.as<std::string>();
  const auto it = std::find_if(earlier.begin(), earlier.end(),
                               [&](const Param& e) { return e.name == parent; });
  if (it == earlier.end()) {
    return Fail(
        doc.ErrorAt(key, field, "'" + parent + "' is not a parameter declared above this one"));
  }
  if (it->kind == ParamKind::kFloat) {
    return Fail(doc.ErrorAt(key, field,
                            "'" + parent +
                                "' is a float: a condition needs a categorical, fixed "
                                "or int parent"));
  }
  Condition c{parent, {}};
  for (size_t i = 0; i < (values.IsSequence() ? values.size() : 1); ++i) {
    const YAML::Node item = values.IsSequence() ? values[i] : values;
    if (!item.IsScalar()) return Fail(doc.ErrorAt(item, field, "expected 'parent: [values]'"));
    const ParamValue value = ScalarValue(item);
    const std::string text = ValueText(value);
    const bool possible =
        it->kind == ParamKind::kInt
            ? std::holds_alternative<int64_t>(value) &&
                  static_cast<double>(std::get<int64_t>(value)) >= it->low &&
                  static_cast<double>(std::get<int64_t>(value)) <= it->high
            : std::find(it->choices.begin(), it->choices.end(), text) != it->choices.end();
    if (!possible) {
      return Fail(doc.ErrorAt(
          item, field,
          fmt::format("'{}' never takes the value '{}' ({})", parent, text,
                      it->kind == ParamKind::kInt
                          ? fmt::format("a whole number in {:g}..{:g}", it->low, it->high)
                          : fmt::format("{}", fmt::join(it->choices, ", ")))));
    }
    c.values.push_back(text);
  }
  return c;
}

Result<Param> ParseParam(const YamlDoc& doc, const std::string& name, const YAML::Node& node,
                         const std::vector<Param>& earlier) {
  FRUGAL_TRY(doc.CheckKeys(node, "parameter '" + name + "'",
                           {"type", "low", "high", "scale", "choices", "value", "when"}));
  Param p;
  p.name = name;
  p.where = doc.Where(node);
  const std::string type = FRUGAL_TRY(doc.RequiredString(node, "type"));
  if (type == "float" || type == "int") {
    p.kind = type == "float" ? ParamKind::kFloat : ParamKind::kInt;
    p.low = FRUGAL_TRY(doc.RequiredDouble(node, "low"));
    p.high = FRUGAL_TRY(doc.RequiredDouble(node, "high"));
    const auto scale = FRUGAL_TRY(doc.OptionalString(node, "scale"));
    if (scale && *scale != "linear" && *scale != "log") {
      return Fail(doc.ErrorAt(node["scale"], name + ".scale", "expected 'linear' or 'log'"));
    }
    p.scale = scale == "log" ? Scale::kLog : Scale::kLinear;
    if (p.kind == ParamKind::kInt) {
      for (const char* bound : {"low", "high"}) {
        const double v = bound[0] == 'l' ? p.low : p.high;
        if (v != std::floor(v)) {
          return Fail(doc.ErrorAt(node[bound], name + "." + bound,
                                  fmt::format("an int parameter needs whole bounds, not {:g}", v)));
        }
      }
    }
    if (!(p.low < p.high))
      return Fail(doc.ErrorAt(node["high"], name + ".high", "must exceed low"));
    if (p.scale == Scale::kLog && p.low <= 0) {
      return Fail(doc.ErrorAt(node["low"], name + ".low", "a log scale needs low > 0"));
    }
  } else if (type == "categorical") {
    p.kind = ParamKind::kCategorical;
    FRUGAL_TRY(ParseChoices(doc, node, name, "choices", p));
  } else if (type == "fixed") {
    p.kind = ParamKind::kFixed;
    FRUGAL_TRY(ParseChoices(doc, node, name, "value", p));
  } else {
    return Fail(doc.ErrorAt(node["type"], name + ".type",
                            "unknown type '" + type + "' (float, int, categorical, fixed)"));
  }
  if (const YAML::Node when = node["when"]) {
    if (!when.IsMap())
      return Fail(doc.ErrorAt(when, name + ".when", "expected 'parent: [values]'"));
    for (const auto& entry : when) {
      p.conditions.push_back(
          FRUGAL_TRY(ParseCondition(doc, name, entry.first, entry.second, earlier)));
    }
  }
  return p;
}

}  // namespace

Result<SearchSpace> ParseSpace(const YamlDoc& doc, const YAML::Node& node) {
  if (!node) return SearchSpace{};
  if (!node.IsMap()) return Fail(doc.ErrorAt(node, "space", "expected a mapping of parameters"));
  std::vector<Param> params;
  for (const auto& entry : node) {
    params.push_back(
        FRUGAL_TRY(ParseParam(doc, entry.first.as<std::string>(), entry.second, params)));
  }
  return SearchSpace(std::move(params));
}

}  // namespace frugal::tune

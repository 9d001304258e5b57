#include "frugal/core/yaml.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "frugal/core/atomic_file.h"
#include "frugal/core/text.h"

namespace frugal {

Result<YamlDoc> YamlDoc::Load(const std::filesystem::path& path) {
  const std::string text = FRUGAL_TRY(ReadFile(path));
  return Parse(text, path.string());
}

namespace {

/// YAML forbids a key twice in one mapping. yaml-cpp keeps both entries and lookups see only
/// the first, so the second would be silently ignored (or, iterated, silently win).
Result<void> CheckUniqueKeys(const YAML::Node& node, const std::string& source) {
  if (node.IsSequence()) {
    for (const auto& item : node) FRUGAL_TRY(CheckUniqueKeys(item, source));
  } else if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& entry : node) {
      if (entry.first.IsScalar()) {
        const std::string key = entry.first.Scalar();
        const YAML::Mark mark = entry.first.Mark();
        if (auto [it, fresh] = seen.emplace(key, mark); !fresh) {
          return Fail(ErrorCode::kBadInput,
                      fmt::format("{}:{}:{}: duplicate key '{}' (first at line {})", source,
                                  mark.line + 1, mark.column + 1, key, it->second.line + 1));
        }
      }
      FRUGAL_TRY(CheckUniqueKeys(entry.second, source));
    }
  }
  return {};
}

}  // namespace

Result<YamlDoc> YamlDoc::Parse(std::string_view text, std::string source) {
  try {
    YAML::Node root = YAML::Load(std::string(text));
    if (!root.IsDefined() || root.IsNull()) {
      return Fail(ErrorCode::kBadInput, fmt::format("{}: empty document", source));
    }
    FRUGAL_TRY(CheckUniqueKeys(root, source));
    return YamlDoc(std::move(root), std::move(source));
  } catch (const YAML::Exception& e) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}:{}:{}: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

std::string YamlDoc::Where(const YAML::Node& node) const {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return source_;
  return fmt::format("{}:{}:{}", source_, mark.line + 1, mark.column + 1);
}

Error YamlDoc::ErrorAt(const YAML::Node& node, std::string_view field,
                       std::string_view message) const {
  return Error{ErrorCode::kBadInput,
               fmt::format("{}: field '{}': {}", Where(node), field, message)};
}

Result<void> YamlDoc::CheckKeys(const YAML::Node& map, std::string_view what,
                                std::initializer_list<std::string_view> allowed) const {
  if (!map.IsMap()) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}: '{}' must be a mapping", Where(map), what));
  }
  std::vector<std::string> names(allowed.begin(), allowed.end());
  for (const auto& entry : map) {
    const auto key = entry.first.as<std::string>();
    bool known = false;
    for (std::string_view a : allowed) known = known || a == key;
    if (!known) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: unknown key '{}' in {}{}", Where(entry.first), key, what,
                              DidYouMean(key, names)));
    }
  }
  return {};
}

Result<std::optional<std::string>> YamlDoc::Scalar(const YAML::Node& map,
                                                   std::string_view key) const {
  if (!map.IsMap()) return std::optional<std::string>();
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return std::optional<std::string>();
  if (!node.IsScalar()) return Fail(ErrorAt(node, key, "expected a single value"));
  return std::optional<std::string>(node.Scalar());
}

namespace {
template <typename T, typename F>
Result<std::optional<T>> Convert(const YamlDoc& doc, const YAML::Node& map, std::string_view key,
                                 const Result<std::optional<std::string>>& scalar, F parse) {
  if (!scalar) return Fail(scalar.error());
  if (!scalar->has_value()) return std::optional<T>();
  auto value = parse(**scalar);
  if (!value) return Fail(doc.ErrorAt(map[std::string(key)], key, value.error().message));
  return std::optional<T>(*value);
}
}  // namespace

Result<std::optional<std::string>> YamlDoc::OptionalString(const YAML::Node& map,
                                                           std::string_view key) const {
  return Scalar(map, key);
}
Result<std::optional<double>> YamlDoc::OptionalDouble(const YAML::Node& map,
                                                      std::string_view key) const {
  return Convert<double>(*this, map, key, Scalar(map, key),
                         [](const std::string& s) { return ParseDouble(s); });
}
Result<std::optional<int64_t>> YamlDoc::OptionalInt(const YAML::Node& map,
                                                    std::string_view key) const {
  return Convert<int64_t>(*this, map, key, Scalar(map, key),
                          [](const std::string& s) { return ParseInt(s); });
}
Result<std::optional<bool>> YamlDoc::OptionalBool(const YAML::Node& map,
                                                  std::string_view key) const {
  return Convert<bool>(*this, map, key, Scalar(map, key), [](const std::string& s) -> Result<bool> {
    const std::string v = ToLower(s);
    if (v == "true" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "no" || v == "off") return false;
    return Fail(ErrorCode::kBadInput, fmt::format("'{}' is not true or false", s));
  });
}
Result<std::optional<Money>> YamlDoc::OptionalMoney(const YAML::Node& map,
                                                    std::string_view key) const {
  return Convert<Money>(*this, map, key, Scalar(map, key),
                        [](const std::string& s) { return Money::Parse(s); });
}
Result<std::optional<Duration>> YamlDoc::OptionalDuration(const YAML::Node& map,
                                                          std::string_view key) const {
  return Convert<Duration>(*this, map, key, Scalar(map, key),
                           [](const std::string& s) { return ParseDuration(s); });
}
Result<std::optional<double>> YamlDoc::OptionalCount(const YAML::Node& map,
                                                     std::string_view key) const {
  return Convert<double>(*this, map, key, Scalar(map, key),
                         [](const std::string& s) { return ParseCount(s); });
}

Result<std::vector<std::string>> YamlDoc::StringList(const YAML::Node& map,
                                                     std::string_view key) const {
  std::vector<std::string> out;
  if (!map.IsMap()) return out;
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return out;
  if (node.IsScalar()) {
    out.push_back(node.Scalar());
    return out;
  }
  if (!node.IsSequence()) return Fail(ErrorAt(node, key, "expected a list"));
  for (const auto& item : node) {
    if (!item.IsScalar()) return Fail(ErrorAt(item, key, "expected a list of values"));
    out.push_back(item.Scalar());
  }
  return out;
}

Result<std::map<std::string, std::string>> YamlDoc::StringMap(const YAML::Node& map,
                                                              std::string_view key) const {
  std::map<std::string, std::string> out;
  if (!map.IsMap()) return out;
  const YAML::Node node = map[std::string(key)];
  if (!node.IsDefined() || node.IsNull()) return out;
  if (!node.IsMap()) return Fail(ErrorAt(node, key, "expected a mapping of names to values"));
  for (const auto& entry : node) {
    const std::string name = entry.first.Scalar();
    if (name.empty() || !entry.second.IsScalar()) {
      return Fail(ErrorAt(entry.second, fmt::format("{}.{}", key, name), "expected a value"));
    }
    out[name] = entry.second.Scalar();
  }
  return out;
}

Result<std::string> YamlDoc::RequiredString(const YAML::Node& map, std::string_view key) const {
  auto value = FRUGAL_TRY(OptionalString(map, key));
  if (!value) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: missing required field '{}'", Where(map), key));
  }
  return *value;
}

Result<double> YamlDoc::RequiredDouble(const YAML::Node& map, std::string_view key) const {
  auto value = FRUGAL_TRY(OptionalDouble(map, key));
  if (!value) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: missing required field '{}'", Where(map), key));
  }
  return *value;
}

}  // namespace frugal

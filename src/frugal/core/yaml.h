#pragma once
// Reading YAML specs with errors that name file:line:column and the field. yaml-cpp's
// exceptions are converted here; callers see only Result values.

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"

namespace frugal {

/// A parsed YAML document and the name of where it came from.
class YamlDoc {
 public:
  /// Parses a file; kBadInput "file:line:col: <yaml error>" on a syntax error or a missing file,
  /// on a byte that is not UTF-8, on an empty document, and on aliases that would expand the
  /// document past 100,000 extra nodes or that refer to their own enclosing node (so any
  /// input is judged in time linear in its size).
  [[nodiscard]] static Result<YamlDoc> Load(const std::filesystem::path& path);
  [[nodiscard]] static Result<YamlDoc> Parse(std::string_view text, std::string source);

  const YAML::Node& root() const { return root_; }
  const std::string& source() const { return source_; }

  /// "file:line:col" of a node (1-based).
  std::string Where(const YAML::Node& node) const;
  /// A kBadInput error located at `node`: "file:line:col: field 'key': message".
  Error ErrorAt(const YAML::Node& node, std::string_view field, std::string_view message) const;
  /// ErrorAt as the failed Result a parser returns.
  [[nodiscard]] tl::unexpected<Error> FailAt(const YAML::Node& node, std::string_view field,
                                             std::string_view message) const {
    return tl::unexpected(ErrorAt(node, field, message));
  }
  /// A kBadInput error "file:line:col: missing required field 'key'" located at `map` (at the
  /// document's start when `map` is absent).
  Error Missing(const YAML::Node& map, std::string_view key) const;

  /// Every key of `map` must be in `allowed`; otherwise "unknown key 'gpuz' (did you mean
  /// 'gpus'?)". A node that is not a map is an error too.
  [[nodiscard]] Result<void> CheckKeys(const YAML::Node& map, std::string_view what,
                                       std::initializer_list<std::string_view> allowed) const;
  /// The same, with the allowed keys put together at run time (named in this order).
  [[nodiscard]] Result<void> CheckKeys(const YAML::Node& map, std::string_view what,
                                       std::span<const std::string_view> allowed) const;

  // Typed field access. Optional* return nullopt when the key is absent (or null); Required*
  // fail when it is. All fail with the field's location when the value has the wrong type.
  [[nodiscard]] Result<std::optional<std::string>> OptionalString(const YAML::Node& map,
                                                                  std::string_view key) const;
  [[nodiscard]] Result<std::optional<double>> OptionalDouble(const YAML::Node& map,
                                                             std::string_view key) const;
  [[nodiscard]] Result<std::optional<int64_t>> OptionalInt(const YAML::Node& map,
                                                           std::string_view key) const;
  [[nodiscard]] Result<std::optional<bool>> OptionalBool(const YAML::Node& map,
                                                         std::string_view key) const;
  [[nodiscard]] Result<std::optional<Money>> OptionalMoney(const YAML::Node& map,
                                                           std::string_view key) const;
  [[nodiscard]] Result<std::optional<Duration>> OptionalDuration(const YAML::Node& map,
                                                                 std::string_view key) const;
  /// A count such as 7b or 2t (see ParseCount).
  [[nodiscard]] Result<std::optional<double>> OptionalCount(const YAML::Node& map,
                                                            std::string_view key) const;
  [[nodiscard]] Result<std::vector<std::string>> StringList(const YAML::Node& map,
                                                            std::string_view key) const;
  /// A mapping of names to scalar values (tags: {team: nlp, cost_center: cc-42}); empty when
  /// absent. kBadInput naming "key.name" on a value that is not a scalar.
  [[nodiscard]] Result<std::map<std::string, std::string>> StringMap(const YAML::Node& map,
                                                                     std::string_view key) const;

  [[nodiscard]] Result<std::string> RequiredString(const YAML::Node& map,
                                                   std::string_view key) const;
  [[nodiscard]] Result<double> RequiredDouble(const YAML::Node& map, std::string_view key) const;

 private:
  YamlDoc(const YAML::Node& root, std::string source) : root_(root), source_(std::move(source)) {}
  /// The scalar at key, nullopt when absent or null; an error when it is not a scalar.
  Result<std::optional<std::string>> Scalar(const YAML::Node& map, std::string_view key) const;

  YAML::Node root_;
  std::string source_;
};

}  // namespace frugal

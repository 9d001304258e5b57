#include "frugal/core/yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <sstream>
#include <unordered_map>

#include "frugal/core/atomic_file.h"
#include "frugal/core/text.h"

namespace frugal {

Result<YamlDoc> YamlDoc::Load(const std::filesystem::path& path) {
  const std::string text = FRUGAL_TRY(ReadFile(path));
  return Parse(text, path.string());
}

namespace {

/// Every key is a plain name (so readers may take it as a string), and none appears twice in
/// one mapping: YAML forbids that, yet yaml-cpp keeps both entries and lookups see only the
/// first, so the second would be silently ignored (or, iterated, silently win).
Result<void> CheckUniqueKeys(const YAML::Node& node, const std::string& source) {
  if (node.IsSequence()) {
    for (const auto& item : node) FRUGAL_TRY(CheckUniqueKeys(item, source));
  } else if (node.IsMap()) {
    std::map<std::string, YAML::Mark> seen;
    for (const auto& entry : node) {
      if (!entry.first.IsScalar()) {
        // A list, a mapping or nothing as a key (`? [a, b]: 1`): no frugal format has one.
        YAML::Mark mark = entry.first.Mark();
        if (mark.is_null()) mark = entry.second.Mark();
        if (mark.is_null()) mark = node.Mark();
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{}:{}:{}: a key must be a name, not {}", source,
                                std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1,
                                entry.first.IsNull() ? "empty" : "a list or mapping"));
      }
      {
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

/// Counts, over the parser's events, the nodes a reader walking the document would visit
/// with every alias expanded. yaml-cpp shares an aliased node, but every walk over it (the
/// duplicate-key check, each spec reader) visits it once per alias: nine levels of ten aliases
/// are a billion visits from 700 bytes.
class AliasExpansion : public YAML::EventHandler {
 public:
  /// Aliases may add at most this many nodes beyond the document's own.
  static constexpr uint64_t kMaxAliasedNodes = 100'000;

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t anchor) override { Leaf(anchor); }
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    Leaf(anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = sizes_.find(anchor);
    if (it == sizes_.end()) {
      // The anchor is still open: the alias sits inside the node it names.
      if (!problem_) problem_ = Problem{mark, "an alias inside the node it refers to (a cycle)"};
      Add(1);
      return;
    }
    aliased_ = Saturate(aliased_ + it->second);
    if (aliased_ > kMaxAliasedNodes && !problem_) {
      problem_ = Problem{mark, fmt::format("aliases expand the document past {} nodes; write "
                                           "the repeated values out",
                                           kMaxAliasedNodes)};
    }
    Add(it->second);
  }
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    Open(anchor);
  }
  void OnSequenceEnd() override { Close(); }
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    Open(anchor);
  }
  void OnMapEnd() override { Close(); }

  struct Problem {
    YAML::Mark mark;
    std::string message;
  };
  const std::optional<Problem>& problem() const { return problem_; }

 private:
  static uint64_t Saturate(uint64_t n) { return std::min<uint64_t>(n, uint64_t{1} << 60); }
  void Leaf(YAML::anchor_t anchor) {
    if (anchor != YAML::NullAnchor) sizes_[anchor] = 1;
    Add(1);
  }
  void Add(uint64_t nodes) {
    if (!open_.empty()) open_.back().nodes = Saturate(open_.back().nodes + nodes);
  }
  void Open(YAML::anchor_t anchor) { open_.push_back({anchor, 1}); }
  void Close() {
    if (open_.empty()) return;
    const OpenNode done = open_.back();
    open_.pop_back();
    if (done.anchor != YAML::NullAnchor) sizes_[done.anchor] = done.nodes;
    Add(done.nodes);
  }

  struct OpenNode {
    YAML::anchor_t anchor;
    uint64_t nodes;
  };
  std::vector<OpenNode> open_;
  std::unordered_map<YAML::anchor_t, uint64_t> sizes_;
  uint64_t aliased_ = 0;
  std::optional<Problem> problem_;
};

/// kBadInput at the alias that makes the first document too large to walk, or that refers
/// to its own enclosing node.
Result<void> CheckAliases(const std::string& text, const std::string& source) {
  if (text.find('*') == std::string::npos) return {};  // no alias can occur
  std::istringstream in(text);
  YAML::Parser parser(in);
  AliasExpansion counter;
  parser.HandleNextDocument(counter);
  if (const auto& problem = counter.problem()) {
    return Fail(ErrorCode::kBadInput, fmt::format("{}:{}:{}: {}", source, problem->mark.line + 1,
                                                  problem->mark.column + 1, problem->message));
  }
  return {};
}

/// Notes where each document starts; the events inside are of no interest.
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override { starts_.push_back(mark); }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  const std::vector<YAML::Mark>& starts() const { return starts_; }

 private:
  std::vector<YAML::Mark> starts_;
};

/// kBadInput at a second document (`---` then more, or anything after `...`): every frugal
/// file holds one, and the loader reads only the first, so the rest would be silently ignored.
Result<void> CheckSingleDocument(const std::string& text, const std::string& source) {
  // Only a document marker can start another document.
  if (text.find("---") == std::string::npos && text.find("...") == std::string::npos) return {};
  std::istringstream in(text);
  YAML::Parser parser(in);
  DocumentStarts starts;
  if (!parser.HandleNextDocument(starts) || !parser.HandleNextDocument(starts)) return {};
  const YAML::Mark mark = starts.starts().size() > 1 ? starts.starts()[1] : YAML::Mark();
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}:{}:{}: a second YAML document; a frugal file holds one (remove the "
                          "'---' or '...' before it, or put it in a file of its own)",
                          source, std::max(mark.line, 0) + 1, std::max(mark.column, 0) + 1));
}

}  // namespace

Result<YamlDoc> YamlDoc::Parse(std::string_view text, std::string source) {
  FRUGAL_TRY(RequireUtf8(text, source));
  try {
    const std::string copy(text);
    FRUGAL_TRY(CheckAliases(copy, source));
    FRUGAL_TRY(CheckSingleDocument(copy, source));
    YAML::Node root = YAML::Load(copy);
    if (!root.IsDefined() || root.IsNull()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}:1:1: empty document (no YAML mapping in the file)", source));
    }
    FRUGAL_TRY(CheckUniqueKeys(root, source));
    return YamlDoc(root, std::move(source));
  } catch (const YAML::DeepRecursion& e) {
    // yaml-cpp's own words for this are "bad file".
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}:{}:{}: nested too deeply (lists or mappings {} levels deep)",
                            source, e.mark.line + 1, e.mark.column + 1, e.depth()));
  } catch (const YAML::Exception& e) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}:{}:{}: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg));
  }
}

std::string YamlDoc::Where(const YAML::Node& node) const {
  if (!node.IsDefined()) return source_;
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
  return CheckKeys(map, what, std::span<const std::string_view>(allowed.begin(), allowed.size()));
}

Result<void> YamlDoc::CheckKeys(const YAML::Node& map, std::string_view what,
                                std::span<const std::string_view> allowed) const {
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
                  fmt::format("{}: unknown key '{}' in {}{}", Where(entry.first), Abbreviate(key),
                              what, DidYouMean(key, names)));
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

Error YamlDoc::Missing(const YAML::Node& map, std::string_view key) const {
  // A map without a mark (an absent section) is located at the document's start.
  const std::string where =
      !map.IsDefined() || map.Mark().is_null() ? source_ + ":1:1" : Where(map);
  return Error{ErrorCode::kBadInput, fmt::format("{}: missing required field '{}'", where, key)};
}

Result<std::string> YamlDoc::RequiredString(const YAML::Node& map, std::string_view key) const {
  auto value = FRUGAL_TRY(OptionalString(map, key));
  if (!value) return Fail(Missing(map, key));
  return *value;
}

Result<double> YamlDoc::RequiredDouble(const YAML::Node& map, std::string_view key) const {
  auto value = FRUGAL_TRY(OptionalDouble(map, key));
  if (!value) return Fail(Missing(map, key));
  return *value;
}

}  // namespace frugal

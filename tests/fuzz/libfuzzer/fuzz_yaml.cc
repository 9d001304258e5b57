// libFuzzer: the YAML reader every spec goes through, and its typed accessors on every key.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "frugal/core/yaml.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const frugal::Result<frugal::YamlDoc> doc = frugal::YamlDoc::Parse(text, "spec.yaml");
  frugal::fuzz::CheckAnswer(doc, "spec.yaml");
  if (!doc || !doc->root().IsMap()) return 0;
  const YAML::Node& root = doc->root();
  frugal::fuzz::CheckAnswer(doc->CheckKeys(root, "spec", {"name", "model", "work"}), "spec.yaml");
  for (const auto& entry : root) {
    const std::string key = entry.first.Scalar();
    frugal::fuzz::CheckAnswer(doc->OptionalString(root, key), "spec.yaml");
    (void)doc->OptionalDouble(root, key);
    (void)doc->OptionalInt(root, key);
    (void)doc->OptionalBool(root, key);
    (void)doc->OptionalMoney(root, key);
    (void)doc->OptionalDuration(root, key);
    (void)doc->OptionalCount(root, key);
    (void)doc->StringList(root, key);
    (void)doc->StringMap(root, key);
  }
  return 0;
}

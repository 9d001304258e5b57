#include "frugal/core/file_name.h"

#include <fmt/format.h>

#include "frugal/core/text.h"

namespace frugal {

Result<void> CheckFileName(std::string_view name, std::string_view where) {
  auto refuse = [&](std::string_view why) -> Result<void> {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: '{}' {}; give a name of 1 to {} bytes without '/'", where,
                            Abbreviate(FirstInvalidUtf8(name) ? std::string_view() : name), why,
                            kMaxFileNameBytes));
  };
  if (name.empty()) return refuse("is empty");
  if (name.size() > kMaxFileNameBytes) return refuse(fmt::format("is {} bytes", name.size()));
  if (FirstInvalidUtf8(name)) return refuse("is not UTF-8 text");
  if (name == "." || name == "..") return refuse("names a folder, not a file");
  if (name.find('/') != std::string_view::npos) return refuse("would be a path, not a name");
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
      return refuse("holds a control character");
    }
  }
  return {};
}

}  // namespace frugal

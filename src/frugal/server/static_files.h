#pragma once
// The dashboard's built files (web/dist): a request path to a file inside the web directory
// (never outside it), its content type and caching, and the one byte range a GET may ask for.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace frugal::server {

struct StaticFile {
  std::filesystem::path path;
  std::string content_type;
  std::string cache_control;
};

/// The file `url_path` (%-decoded, starting with '/') names under `dir`: "/" and a directory
/// give their index.html. nullopt when it names none, or would leave `dir` (a "." or ".."
/// segment, a NUL or backslash, a link out of it).
[[nodiscard]] std::optional<StaticFile> ResolveStatic(const std::filesystem::path& dir,
                                                      std::string_view url_path);

/// What to send of a file of `size` bytes for a Range header. One range ("bytes=A-B",
/// "bytes=A-", "bytes=-N") within the file is a 206 of those bytes; one that starts past the
/// end is a 416; anything else (no header, a malformed one, several ranges) is the whole
/// file as a 200, so that a response is never larger than the file, however many ranges a
/// request lists.
struct ByteRange {
  enum class Kind { kWhole, kPart, kUnsatisfiable };
  Kind kind = Kind::kWhole;
  uint64_t first = 0;   ///< kPart: first byte sent
  uint64_t length = 0;  ///< kPart: bytes sent
};
[[nodiscard]] ByteRange ChooseRange(std::string_view range_header, uint64_t size);

}  // namespace frugal::server

#include "frugal/server/static_files.h"

#include <charconv>
#include <map>

namespace frugal::server {
namespace fs = std::filesystem;
namespace {

std::string ContentType(const fs::path& path) {
  static const std::map<std::string, std::string> kTypes = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".mjs", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".json", "application/json"},
      {".map", "application/json"},
      {".svg", "image/svg+xml"},
      {".png", "image/png"},
      {".ico", "image/x-icon"},
      {".woff2", "font/woff2"},
      {".txt", "text/plain; charset=utf-8"},
  };
  const auto it = kTypes.find(path.extension().string());
  return it == kTypes.end() ? "application/octet-stream" : it->second;
}

std::optional<uint64_t> Number(std::string_view text) {
  uint64_t n = 0;
  if (text.empty()) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

}  // namespace

std::optional<StaticFile> ResolveStatic(const fs::path& dir, std::string_view url_path) {
  if (!url_path.starts_with('/')) return std::nullopt;
  fs::path relative;
  size_t at = 1;
  while (at <= url_path.size()) {
    const size_t slash = std::min(url_path.find('/', at), url_path.size());
    const std::string_view segment = url_path.substr(at, slash - at);
    if (segment == "." || segment == ".." ||
        segment.find_first_of(std::string_view("\0\\", 2)) != std::string_view::npos) {
      return std::nullopt;
    }
    if (!segment.empty()) relative /= std::string(segment);
    at = slash + 1;
  }
  std::error_code ec;
  const fs::path root = fs::canonical(dir, ec);
  if (ec) return std::nullopt;
  fs::path path = fs::canonical(root / relative, ec);
  if (ec) return std::nullopt;
  if (fs::is_directory(path, ec)) path /= "index.html";
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  // A link inside the directory must not lead out of it.
  const auto [root_end, unused] = std::mismatch(root.begin(), root.end(), path.begin(), path.end());
  if (root_end != root.end()) return std::nullopt;
  const std::string generic = relative.generic_string();
  return StaticFile{
      path, ContentType(path),
      generic.starts_with("assets/") ? "public, max-age=31536000, immutable" : "no-cache"};
}

ByteRange ChooseRange(std::string_view header, uint64_t size) {
  constexpr std::string_view kUnit = "bytes=";
  if (!header.starts_with(kUnit)) return {};
  const std::string_view spec = header.substr(kUnit.size());
  if (spec.find(',') != std::string_view::npos) return {};
  const size_t dash = spec.find('-');
  if (dash == std::string_view::npos) return {};
  const std::optional<uint64_t> first = Number(spec.substr(0, dash));
  const std::optional<uint64_t> last = Number(spec.substr(dash + 1));
  // A part that is there must be a number.
  if ((dash > 0 && !first) || (dash + 1 < spec.size() && !last)) return {};
  if (!first) {
    // "-N": the last N bytes.
    if (!last) return {};
    const uint64_t n = std::min(*last, size);
    if (n == 0) return {ByteRange::Kind::kUnsatisfiable};
    return {ByteRange::Kind::kPart, size - n, n};
  }
  if (last && *last < *first) return {};
  if (*first >= size) return {ByteRange::Kind::kUnsatisfiable};
  const uint64_t end = last ? std::min(*last, size - 1) : size - 1;
  return {ByteRange::Kind::kPart, *first, end - *first + 1};
}

}  // namespace frugal::server

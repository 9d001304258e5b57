// The server's front door: every request passes the Host and Origin checks (origin_guard.h),
// then goes to its API route or, failing one, to the dashboard's files (static_files.h). An
// error sent back never shows where the server keeps its files.

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "frugal/core/paths.h"
#include "frugal/server/origin_guard.h"
#include "frugal/server/server_internal.h"
#include "frugal/server/static_files.h"

namespace frugal::server {
namespace fs = std::filesystem;
namespace {

bool IsApi(const Request& req) { return req.path.starts_with("/api/"); }

bool Screen(const Server::Impl& impl, const Request& req, Response& res) {
  const std::string host = req.get_header_value("Host");
  if (!HostAllowed(impl.options.listen.host, req.has_header("Host"), host)) {
    SetJsonError(res, 421,
                 fmt::format("this server answers to loopback names only (localhost, "
                             "127.0.0.1, [::1]), not to the Host '{}'",
                             host));
    return false;
  }
  const bool reading = req.method == "GET" || req.method == "HEAD";
  if (!reading && !SameOrigin(req.has_header("Origin"), req.get_header_value("Origin"), host)) {
    SetJsonError(res, 403,
                 "a page of another site (Origin " + req.get_header_value("Origin") +
                     ") cannot change anything or post work here");
    return false;
  }
  if (reading) return true;
  // Before the body is read: a request off loopback without the token, or one with a wrong
  // token, is answered now, so no client without the token makes the server take in a body.
  // (A loopback request without one still may: only the route knows whether it changes state.)
  if (!Authorized(impl, req, res, false)) return false;
  const std::string given = TokenOf(req);
  if (!given.empty() && impl.options.token && !SameToken(given, *impl.options.token)) {
    SetJsonError(res, 403, "wrong token");
    return false;
  }
  return true;
}

void ServeFile(const Server::Impl& impl, const Request& req, Response& res) {
  if (req.method != "GET" && req.method != "HEAD") {
    res.status = 405;
    res.set_header("Allow", "GET, HEAD");
    res.set_content("only GET and HEAD read the dashboard's files\n", "text/plain; charset=utf-8");
    return;
  }
  if (impl.web_dir.empty()) {
    res.status = 503;
    res.set_content(
        "The dashboard is not built (no index.html in its directory): run scripts/setup.sh, or "
        "set FRUGAL_WEB_DIR. The API is at /api/v1 and the metrics at /metrics.\n",
        "text/plain; charset=utf-8");
    return;
  }
  const std::optional<StaticFile> file = ResolveStatic(impl.web_dir, req.path);
  std::error_code ec;
  const uint64_t size = file ? fs::file_size(file->path, ec) : 0;
  if (!file || ec) {
    res.status = 404;
    res.set_content("no such file\n", "text/plain; charset=utf-8");
    return;
  }
  res.content_type = file->content_type;
  res.set_header("Cache-Control", file->cache_control);
  res.set_header("Accept-Ranges", "bytes");
  // A conditional range (If-Range) is answered whole: always correct, never larger.
  const ByteRange range =
      req.has_header("If-Range") ? ByteRange{} : ChooseRange(req.get_header_value("Range"), size);
  if (range.kind == ByteRange::Kind::kUnsatisfiable) {
    res.status = 416;
    res.set_header("Content-Range", fmt::format("bytes */{}", size));
    res.set_content("", file->content_type);
    return;
  }
  res.file = file->path;
  res.file_offset = range.kind == ByteRange::Kind::kPart ? range.first : 0;
  res.file_length = range.kind == ByteRange::Kind::kPart ? range.length : size;
  if (range.kind == ByteRange::Kind::kPart) {
    res.status = 206;
    res.set_header("Content-Range", fmt::format("bytes {}-{}/{}", range.first,
                                                range.first + range.length - 1, size));
  }
}

/// The directories an error message may name, longest first, with what it says instead.
std::vector<std::pair<std::string, std::string>> ServerRoots(const Server::Impl& impl) {
  std::vector<std::pair<std::string, std::string>> roots;
  const auto add = [&roots](const fs::path& dir, std::string label) {
    std::string text = dir.lexically_normal().string();
    while (text.size() > 1 && text.ends_with('/')) text.pop_back();
    if (text.size() < 2) return;
    // As the text appears in a JSON string, and as it appears in plain text.
    const std::string quoted = nlohmann::json(text).dump();
    roots.emplace_back(quoted.substr(1, quoted.size() - 2), label);
    if (quoted.size() != text.size() + 2) roots.emplace_back(text, label);
  };
  add(UserDataDir(), "<data dir>");
  add(UserConfigDir(), "<config dir>");
  add(ShippedDataDir(), "<shipped data>");
  if (!impl.web_dir.empty()) add(impl.web_dir, "<web dir>");
  if (const char* home = std::getenv("HOME"); home != nullptr) add(home, "~");
  std::error_code ec;
  add(fs::current_path(ec), "<server dir>");
  add(fs::temp_directory_path(ec), "<tmp>");
  const std::string& db = impl.options.db;
  if (!db.empty() && db.find("://") == std::string::npos) {
    add(fs::absolute(db, ec).parent_path(), "<ledger dir>");
    add(fs::path(db).parent_path(), "<ledger dir>");
  }
  std::stable_sort(roots.begin(), roots.end(),
                   [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  return roots;
}

void Answer(const Server::Impl& impl, const std::vector<std::pair<std::string, std::string>>& roots,
            Request& req, Response& res) {
  const Handler* handler = nullptr;
  switch (impl.http.Find(req, handler)) {
    case Router::Match::kFound:
      (*handler)(req, res);
      break;
    case Router::Match::kOtherMethod:
      SetJsonError(res, 405, fmt::format("{} does not take {}", req.path, req.method));
      break;
    case Router::Match::kNoPath:
      if (!IsApi(req) && req.path != "/metrics") {
        ServeFile(impl, req, res);
        return;
      }
      SetJsonError(res, 404, "no such API resource: " + req.path + " (see docs/api.md)");
      break;
  }
  if (res.status >= 400 && res.file.empty()) res.body = HideServerPaths(std::move(res.body), roots);
}

}  // namespace

HttpHooks FrontHooks(Server::Impl& impl) {
  const Server::Impl* p = &impl;
  return HttpHooks{
      [p](const Request& req, Response& res) { return Screen(*p, req, res); },
      [p, roots = ServerRoots(impl)](Request& req, Response& res) { Answer(*p, roots, req, res); },
  };
}

}  // namespace frugal::server

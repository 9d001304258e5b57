#pragma once
// One HTTP exchange as the server's handlers see it: the request (method, %-decoded path and
// query, headers, body, the route's captures) and the response they fill (status, headers,
// body). The transport (http_daemon.h) reads and writes them on the wire.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace frugal::server {

using Fields = std::vector<std::pair<std::string, std::string>>;

struct Request {
  std::string method;  ///< "GET", "POST", ...
  std::string path;    ///< %-decoded, without the query
  Fields params;       ///< %-decoded query parameters in order; a name may repeat
  Fields headers;      ///< names as sent (compared without case)
  std::string body;
  std::vector<std::string> matches;  ///< [0] the path, [1..] the route's captures

  [[nodiscard]] bool has_param(std::string_view name) const;
  /// The `index`-th value of parameter `name`, or "".
  [[nodiscard]] std::string get_param_value(std::string_view name, size_t index = 0) const;
  [[nodiscard]] size_t get_param_value_count(std::string_view name) const;
  /// The first header called `name` (any case), or "".
  [[nodiscard]] std::string get_header_value(std::string_view name) const;
  [[nodiscard]] bool has_header(std::string_view name) const;
};

struct Response {
  int status = 200;
  Fields headers;
  std::string body;
  std::string content_type = "text/plain; charset=utf-8";
  /// When set, the body is these bytes of this file instead (sent from the file, not copied).
  std::filesystem::path file;
  uint64_t file_offset = 0;
  uint64_t file_length = 0;

  void set_content(std::string text, std::string type) {
    body = std::move(text);
    content_type = std::move(type);
  }
  void set_header(std::string name, std::string value) {
    headers.emplace_back(std::move(name), std::move(value));
  }
};

using Handler = std::function<void(const Request&, Response&)>;

/// Fills `res` with the API's error document, `{"error": {"status": N, "message": "..."}}`,
/// bytes that are not UTF-8 written replaced.
void SetJsonError(Response& res, int status, std::string_view message);

/// `message` with every occurrence of a directory in `roots` replaced by its label (the first
/// of each pair names the directory, the second the label), so that an error sent to a client
/// does not show where the server keeps its files.
[[nodiscard]] std::string HideServerPaths(
    std::string message, const std::vector<std::pair<std::string, std::string>>& roots);

}  // namespace frugal::server

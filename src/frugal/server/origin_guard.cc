#include "frugal/server/origin_guard.h"

#include <algorithm>

#include "frugal/server/server.h"

namespace frugal::server {

std::string HostOfHeader(std::string_view value) {
  std::string_view host;
  if (value.starts_with('[')) {
    const size_t close = value.find(']');
    if (close == std::string_view::npos) return "";
    const std::string_view rest = value.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return "";
    host = value.substr(1, close - 1);
  } else {
    host = value.substr(0, value.find(':'));
    if (value.find(':') != value.rfind(':')) return "";
  }
  std::string out(host);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // A fully qualified name may end in a dot ("localhost.").
  if (out.ends_with('.')) out.pop_back();
  return out;
}

bool HostAllowed(std::string_view bind_host, bool present, std::string_view host_header) {
  if (!IsLoopback(bind_host)) return true;
  if (!present) return true;
  const std::string host = HostOfHeader(host_header);
  if (host.empty()) return false;
  std::string bind(bind_host);
  std::transform(bind.begin(), bind.end(), bind.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return host == bind || IsLoopback(host);
}

bool SameOrigin(bool has_origin, std::string_view origin, std::string_view host_header) {
  if (!has_origin) return true;
  std::string expected = "http://";
  expected += host_header;
  if (origin.size() != expected.size()) return false;
  return std::equal(origin.begin(), origin.end(), expected.begin(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) ==
           std::tolower(static_cast<unsigned char>(b));
  });
}

}  // namespace frugal::server

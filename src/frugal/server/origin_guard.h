#pragma once
// Which Host and Origin a request may carry. A server on loopback opens reading to anyone who
// can reach it, so a web page must not reach it under another name (DNS rebinding: a name the
// page's site controls, resolved to 127.0.0.1): such a request names that site in Host. And a
// page may send a "simple" cross-site POST (a form, or fetch with Content-Type text/plain)
// without asking first: such a request names the page in Origin.

#include <string>
#include <string_view>

namespace frugal::server {

/// The host part of a Host header value ("localhost:8787" → "localhost", "[::1]:80" → "::1"),
/// lower-cased; "" when it is not HOST[:PORT].
[[nodiscard]] std::string HostOfHeader(std::string_view value);

/// Whether a server listening on `bind_host` answers a request whose Host header is
/// `host_header` (`present` false when there was none, as HTTP/1.0 allows). Off loopback
/// every name is answered (the token guards it); on loopback only loopback names (localhost,
/// 127.0.0.0/8, ::1) and the bind name itself.
[[nodiscard]] bool HostAllowed(std::string_view bind_host, bool present,
                               std::string_view host_header);

/// Whether a request that changes state or posts work may go on: no Origin header (a program,
/// not a page), or the origin the request was sent to ("http://" + its Host).
[[nodiscard]] bool SameOrigin(bool has_origin, std::string_view origin,
                              std::string_view host_header);

}  // namespace frugal::server

#pragma once
// The server's HTTP transport, on libmicrohttpd: a few event-loop threads (epoll) serve every
// connection, so an idle or slow client holds a socket and a small buffer, never a thread
// another client needs. Idle connections are closed after a timeout; the number of
// connections is capped (per client address too, off loopback); a request's body is capped
// and read whole before its handler runs (a request with neither Content-Length nor
// Transfer-Encoding has none, RFC 9112). Headers and body go out in one write, with
// TCP_NODELAY.

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

#include "frugal/core/error.h"
#include "frugal/server/http_message.h"
#include "frugal/server/server.h"

namespace frugal::server {

struct HttpLimits {
  unsigned threads = 4;                 ///< event-loop threads
  size_t body_bytes = 1 << 20;          ///< larger bodies get a 413
  unsigned idle_seconds = 10;           ///< a connection quiet this long is closed
  unsigned connections = 0;             ///< at most this many at once (0: from RLIMIT_NOFILE)
  unsigned connections_per_client = 0;  ///< per client address (0: no cap)
};

/// What the transport asks of the server for each request.
struct HttpHooks {
  /// Called once the request's headers are in, before its body is read: false when it
  /// answered already (then `res` is sent and the body is never read).
  std::function<bool(const Request& req, Response& res)> screen;
  /// Called with the whole request; fills `res`. An exception becomes a 500.
  std::function<void(Request& req, Response& res)> answer;
};

class HttpDaemon {
 public:
  /// Binds and listens on `address` (SO_REUSEADDR, never SO_REUSEPORT, so a taken port is
  /// refused): kUnavailable naming the address when it cannot. Accepts nothing until Serve().
  [[nodiscard]] static Result<std::unique_ptr<HttpDaemon>> Bind(const ListenAddress& address,
                                                                HttpLimits limits, HttpHooks hooks);
  ~HttpDaemon();
  HttpDaemon(const HttpDaemon&) = delete;
  HttpDaemon& operator=(const HttpDaemon&) = delete;

  [[nodiscard]] int port() const { return port_; }

  /// Serves until Stop() (returns at once when Stop() came first); requests in flight finish
  /// first. kFailed when the event loop cannot start.
  [[nodiscard]] Result<void> Serve();
  /// Safe from any thread.
  void Stop();

  struct Exchange;
  /// The libmicrohttpd callbacks' entry points (public for them only).
  int OnRequest(void* connection, const char* url, const char* method, const char* upload,
                size_t* upload_bytes, void** state);

 private:
  HttpDaemon(int fd, int port, HttpLimits limits, HttpHooks hooks);
  int Send(void* connection, Exchange& x);

  int listen_fd_ = -1;  ///< owned until Serve() hands it to the event loop
  int port_ = 0;
  HttpLimits limits_;
  HttpHooks hooks_;
  std::mutex mu_;
  std::condition_variable stop_cv_;
  bool stop_ = false;  // GUARDED_BY(mu_)
};

}  // namespace frugal::server

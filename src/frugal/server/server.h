#pragma once
// `frugal serve`: one process serving the JSON API (/api/v1/..., docs/api.md), the Prometheus
// exposition (/metrics) and the dashboard's built files (/). Read-only requests are open on
// loopback; a non-loopback address needs a token, and every state-changing request needs it
// always (`Authorization: Bearer <token>`).

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

#include "frugal/core/error.h"

namespace frugal::server {

struct ListenAddress {
  std::string host;
  int port = 0;  ///< 0: any free port
};

/// "127.0.0.1:8787", "[::1]:8787", "0.0.0.0:80", "localhost:0". kBadInput naming --listen for
/// anything else.
[[nodiscard]] Result<ListenAddress> ParseListen(std::string_view text);

/// Whether `host` is a loopback address or name (127.0.0.0/8, ::1, localhost).
[[nodiscard]] bool IsLoopback(std::string_view host);

/// The token in `path`: its first line, trimmed. kBadInput naming the file when it is missing,
/// unreadable or empty, or when others can read it (mode must not grant group/other access).
[[nodiscard]] Result<std::string> ReadToken(const std::filesystem::path& path);

/// Where the dashboard's built files are: $FRUGAL_WEB_DIR, else <exe>/../share/frugal/web
/// (installed), else the source tree's web/dist (build tree).
[[nodiscard]] std::filesystem::path WebDir();

struct ServerOptions {
  ListenAddress listen{"127.0.0.1", 8787};
  std::string db;                    ///< --db ("" = $FRUGAL_DB or the default ledger file)
  std::optional<std::string> token;  ///< needed for state-changing requests; required off loopback
  std::string catalog;               ///< --catalog: custom offers added to the shipped catalog
  std::string policy;  ///< --policy: screens posted plans ("" = $FRUGAL_POLICY, the config dir)
  std::filesystem::path thresholds;  ///< audit settings ("" = the config dir's audit.yaml)
  std::filesystem::path web_dir;     ///< the dashboard's files ("" = WebDir())
  int threads = 64;                  ///< event-loop threads (a connection never holds one)
};

class Server {
 public:
  /// Checks the options, opens the ledger once (kUnavailable for a database that cannot be
  /// reached; the ledger's own error for a path with none), loads the catalog and audit
  /// settings, and binds the address (kUnavailable naming it when it is taken). Serves nothing
  /// until Serve().
  [[nodiscard]] static Result<std::unique_ptr<Server>> Start(const ServerOptions& options);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  /// The bound port (the one chosen when the options asked for 0).
  [[nodiscard]] int port() const;
  /// "http://host:port".
  [[nodiscard]] std::string url() const;
  /// Where the ledger is, for the start-up line.
  [[nodiscard]] std::string ledger_where() const;

  /// Serves until Stop(); requests in flight finish first. kFailed if the listener fails.
  [[nodiscard]] Result<void> Serve();
  /// Stops Serve(); safe from any thread, and before Serve() has started.
  void Stop();

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace frugal::server

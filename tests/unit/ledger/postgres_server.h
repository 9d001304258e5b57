#pragma once
// A real PostgreSQL server for tests: initdb in a temporary directory (as the `postgres` user,
// since the server refuses to run as root), started on a free loopback port, stopped and
// removed when the object goes away. Each test gets its own schema.

#include <memory>
#include <string>

namespace frugal::ledger::testing {

class PostgresServer {
 public:
  /// The server shared by this test process, started on first use; null when the PostgreSQL
  /// binaries are absent or it failed to start (why() says which).
  static PostgresServer* Shared();
  static const std::string& why();

  ~PostgresServer();
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  /// A URL whose search_path is a fresh, empty schema.
  std::string NewDatabaseUrl();
  /// The URL of the server's default database.
  std::string AdminUrl() const;
  int port() const { return port_; }
  /// Restarts the server on the same port (pg_ctl restart, fast mode): every open session is
  /// closed by it. False when it did not come back.
  bool Restart();

 private:
  PostgresServer() = default;
  bool Start(std::string& why);

  std::string dir_;
  std::string bin_;
  int port_ = 0;
  int schemas_ = 0;
  bool running_ = false;
};

}  // namespace frugal::ledger::testing

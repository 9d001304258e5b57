#include "postgres_server.h"

#include <fmt/format.h>
#include <unistd.h>

#include <filesystem>
#include <thread>

#include "frugal/ledger/sql.h"
#include "support/test_support.h"

namespace frugal::ledger::testing {
namespace {

constexpr const char* kRunuser = "/usr/sbin/runuser";

std::string FindBinDir() {
  std::string best;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    const std::filesystem::path bin = entry.path() / "bin";
    if (std::filesystem::exists(bin / "initdb") && bin.string() > best) best = bin.string();
  }
  return best;
}

std::string& Why() {
  static std::string why;
  return why;
}

}  // namespace

const std::string& PostgresServer::why() { return Why(); }

PostgresServer* PostgresServer::Shared() {
  static std::unique_ptr<PostgresServer> server = []() {
    std::unique_ptr<PostgresServer> s(new PostgresServer());
    if (!s->Start(Why())) s.reset();
    return s;
  }();
  return server.get();
}

namespace {

/// The command line for a server binary: as the `postgres` user when we are root (the server
/// refuses to run as root), as ourselves otherwise.
std::vector<std::string> AsServerUser(std::vector<std::string> argv) {
  if (::geteuid() != 0) return argv;
  argv.insert(argv.begin(), {kRunuser, "-u", "postgres", "--"});
  return argv;
}

}  // namespace

bool PostgresServer::Start(std::string& why) {
  bin_ = FindBinDir();
  if (bin_.empty() || (::geteuid() == 0 && !std::filesystem::exists(kRunuser))) {
    why = "PostgreSQL server binaries (Debian package postgresql) are not installed";
    return false;
  }
  std::string pattern = (std::filesystem::temp_directory_path() / "frugal-pg-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    why = "cannot make a temporary directory";
    return false;
  }
  dir_ = pattern;
  if (::geteuid() == 0) frugal::testing::RunProgram({"/bin/chown", "postgres:postgres", dir_});
  const auto init = frugal::testing::RunProgram(
      AsServerUser({bin_ + "/initdb", "-D", dir_ + "/data", "-A", "trust", "-U", "frugal", "-N",
                    "--no-instructions"}));
  if (init.exit_code != 0) {
    why = "initdb failed: " + init.err;
    return false;
  }
  for (int attempt = 0; attempt < 5 && !running_; ++attempt) {
    port_ = frugal::testing::FreeLoopbackPort();
    const auto start = frugal::testing::RunProgram(
        AsServerUser({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-l", dir_ + "/log", "-w", "-o",
                      fmt::format("-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off "
                                  "-c max_connections=200",
                                  port_, dir_),
                      "start"}));
    running_ = start.exit_code == 0;
    if (!running_) why = "pg_ctl start failed: " + start.out + start.err;
  }
  return running_;
}

bool PostgresServer::Restart() {
  // pg_ctl restart starts the server again with the options it last started with.
  const auto restart =
      frugal::testing::RunProgram(AsServerUser({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-l",
                                                dir_ + "/log", "-m", "fast", "-w", "restart"}));
  running_ = restart.exit_code == 0;
  return running_;
}

PostgresServer::~PostgresServer() {
  if (running_) {
    frugal::testing::RunProgram(
        AsServerUser({bin_ + "/pg_ctl", "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"}));
  }
  if (!dir_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
}

std::string PostgresServer::AdminUrl() const {
  return fmt::format("postgresql://frugal@127.0.0.1:{}/postgres", port_);
}

std::string PostgresServer::NewDatabaseUrl() {
  const std::string schema = fmt::format("t{}_{}", ::getpid(), ++schemas_);
  Result<std::unique_ptr<Connection>> admin = OpenPostgres(AdminUrl());
  if (!admin || !(*admin)->ExecuteScript("CREATE SCHEMA " + schema)) return "";
  return fmt::format("{}?options=-c%20search_path%3D{}", AdminUrl(), schema);
}

}  // namespace frugal::ledger::testing

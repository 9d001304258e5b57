// The SQLite backend of the ledger's SQL seam: WAL journal, a busy timeout, BEGIN IMMEDIATE for
// writers and a cache of prepared statements (sample batches reuse one insert).

#include <fcntl.h>
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>

#include "frugal/ledger/sql.h"

namespace frugal::ledger {
namespace {

constexpr int kBusyTimeoutMs = 5'000;

/// Whether the filesystem holding `path` has no byte left for this user.
bool NoRoomBeside(const std::string& path) {
  struct statvfs fs {};
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (::statvfs(dir.empty() ? "." : dir.c_str(), &fs) != 0) return false;
  return fs.f_bavail == 0;
}

/// Why `path` cannot be opened, when permissions say: the file, or (for a ledger still to be
/// created) its directory, is not this user's to read or write. Empty when they do not.
std::string PermissionProblem(const std::string& path, CreateMode create) {
  const std::filesystem::path file(path);
  std::filesystem::path dir = file.parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    if (create == CreateMode::kCreateIfMissing &&
        ::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
      return fmt::format(
          "cannot create the ledger there: the directory {} is not writable by "
          "this user ({})",
          dir.string(), std::strerror(errno));
    }
    return {};
  }
  const int wanted = create == CreateMode::kReadOnly ? R_OK : R_OK | W_OK;
  if (::faccessat(AT_FDCWD, file.c_str(), wanted, AT_EACCESS) != 0) {
    return fmt::format("the file is not {} by this user ({})",
                       create == CreateMode::kReadOnly ? "readable" : "readable and writable",
                       std::strerror(errno));
  }
  if (create != CreateMode::kReadOnly &&
      ::faccessat(AT_FDCWD, dir.c_str(), W_OK | X_OK, AT_EACCESS) != 0) {
    return fmt::format(
        "its directory {} is not writable by this user ({}), and SQLite keeps "
        "its write-ahead log there",
        dir.string(), std::strerror(errno));
  }
  return {};
}

/// `path` as a SQLite URI ("file:" with '%', '?' and '#' escaped).
std::string FileUri(const std::string& path) {
  std::string uri = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      uri += fmt::format("%{:02X}", static_cast<unsigned char>(c));
    } else {
      uri += c;
    }
  }
  return uri;
}

class SqliteConnection final : public Connection {
 public:
  SqliteConnection(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  ~SqliteConnection() override {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    sqlite3_close_v2(db_);
  }
  SqliteConnection(const SqliteConnection&) = delete;
  SqliteConnection& operator=(const SqliteConnection&) = delete;

  Dialect dialect() const override { return Dialect::kSqlite; }
  std::string where() const override { return path_; }

  Result<std::vector<Row>> Query(std::string_view sql, std::span<const Value> params) override {
    sqlite3_stmt* stmt = FRUGAL_TRY(Prepare(sql));
    FRUGAL_TRY(Bind(stmt, params));
    std::vector<Row> rows;
    while (true) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) {
        sqlite3_reset(stmt);
        return Fail(Failure(rc, sql));
      }
      rows.push_back(ReadRow(stmt));
    }
    sqlite3_reset(stmt);
    return rows;
  }

  Result<void> ExecuteMany(std::string_view sql, std::span<const Row> rows) override {
    sqlite3_stmt* stmt = FRUGAL_TRY(Prepare(sql));
    for (const Row& row : rows) {
      FRUGAL_TRY(Bind(stmt, row));
      const int rc = sqlite3_step(stmt);
      sqlite3_reset(stmt);
      if (rc != SQLITE_DONE && rc != SQLITE_ROW) return Fail(Failure(rc, sql));
    }
    return {};
  }

  Result<void> ExecuteScript(std::string_view sql) override {
    char* message = nullptr;
    const int rc = sqlite3_exec(db_, std::string(sql).c_str(), nullptr, nullptr, &message);
    if (message != nullptr) sqlite3_free(message);
    if (rc != SQLITE_OK) return Fail(Failure(rc, sql));
    return {};
  }

  Result<void> Begin(TxnMode mode) override {
    last_transient_ = false;
    return ExecuteScript(mode == TxnMode::kWrite ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  Result<void> Commit() override { return ExecuteScript("COMMIT"); }
  void Rollback() override {
    if (sqlite3_get_autocommit(db_) == 0) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  bool LastErrorWasTransient() const override { return last_transient_; }

 private:
  Result<sqlite3_stmt*> Prepare(std::string_view sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    const int rc =
        sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
    if (rc != SQLITE_OK) return Fail(Failure(rc, sql));
    statements_.emplace(std::string(sql), stmt);
    return stmt;
  }

  Result<void> Bind(sqlite3_stmt* stmt, std::span<const Value> params) {
    sqlite3_clear_bindings(stmt);
    for (size_t i = 0; i < params.size(); ++i) {
      const int index = static_cast<int>(i) + 1;
      const Value& v = params[i];
      int rc = SQLITE_OK;
      if (const auto* n = std::get_if<int64_t>(&v)) {
        rc = sqlite3_bind_int64(stmt, index, *n);
      } else if (const auto* d = std::get_if<double>(&v)) {
        rc = sqlite3_bind_double(stmt, index, *d);
      } else if (const auto* s = std::get_if<std::string>(&v)) {
        rc = sqlite3_bind_text(stmt, index, s->data(), static_cast<int>(s->size()),
                               SQLITE_TRANSIENT);
      } else {
        rc = sqlite3_bind_null(stmt, index);
      }
      if (rc != SQLITE_OK) return Fail(Failure(rc, "bind"));
    }
    return {};
  }

  static Row ReadRow(sqlite3_stmt* stmt) {
    const int n = sqlite3_column_count(stmt);
    Row row;
    row.reserve(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      switch (sqlite3_column_type(stmt, i)) {
        case SQLITE_INTEGER:
          row.emplace_back(static_cast<int64_t>(sqlite3_column_int64(stmt, i)));
          break;
        case SQLITE_FLOAT:
          row.emplace_back(sqlite3_column_double(stmt, i));
          break;
        case SQLITE_NULL:
          row.emplace_back(std::monostate{});
          break;
        default: {
          const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(stmt, i));
          row.emplace_back(std::string(text, static_cast<size_t>(sqlite3_column_bytes(stmt, i))));
        }
      }
    }
    return row;
  }

  Error Failure(int rc, std::string_view sql) {
    const int primary = rc & 0xff;
    last_transient_ = primary == SQLITE_BUSY || primary == SQLITE_LOCKED;
    const std::string detail = sqlite3_errmsg(db_);
    if (primary == SQLITE_NOTADB || primary == SQLITE_CORRUPT) {
      return Error{ErrorCode::kBadInput,
                   fmt::format("{}: not a usable frugal ledger ({}); move it aside or pass "
                               "another --db",
                               path_, detail)};
    }
    // With no byte free, SQLite may fail before it writes (growing the shared-memory file, an
    // fsync): an I/O error whose cause is ENOSPC is a full disk all the same.
    const int os_error = sqlite3_system_errno(db_);
    if (primary == SQLITE_FULL ||
        (primary == SQLITE_IOERR &&
         (os_error == ENOSPC || os_error == EDQUOT || NoRoomBeside(path_)))) {
      // SQLite's own words for the I/O error ("disk I/O error") would hide the cause.
      return Error{ErrorCode::kFailed,
                   fmt::format("{}: disk full ({})", path_,
                               primary == SQLITE_FULL ? detail : std::strerror(ENOSPC))};
    }
    if (primary == SQLITE_READONLY) {
      return Error{ErrorCode::kFailed,
                   fmt::format("{}: not writable by this user ({}); read-only commands work, "
                               "others need a user who can write it and its directory",
                               path_, detail)};
    }
    if (primary == SQLITE_CANTOPEN || primary == SQLITE_IOERR || primary == SQLITE_PERM) {
      return Error{ErrorCode::kFailed, fmt::format("{}: {}", path_, detail)};
    }
    return Error{last_transient_ ? ErrorCode::kUnavailable : ErrorCode::kFailed,
                 fmt::format("{}: {} (in: {:.80})", path_, detail, sql)};
  }

  sqlite3* db_;
  std::string path_;
  std::map<std::string, sqlite3_stmt*, std::less<>> statements_;
  bool last_transient_ = false;
};

/// Opens `file` (a path or ":memory:") with `flags`; `where` names it in messages.
Result<std::unique_ptr<Connection>> OpenHandle(const std::string& file, const std::string& where,
                                               int flags) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(file.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string detail = db != nullptr ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close_v2(db);
    return Fail(ErrorCode::kFailed, fmt::format("{}: cannot open ledger: {}", where, detail));
  }
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  return std::make_unique<SqliteConnection>(db, where);
}

}  // namespace

Result<std::unique_ptr<Connection>> OpenSqliteInMemory(const std::string& where) {
  return OpenHandle(":memory:", where,
                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX);
}

/// A ledger this user may read but not write. SQLite reads a WAL database through its
/// shared-memory file, which a reader creates when it is missing; where it cannot (the
/// directory is not the user's) and no write-ahead log is there, every committed row is in the
/// file itself, which is then read as immutable.
Result<std::unique_ptr<Connection>> OpenSqliteReadOnly(const std::string& path) {
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX;
  std::unique_ptr<Connection> connection = FRUGAL_TRY(OpenHandle(path, path, flags));
  if (connection->Query("SELECT COUNT(*) FROM sqlite_master")) return connection;
  std::error_code ec;
  const std::string wal = path + "-wal";
  if (std::filesystem::exists(wal, ec) && std::filesystem::file_size(wal, ec) > 0) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: cannot be read by this user: it is not writable by this user "
                            "and a writer's log beside it is still open",
                            path));
  }
  connection =
      FRUGAL_TRY(OpenHandle(FileUri(path) + "?immutable=1", path, flags | SQLITE_OPEN_URI));
  FRUGAL_TRY(connection->Query("SELECT COUNT(*) FROM sqlite_master"));
  return connection;
}

Result<std::unique_ptr<Connection>> OpenSqlite(const std::string& path, CreateMode create) {
  if (const std::string problem = PermissionProblem(path, create); !problem.empty()) {
    return Fail(ErrorCode::kFailed, fmt::format("{}: {}", path, problem));
  }
  if (create == CreateMode::kReadOnly) return OpenSqliteReadOnly(path);
  int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX;
  if (create == CreateMode::kCreateIfMissing) flags |= SQLITE_OPEN_CREATE;
  std::unique_ptr<Connection> connection = FRUGAL_TRY(OpenHandle(path, path, flags));
  // The first statement reads the header: a foreign file fails here with a clear message.
  // Switching a new file to WAL needs a moment of exclusive access, which the busy handler
  // does not wait for when another process is creating the same ledger; retry then.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    Result<std::vector<Row>> wal = connection->Query("PRAGMA journal_mode=WAL");
    if (wal) break;
    if (!connection->LastErrorWasTransient() || std::chrono::steady_clock::now() > deadline) {
      return Fail(wal.error());
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  // NORMAL is durable across process crashes in WAL mode (only power loss may drop the tail).
  // Reports scan whole tables: read pages through a memory map and keep a 64 MiB page cache
  // rather than copying every page through read().
  FRUGAL_TRY(connection->ExecuteScript(
      "PRAGMA synchronous=NORMAL; PRAGMA foreign_keys=ON; PRAGMA mmap_size=1073741824; "
      "PRAGMA cache_size=-65536"));
  return connection;
}

}  // namespace frugal::ledger

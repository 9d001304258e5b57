#pragma once
// The narrow SQL seam the ledger is written against. One Connection per process handle; the
// SQLite and PostgreSQL backends implement it, and everything above (schema, ledger, reports,
// FOCUS) is written once in the SQL both accept. Statements use `?` placeholders; the
// PostgreSQL backend rewrites them to `$n`.

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/tier.h"

namespace frugal::ledger {

/// A column value or parameter: NULL, integer, real or text.
using Value = std::variant<std::monostate, int64_t, double, std::string>;
using Row = std::vector<Value>;

[[nodiscard]] bool IsNull(const Value& v);
/// Integer value (a real is truncated, text parsed); 0 for NULL.
[[nodiscard]] int64_t AsInt(const Value& v);
[[nodiscard]] std::optional<int64_t> AsOptionalInt(const Value& v);
[[nodiscard]] double AsDouble(const Value& v);
[[nodiscard]] std::optional<double> AsOptionalDouble(const Value& v);
/// Text value ("" for NULL; numbers formatted).
[[nodiscard]] std::string AsText(const Value& v);
/// A stored tier (as ParseCapacityTier reads it). kFailed naming the text when it is no tier
/// (a ledger written by something else, or damaged).
[[nodiscard]] Result<CapacityTier> AsTier(const Value& v);
/// NULL when `v` is empty, else the value.
[[nodiscard]] Value NullIfEmpty(const std::string& v);
template <typename T>
Value OrNull(const std::optional<T>& v) {
  if (!v) return Value{};
  return Value{*v};
}

enum class Dialect { kSqlite, kPostgres };

/// How a transaction starts: kWrite takes the write lock up front (SQLite BEGIN IMMEDIATE), so
/// a writer never fails half-way through on a lock upgrade; kRead only reads, and every
/// statement in it sees the same state of the database (SQLite's read transaction, PostgreSQL
/// REPEATABLE READ READ ONLY).
enum class TxnMode { kRead, kWrite };

/// One database session. Not thread-safe; one per thread or process.
class Connection {
 public:
  virtual ~Connection() = default;
  [[nodiscard]] virtual Dialect dialect() const = 0;
  /// Human-readable location for messages (a path or a URL without password).
  [[nodiscard]] virtual std::string where() const = 0;

  /// Runs one statement with `?` parameters and returns its rows (none for writes).
  [[nodiscard]] virtual Result<std::vector<Row>> Query(std::string_view sql,
                                                       std::span<const Value> params = {}) = 0;
  /// Runs one statement once per parameter row, preparing it once.
  [[nodiscard]] virtual Result<void> ExecuteMany(std::string_view sql,
                                                 std::span<const Row> rows) = 0;
  /// Runs a script of parameterless statements separated by ';' (DDL).
  [[nodiscard]] virtual Result<void> ExecuteScript(std::string_view sql) = 0;

  [[nodiscard]] virtual Result<void> Begin(TxnMode mode) = 0;
  [[nodiscard]] virtual Result<void> Commit() = 0;
  /// Rolls back the open transaction, if any; never fails.
  virtual void Rollback() = 0;
  /// Whether the last failure was a transient conflict (busy, lock, serialization, deadlock)
  /// that a retry of the whole transaction may cure.
  [[nodiscard]] virtual bool LastErrorWasTransient() const = 0;
  /// Whether the session is gone (the server closed it, the network dropped it): every
  /// statement on it will fail, so a pool must close it rather than hand it out again.
  [[nodiscard]] virtual bool Lost() const { return false; }
};

/// Runs `body` inside a transaction; commits when it succeeds, rolls back when it fails. A
/// transient conflict retries the whole transaction with backoff (up to about 30 s), so
/// concurrent writers never see "database is locked". `body` must be safe to re-run.
[[nodiscard]] Result<void> Transact(Connection& db, TxnMode mode,
                                    const std::function<Result<void>(Connection&)>& body);

/// Opens a SQLite file (creating it when absent and `create` allows), in WAL mode with a busy
/// timeout. kBadInput when the file is not a SQLite database; kFailed on I/O errors.
/// kReadOnly: the file must exist and is only read (a ledger this user may read but not
/// write); a write then fails with "not writable by this user".
enum class CreateMode { kCreateIfMissing, kMustExist, kReadOnly };
[[nodiscard]] Result<std::unique_ptr<Connection>> OpenSqlite(const std::string& path,
                                                             CreateMode create);
/// An empty SQLite database in memory, named `where` in messages: what a read-only command
/// reads when the default ledger does not exist yet, so that it creates nothing on disk.
[[nodiscard]] Result<std::unique_ptr<Connection>> OpenSqliteInMemory(const std::string& where);
/// Connects to PostgreSQL at a `postgresql://` URL. kUnavailable when it cannot be reached.
[[nodiscard]] Result<std::unique_ptr<Connection>> OpenPostgres(const std::string& url);

}  // namespace frugal::ledger

// The PostgreSQL backend of the ledger's SQL seam (libpqxx). `?` placeholders become `$n`;
// statements outside an explicit transaction run in autocommit; serialization failures,
// deadlocks and lock timeouts are reported as transient so Transact retries them. Built as the
// module frugal_postgres (postgres_module.h): libpqxx and libpq are loaded only by the commands
// that open a postgresql:// ledger.

#include <fmt/format.h>
#include <libpq-fe.h>

#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <set>
#include <string_view>

#include "frugal/core/text.h"
#include "frugal/ledger/postgres_module.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {
namespace {

// Type OIDs from PostgreSQL's pg_type catalog.
constexpr pqxx::oid kInt8Oid = 20;
constexpr pqxx::oid kInt2Oid = 21;
constexpr pqxx::oid kInt4Oid = 23;
constexpr pqxx::oid kFloat4Oid = 700;
constexpr pqxx::oid kFloat8Oid = 701;
constexpr pqxx::oid kNumericOid = 1700;

/// Rewrites `?` placeholders (outside quotes) to `$1, $2, ...`.
std::string ToDollarParams(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  bool quoted = false;
  for (char c : sql) {
    if (c == '\'') quoted = !quoted;
    if (c == '?' && !quoted) {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

/// The URL without its password, for messages.
std::string Redacted(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t at = url.find('@');
  if (scheme == std::string::npos || at == std::string::npos) return url;
  const size_t colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon) + ":***" + url.substr(at);
}

class PostgresConnection final : public Connection {
 public:
  PostgresConnection(std::unique_ptr<pqxx::connection> conn, std::string where)
      : conn_(std::move(conn)), where_(std::move(where)) {}
  ~PostgresConnection() override { Rollback(); }
  PostgresConnection(const PostgresConnection&) = delete;
  PostgresConnection& operator=(const PostgresConnection&) = delete;

  Dialect dialect() const override { return Dialect::kPostgres; }
  std::string where() const override { return where_; }

  Result<std::vector<Row>> Query(std::string_view sql, std::span<const Value> params) override {
    return Guard([&]() { return Run(sql, params); });
  }

  Result<void> ExecuteMany(std::string_view sql, std::span<const Row> rows) override {
    Result<std::vector<Row>> done = Guard([&]() {
      for (const Row& row : rows) Run(sql, row);
      return std::vector<Row>{};
    });
    if (!done) return Fail(done.error());
    return {};
  }

  Result<void> ExecuteScript(std::string_view sql) override {
    Result<std::vector<Row>> done = Guard([&]() {
      if (work_) {
        work_->exec(std::string(sql));
      } else {
        pqxx::nontransaction txn(*conn_);
        txn.exec(std::string(sql));
      }
      return std::vector<Row>{};
    });
    if (!done) return Fail(done.error());
    return {};
  }

  Result<void> Begin(TxnMode mode) override {
    last_transient_ = false;
    Result<std::vector<Row>> done = Guard([&]() {
      work_ = std::make_unique<pqxx::work>(*conn_);
      // One snapshot for the whole read, taken at its first statement.
      if (mode == TxnMode::kRead)
        work_->exec("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
      return std::vector<Row>{};
    });
    if (!done) return Fail(done.error());
    return {};
  }

  Result<void> Commit() override {
    Result<std::vector<Row>> done = Guard([&]() {
      work_->commit();
      work_.reset();
      return std::vector<Row>{};
    });
    if (!done) return Fail(done.error());
    return {};
  }

  void Rollback() override {
    if (!work_) return;
    try {
      work_->abort();
    } catch (const std::exception&) {
      // The connection may be gone; dropping the transaction object is all that is left.
    }
    work_.reset();
  }

  bool LastErrorWasTransient() const override { return last_transient_; }
  bool Lost() const override { return conn_ == nullptr || !conn_->is_open(); }

 private:
  std::vector<Row> Run(std::string_view sql, std::span<const Value> params) {
    std::vector<std::string> texts(params.size());
    std::vector<const char*> pointers(params.size(), nullptr);
    for (size_t i = 0; i < params.size(); ++i) {
      if (IsNull(params[i])) continue;
      texts[i] = AsText(params[i]);
      pointers[i] = texts[i].c_str();
    }
    const std::string query = ToDollarParams(sql);
    pqxx::result result;
    if (work_) {
      result = work_->exec_params(query, pqxx::prepare::make_dynamic_params(pointers));
    } else {
      pqxx::nontransaction txn(*conn_);
      result = txn.exec_params(query, pqxx::prepare::make_dynamic_params(pointers));
    }
    return Convert(result);
  }

  static std::vector<Row> Convert(const pqxx::result& result) {
    std::vector<Row> rows;
    rows.reserve(result.size());
    for (const pqxx::row& r : result) {
      Row row;
      row.reserve(r.size());
      for (const pqxx::field& f : r) {
        if (f.is_null()) {
          row.emplace_back(std::monostate{});
          continue;
        }
        const pqxx::oid type = f.type();
        if (type == kInt8Oid || type == kInt2Oid || type == kInt4Oid) {
          row.emplace_back(f.as<int64_t>());
        } else if (type == kFloat4Oid || type == kFloat8Oid || type == kNumericOid) {
          row.emplace_back(f.as<double>());
        } else {
          row.emplace_back(std::string(f.c_str(), f.size()));
        }
      }
      rows.push_back(std::move(row));
    }
    return rows;
  }

  template <typename F>
  Result<std::vector<Row>> Guard(F&& body) {
    try {
      return body();
    } catch (const pqxx::broken_connection& e) {
      work_.reset();
      return Fail(ErrorCode::kUnavailable,
                  fmt::format("{}: connection lost: {}", where_, e.what()));
    } catch (const pqxx::sql_error& e) {
      const std::string& state = e.sqlstate();
      // 40001 serialization failure, 40P01 deadlock, 55P03 lock not available.
      last_transient_ = state == "40001" || state == "40P01" || state == "55P03";
      return Fail(last_transient_ ? ErrorCode::kUnavailable : ErrorCode::kFailed,
                  fmt::format("{}: {}", where_, Trimmed(e.what())));
    } catch (const std::exception& e) {
      return Fail(ErrorCode::kFailed, fmt::format("{}: {}", where_, Trimmed(e.what())));
    }
  }

  static std::string Trimmed(std::string text) {
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    return text;
  }

  std::unique_ptr<pqxx::connection> conn_;
  std::unique_ptr<pqxx::work> work_;
  std::string where_;
  bool last_transient_ = false;
};

/// Whether `value` is a whole number in [low, high].
bool IsIntegerIn(std::string_view value, int64_t low, int64_t high) {
  const Result<int64_t> n = ParseInt(value);
  return n && Trim(value) == value && *n >= low && *n <= high;
}

/// libpq parses a URL without judging its values: a port of "notaport" or an sslmode of
/// "bogus" fail only at connect time, where they would read as a server that is down. The
/// parameters frugal's users write are checked here as libpq would check them later.
Result<void> CheckConninfoValues(const PQconninfoOption* options, const std::string& redacted) {
  auto bad = [&](std::string_view keyword, const std::string& value, std::string_view expected) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: not a valid PostgreSQL URL: {} '{}' is not {}", redacted, keyword,
                            Abbreviate(value), expected));
  };
  for (const PQconninfoOption* o = options; o->keyword != nullptr; ++o) {
    if (o->val == nullptr) continue;
    const std::string keyword = o->keyword;
    const std::string value = o->val;
    if (keyword == "port") {
      // A list, one port per host; an empty entry means the default.
      for (const std::string& port : Split(value, ',')) {
        if (!port.empty() && !IsIntegerIn(port, 1, 65535)) {
          return bad("port", port, "a port number (1 to 65535)");
        }
      }
    } else if (keyword == "sslmode") {
      static const std::set<std::string> kModes = {"disable", "allow",     "prefer",
                                                   "require", "verify-ca", "verify-full"};
      if (!kModes.contains(value)) {
        return bad("sslmode", value,
                   "one of disable, allow, prefer, require, verify-ca, verify-full");
      }
    } else if (keyword == "gssencmode") {
      if (value != "disable" && value != "prefer" && value != "require") {
        return bad("gssencmode", value, "one of disable, prefer, require");
      }
    } else if (keyword == "connect_timeout" || keyword == "keepalives" ||
               keyword == "keepalives_idle" || keyword == "keepalives_interval" ||
               keyword == "keepalives_count" || keyword == "tcp_user_timeout") {
      if (!IsIntegerIn(value, 0, std::numeric_limits<int32_t>::max())) {
        return bad(keyword, value, "a whole number of seconds (or a count) ≥ 0");
      }
    }
  }
  return {};
}

Result<std::unique_ptr<Connection>> Connect(const std::string& url) {
  // A URL libpq cannot even parse is the user's typo, not a server that is down.
  char* parse_error = nullptr;
  PQconninfoOption* parsed = PQconninfoParse(url.c_str(), &parse_error);
  if (parsed == nullptr) {
    std::string detail = parse_error != nullptr ? parse_error : "out of memory";
    PQfreemem(parse_error);
    // libpq quotes the whole URI, password included, after " in URI:"; the redacted one is
    // printed instead.
    if (const size_t quoted = detail.find(" in URI:"); quoted != std::string::npos) {
      detail.resize(quoted);
    }
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: not a valid PostgreSQL URL: {}", Redacted(url), detail));
  }
  const Result<void> values = CheckConninfoValues(parsed, Redacted(url));
  PQconninfoFree(parsed);
  FRUGAL_TRY(values);
  try {
    auto conn = std::make_unique<pqxx::connection>(url);
    std::unique_ptr<Connection> connection =
        std::make_unique<PostgresConnection>(std::move(conn), Redacted(url));
    // Notices (e.g. "relation already exists, skipping") are not the user's business.
    FRUGAL_TRY(connection->ExecuteScript("SET client_min_messages TO WARNING"));
    return connection;
  } catch (const std::exception& e) {
    std::string detail = e.what();
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    return Fail(ErrorCode::kUnavailable,
                fmt::format("{}: cannot connect to PostgreSQL: {}", Redacted(url), detail));
  }
}

}  // namespace
}  // namespace frugal::ledger

extern "C" void frugal_postgres_open(
    const std::string* url,
    frugal::Result<std::unique_ptr<frugal::ledger::Connection>>* connection) {
  *connection = frugal::ledger::Connect(*url);
}

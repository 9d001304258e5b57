#include "frugal/ledger/sql.h"

#include <fmt/format.h>

#include <chrono>
#include <random>
#include <thread>

#include "frugal/core/text.h"

namespace frugal::ledger {

bool IsNull(const Value& v) { return std::holds_alternative<std::monostate>(v); }

int64_t AsInt(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return *i;
  if (const auto* d = std::get_if<double>(&v)) return static_cast<int64_t>(*d);
  if (const auto* s = std::get_if<std::string>(&v)) {
    Result<int64_t> parsed = ParseInt(*s);
    return parsed ? *parsed : 0;
  }
  return 0;
}

std::optional<int64_t> AsOptionalInt(const Value& v) {
  if (IsNull(v)) return std::nullopt;
  return AsInt(v);
}

double AsDouble(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  if (const auto* s = std::get_if<std::string>(&v)) {
    Result<double> parsed = ParseDouble(*s);
    return parsed ? *parsed : 0.0;
  }
  return 0.0;
}

std::optional<double> AsOptionalDouble(const Value& v) {
  if (IsNull(v)) return std::nullopt;
  return AsDouble(v);
}

std::string AsText(const Value& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) return fmt::format("{}", *d);
  return "";
}

Result<CapacityTier> AsTier(const Value& v) {
  return ParseCapacityTier(AsText(v)).map_error([](const Error& e) {
    return Error{ErrorCode::kFailed, e.message};
  });
}

Value NullIfEmpty(const std::string& v) { return v.empty() ? Value{} : Value{v}; }

Result<void> Transact(Connection& db, TxnMode mode,
                      const std::function<Result<void>(Connection&)>& body) {
  using std::chrono::steady_clock;
  const steady_clock::time_point deadline = steady_clock::now() + std::chrono::seconds(30);
  std::minstd_rand jitter(std::random_device{}());
  int backoff_ms = 2;
  while (true) {
    Result<void> attempt = db.Begin(mode);
    if (attempt) {
      attempt = body(db);
      if (attempt) attempt = db.Commit();
    }
    if (attempt) return {};
    const bool transient = db.LastErrorWasTransient();
    db.Rollback();
    if (!transient || steady_clock::now() > deadline) return attempt;
    // Back off with jitter so competing writers do not retry in lock-step.
    std::this_thread::sleep_for(std::chrono::milliseconds(
        backoff_ms + static_cast<int>(jitter() % static_cast<unsigned>(backoff_ms))));
    backoff_ms = std::min(backoff_ms * 2, 200);
  }
}

}  // namespace frugal::ledger

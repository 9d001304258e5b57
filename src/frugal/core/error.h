#pragma once
// Errors as values. Every expected failure in frugal is an Error carried in a Result<T>;
// the ErrorCode of the error that reaches main becomes the process exit code.

#include <string>
#include <tl/expected.hpp>
#include <utility>

namespace frugal {

/// Exit codes of the CLI; each error's code maps onto one of them.
enum class ErrorCode : int {
  kFailed = 1,         ///< the work itself failed
  kBadInput = 2,       ///< bad input or usage; the message names file:line:column where it can
  kBudget = 3,         ///< a budget was exhausted or a start was refused against it
  kUnavailable = 4,    ///< an external system (database, cluster, endpoint) is unavailable
  kPreempted = 75,     ///< preempted; an outer scheduler should requeue the job (EX_TEMPFAIL)
  kInterrupted = 130,  ///< interrupted by the user
};

/// An expected failure: a code and a message meant for the user.
struct Error {
  ErrorCode code = ErrorCode::kFailed;
  std::string message;

  /// The exit code a process ending with this error returns.
  [[nodiscard]] int ExitCode() const { return static_cast<int>(code); }

  /// Returns a copy whose message is prefixed with `context: `.
  [[nodiscard]] Error Wrap(const std::string& context) const {
    return Error{code, context + ": " + message};
  }
};

template <typename T>
using Result = tl::expected<T, Error>;

/// A failed Result of any type: `return Fail(ErrorCode::kBadInput, "...")`.
inline tl::unexpected<Error> Fail(ErrorCode code, std::string message) {
  return tl::unexpected<Error>(Error{code, std::move(message)});
}
inline tl::unexpected<Error> Fail(Error error) { return tl::unexpected<Error>(std::move(error)); }

/// Aborts with file and line when a programmer's assumption does not hold.
[[noreturn]] void CheckFailed(const char* condition, const char* file, int line);

}  // namespace frugal

namespace frugal::detail {
template <typename T>
T TakeValue(tl::expected<T, Error>&& result) {
  return std::move(*result);
}
inline void TakeValue(tl::expected<void, Error>&& /*result*/) {}
}  // namespace frugal::detail

/// Evaluates a Result-returning expression; returns its error from the enclosing function,
/// otherwise yields the value (nothing for Result<void>). Uses a GNU statement expression,
/// which g++ and clang both accept.
#define FRUGAL_TRY(expr)                                                               \
  __extension__({                                                                      \
    auto frugal_try_result_ = (expr);                                                  \
    if (!frugal_try_result_) {                                                         \
      return ::tl::unexpected<::frugal::Error>(std::move(frugal_try_result_).error()); \
    }                                                                                  \
    ::frugal::detail::TakeValue(std::move(frugal_try_result_));                        \
  })

#define FRUGAL_CHECK(cond)                                         \
  do {                                                             \
    if (!(cond)) ::frugal::CheckFailed(#cond, __FILE__, __LINE__); \
  } while (false)

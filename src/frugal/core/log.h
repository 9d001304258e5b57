#pragma once
// Diagnostics on stderr, filtered by a process-wide verbosity (-q / -v).

#include <fmt/format.h>

#include <string_view>

namespace frugal::log {

enum class Level { kDebug, kInfo, kWarning, kError };

/// Messages below this level are dropped. Default kInfo; -q sets kWarning, -v kDebug.
void SetLevel(Level level);
Level GetLevel();

/// Writes "frugal: <level>: message" to stderr when `level` passes the filter.
void Write(Level level, std::string_view message);

template <typename... Args>
void Debug(fmt::format_string<Args...> f, Args&&... args) {
  if (GetLevel() <= Level::kDebug)
    Write(Level::kDebug, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Info(fmt::format_string<Args...> f, Args&&... args) {
  if (GetLevel() <= Level::kInfo) Write(Level::kInfo, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Warning(fmt::format_string<Args...> f, Args&&... args) {
  Write(Level::kWarning, fmt::format(f, std::forward<Args>(args)...));
}
template <typename... Args>
void Error(fmt::format_string<Args...> f, Args&&... args) {
  Write(Level::kError, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace frugal::log

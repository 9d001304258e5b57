#include "frugal/core/log.h"

#include <atomic>
#include <cstdio>
#include <string>

namespace frugal::log {
namespace {
std::atomic<Level> g_level{Level::kInfo};
}  // namespace

void SetLevel(Level level) { g_level.store(level); }
Level GetLevel() { return g_level.load(); }

void Write(Level level, std::string_view message) {
  if (level < g_level.load()) return;
  const char* tag = "";
  switch (level) {
    case Level::kDebug:
      tag = "debug: ";
      break;
    case Level::kInfo:
      tag = "";
      break;
    case Level::kWarning:
      tag = "warning: ";
      break;
    case Level::kError:
      tag = "error: ";
      break;
  }
  // One fprintf per line so concurrent writers do not interleave within a line.
  std::string line = fmt::format("frugal: {}{}\n", tag, message);
  std::fputs(line.c_str(), stderr);
}

}  // namespace frugal::log

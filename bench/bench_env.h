#pragma once
// What the benchmark programs read from the environment: sizes, and where scratch files go.

#include <cstdint>
#include <cstdlib>
#include <filesystem>

namespace frugal::bench {

/// The integer in environment variable `name`, else `fallback` (sizes such as FRUGAL_BENCH_RUNS).
inline int64_t EnvCount(const char* name, int64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::atoll(v) : fallback;
}

/// Where a benchmark writes its databases: FRUGAL_BENCH_DIR, else the working directory.
inline std::filesystem::path BenchDir() {
  const char* v = std::getenv("FRUGAL_BENCH_DIR");
  return v != nullptr ? std::filesystem::path(v) : std::filesystem::current_path();
}

}  // namespace frugal::bench

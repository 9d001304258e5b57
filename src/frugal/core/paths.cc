#include "frugal/core/paths.h"

#include <cstdlib>

namespace frugal {
namespace {

std::filesystem::path FromEnv(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::filesystem::path(value)
                                            : std::filesystem::path();
}

std::filesystem::path Home() {
  auto home = FromEnv("HOME");
  return home.empty() ? std::filesystem::path("/tmp") : home;
}

}  // namespace

std::filesystem::path UserDataDir() {
  if (auto root = FromEnv("FRUGAL_HOME"); !root.empty()) return root / "data";
  if (auto xdg = FromEnv("XDG_DATA_HOME"); !xdg.empty()) return xdg / "frugal";
  return Home() / ".local" / "share" / "frugal";
}

std::filesystem::path UserConfigDir() {
  if (auto root = FromEnv("FRUGAL_HOME"); !root.empty()) return root / "config";
  if (auto xdg = FromEnv("XDG_CONFIG_HOME"); !xdg.empty()) return xdg / "frugal";
  return Home() / ".config" / "frugal";
}

std::filesystem::path UserCacheDir() {
  if (auto root = FromEnv("FRUGAL_HOME"); !root.empty()) return root / "cache";
  if (auto xdg = FromEnv("XDG_CACHE_HOME"); !xdg.empty()) return xdg / "frugal";
  return Home() / ".cache" / "frugal";
}

std::filesystem::path ShippedDataDir() {
  if (auto dir = FromEnv("FRUGAL_DATA_DIR"); !dir.empty()) return dir;
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "share" / "frugal" / "data";
    if (std::filesystem::exists(installed / "catalog", ec)) return installed;
  }
  return std::filesystem::path(FRUGAL_SOURCE_DATA_DIR);
}

}  // namespace frugal

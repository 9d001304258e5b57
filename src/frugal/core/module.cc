#include "frugal/core/module.h"

#include <dlfcn.h>
#include <fmt/format.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <mutex>
#include <system_error>

namespace frugal {
namespace {

std::string LoaderReason() {
  const char* why = ::dlerror();
  return why != nullptr ? why : "unknown reason";
}

/// Opens `file` once per process (a second caller gets the same handle or the same failure).
Result<void*> OpenOnce(const std::string& file, const std::function<Error(std::string)>& fail) {
  static std::mutex mu;
  static std::map<std::string, Result<void*>> opened;
  const std::lock_guard lock(mu);
  if (auto found = opened.find(file); found != opened.end()) return found->second;
  void* handle = ::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL);
  Result<void*> result = handle;
  if (handle == nullptr) result = tl::unexpected<Error>(fail(LoaderReason()));
  opened.emplace(file, result);
  return result;
}

}  // namespace

std::filesystem::path ModuleDir() {
  if (const char* dir = std::getenv("FRUGAL_MODULE_DIR"); dir != nullptr && *dir != '\0') {
    return dir;
  }
  std::error_code ec;
  const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const auto installed = exe.parent_path().parent_path() / "lib" / "frugal";
    if (std::filesystem::is_directory(installed, ec)) return installed;
  }
  return std::filesystem::path(FRUGAL_BUILD_MODULE_DIR);
}

Result<void*> ModuleEntry(std::string_view name, std::string_view entry) {
  const std::string file = (ModuleDir() / (std::string(name) + ".so")).string();
  void* module = FRUGAL_TRY(OpenOnce(file, [&](const std::string& why) {
    return Error{ErrorCode::kBadInput,
                 fmt::format("frugal's module {} cannot be loaded from {}: {} (reinstall frugal, "
                             "or point FRUGAL_MODULE_DIR at the folder that holds it)",
                             name, file, why)};
  }));
  return LibrarySymbol(module, file, entry);
}

Result<void*> SystemLibrary(std::string_view soname, std::string_view package) {
  return OpenOnce(std::string(soname), [&](const std::string& why) {
    return Error{ErrorCode::kBadInput,
                 fmt::format("{} cannot be loaded: {} (install the Debian package {})", soname, why,
                             package)};
  });
}

Result<void*> LibrarySymbol(void* library, std::string_view library_name, std::string_view symbol) {
  ::dlerror();
  void* address = ::dlsym(library, std::string(symbol).c_str());
  if (address == nullptr) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{} lacks {}: {}", library_name, symbol, LoaderReason()));
  }
  return address;
}

}  // namespace frugal

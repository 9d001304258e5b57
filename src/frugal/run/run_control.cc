#include "frugal/run/run_control.h"

#include <signal.h>

#include <cerrno>
#include <cstring>

#include "frugal/core/file_lock.h"
#include "frugal/core/paths.h"

namespace frugal::run {

std::filesystem::path DefaultRunDir(const std::string& name) {
  return UserDataDir() / "runs" / name;
}

Result<int> InterruptSupervisor(const std::filesystem::path& run_dir, const std::string& name) {
  const std::optional<int> pid = FileLock::Holder(run_dir / "supervisor.lock");
  if (!pid) {
    return Fail(ErrorCode::kBadInput, "no supervisor of run '" + name +
                                          "' is running on this host (it has ended, or runs "
                                          "elsewhere)");
  }
  if (::kill(*pid, SIGINT) != 0) {
    return Fail(ErrorCode::kFailed, "cannot signal the supervisor of run '" + name + "' (pid " +
                                        std::to_string(*pid) + "): " + std::strerror(errno));
  }
  return *pid;
}

}  // namespace frugal::run

#pragma once
// An exclusive lock on a file, so that two frugal processes never drive the same run or study
// at once. It is an advisory flock(2): the kernel drops it when the holder exits or is killed,
// so a crashed holder never leaves a stale lock behind. It holds between processes on one
// host (and on local filesystems), not across machines.

#include <filesystem>
#include <optional>
#include <string>

#include "frugal/core/error.h"

namespace frugal {

class FileLock {
 public:
  /// Takes the lock on `path` (created, with its folder, if missing) without waiting, and
  /// writes this process's id into it. kBadInput naming `what` and the holder's process id
  /// when another process holds it; kFailed when the file cannot be created.
  [[nodiscard]] static Result<FileLock> Acquire(const std::filesystem::path& path,
                                                const std::string& what);

  /// The process holding the lock on `path` (the id it wrote), or nullopt when nobody holds
  /// it or the file is missing. Probes with a shared lock taken and dropped at once, so the
  /// answer cannot name a dead holder whose pid was reused.
  [[nodiscard]] static std::optional<int> Holder(const std::filesystem::path& path);

  FileLock(FileLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  FileLock& operator=(FileLock&& other) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

}  // namespace frugal

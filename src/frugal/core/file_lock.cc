#include "frugal/core/file_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "frugal/core/text.h"

namespace frugal {

namespace {

/// The process id the holder wrote, or "" when it cannot be read.
std::string HolderOf(int fd) {
  char buffer[32] = {};
  const ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  return n > 0 ? std::string(Trim(std::string_view(buffer, static_cast<size_t>(n))))
               : std::string();
}

}  // namespace

Result<FileLock> FileLock::Acquire(const std::filesystem::path& path, const std::string& what) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) {
    if (ec.value() == ENOSPC || ec.value() == EDQUOT) {
      return Fail(ErrorCode::kFailed, "cannot create " + path.parent_path().string() +
                                          ": disk full (" + ec.message() + ")");
    }
    // An unwritable data directory (FRUGAL_HOME) is the usual cause: name it, not the lock.
    return Fail(ErrorCode::kFailed, "cannot create " + path.parent_path().string() + ": " +
                                        ec.message() + " (is FRUGAL_HOME writable?)");
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 && (errno == ENOSPC || errno == EDQUOT)) {
    return Fail(ErrorCode::kFailed, "cannot create the lock " + path.string() + ": disk full (" +
                                        std::strerror(errno) + ")");
  }
  if (fd < 0) {
    return Fail(ErrorCode::kFailed,
                "cannot create the lock " + path.string() + ": " + std::strerror(errno));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int error = errno;
    const std::string holder = HolderOf(fd);
    ::close(fd);
    if (error == EWOULDBLOCK) {
      return Fail(ErrorCode::kBadInput,
                  what + " is in use by another frugal process" +
                      (holder.empty() ? std::string() : " (pid " + holder + ")") +
                      ": wait for it to end, or stop it first (lock " + path.string() + ")");
    }
    return Fail(ErrorCode::kFailed, "cannot lock " + path.string() + ": " + std::strerror(error));
  }
  // Who holds it, for the message another process gets; the lock holds without the note.
  const std::string pid = std::to_string(::getpid()) + "\n";
  const bool noted = ::ftruncate(fd, 0) == 0 &&
                     ::pwrite(fd, pid.data(), pid.size(), 0) == static_cast<ssize_t>(pid.size());
  static_cast<void>(noted);
  return FileLock(fd);
}

std::optional<int> FileLock::Holder(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::optional<int> holder;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK) {
      const Result<int64_t> pid = ParseInt(HolderOf(fd));
      if (pid && *pid > 0 && *pid <= std::numeric_limits<int>::max()) {
        holder = static_cast<int>(*pid);
      }
    }
  }
  ::close(fd);  // drops the probe's shared lock, if it got one
  return holder;
}

FileLock& FileLock::operator=(FileLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace frugal

#include "frugal/core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "frugal/core/file_head.h"

namespace frugal {
namespace {

Error IoError(const std::filesystem::path& path, const char* what) {
  return Error{ErrorCode::kFailed,
               fmt::format("{}: {}: {}", path.string(), what, std::strerror(errno))};
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  temp_path_ = path_;
  temp_path_ += fmt::format(".tmp.{}", ::getpid());
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !direct_) {
    std::error_code ignored;
    std::filesystem::remove(temp_path_, ignored);
  }
}

Result<void> AtomicFile::Write(std::string_view bytes) {
  if (fd_ < 0) {
    // Found now rather than when the rename fails after all the bytes are written. (A file
    // that does not exist yet is no directory: that check's error is not a failure.)
    std::error_code not_found;
    if (std::filesystem::is_directory(path_, not_found)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: is a directory, expected a file to write", path_.string()));
    }
    const std::filesystem::file_status status = std::filesystem::status(path_, not_found);
    if (std::filesystem::is_block_file(status) || std::filesystem::is_socket(status)) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("{}: a block device or socket, expected a file to write", path_.string()));
    }
    if (std::filesystem::is_fifo(status) || std::filesystem::is_character_file(status)) {
      return OpenDirect(bytes);
    }
    std::error_code ec;
    if (path_.has_parent_path()) std::filesystem::create_directories(path_.parent_path(), ec);
    if (ec) {
      return Fail(ErrorCode::kFailed, fmt::format("{}: cannot create directory: {}",
                                                  path_.parent_path().string(), ec.message()));
    }
    fd_ = ::open(temp_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return Fail(IoError(temp_path_, "cannot create"));
  }
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd_, bytes.data(), bytes.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return Fail(IoError(direct_ ? path_ : temp_path_, "write failed"));
    }
    bytes.remove_prefix(static_cast<size_t>(n));
  }
  return {};
}

Result<void> AtomicFile::OpenDirect(std::string_view bytes) {
  // Renaming a temporary over a pipe or a device would replace the node itself (as root,
  // /dev/null), so the bytes go straight to it. Non-blocking open: a pipe with no reader is
  // an error at once, not a wait; writes then block as usual.
  fd_ = ::open(path_.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd_ < 0) return Fail(IoError(path_, "cannot open for writing"));
  const int flags = ::fcntl(fd_, F_GETFL);
  if (flags < 0 || ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    return Fail(IoError(path_, "cannot set blocking writes"));
  }
  direct_ = true;
  return Write(bytes);
}

Result<void> AtomicFile::Commit() {
  FRUGAL_CHECK(!committed_);
  if (fd_ < 0) FRUGAL_TRY(Write(""));
  if (direct_) {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) return Fail(IoError(path_, "close failed"));
    committed_ = true;
    return {};
  }
  if (::fsync(fd_) != 0) return Fail(IoError(temp_path_, "fsync failed"));
  if (::close(fd_) != 0) {
    fd_ = -1;
    return Fail(IoError(temp_path_, "close failed"));
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    return Fail(IoError(path_, "rename failed"));
  }
  committed_ = true;
  const auto dir = path_.has_parent_path() ? path_.parent_path() : std::filesystem::path(".");
  return SyncDirectory(dir);
}

Result<void> WriteFileAtomically(const std::filesystem::path& path, std::string_view contents) {
  AtomicFile file(path);
  FRUGAL_TRY(file.Write(contents));
  return file.Commit();
}

namespace {

/// How long a pipe may keep its reader waiting for the next byte, and how much it may send: a
/// named pipe whose writer never writes (or never stops) must not hold a command forever.
constexpr int kPipeIdleMillis = 10'000;
constexpr size_t kMaxPipeBytes = size_t{64} << 20;

/// Closes a descriptor on every path out of ReadFile.
struct FdCloser {
  int fd;
  ~FdCloser() { ::close(fd); }
};

/// Up to `max_bytes` of a regular file, from its start.
Result<std::string> ReadRegular(int fd, const std::filesystem::path& path, size_t max_bytes) {
  std::string out;
  char buffer[1 << 16];
  while (out.size() < max_bytes) {
    const ssize_t n = ::read(fd, buffer, std::min(sizeof buffer, max_bytes - out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: read failed: {}", path.string(), std::strerror(errno)));
    }
    if (n == 0) return out;
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

/// A pipe (a shell's <(...), a named pipe) is read while its writer sends; one with nothing
/// written to it (no writer at all: `mkfifo f; frugal plan f`), one idle past kPipeIdleMillis
/// and one past kMaxPipeBytes are refused, naming it.
Result<std::string> ReadPipe(int fd, const std::filesystem::path& path) {
  std::string out;
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      out.append(buffer, static_cast<size_t>(n));
      if (out.size() > kMaxPipeBytes) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{}: a pipe that sent more than {} MiB, expected a file",
                                path.string(), kMaxPipeBytes >> 20));
      }
      continue;
    }
    if (n == 0) {
      if (out.empty()) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("{}: not a regular file (a pipe with nothing written to it), "
                                "expected a file",
                                path.string()));
      }
      return out;
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: read failed: {}", path.string(), std::strerror(errno)));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, kPipeIdleMillis);
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: a pipe that sent nothing for {} s, expected a file",
                              path.string(), kPipeIdleMillis / 1000));
    }
    if (ready < 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: read failed: {}", path.string(), std::strerror(errno)));
    }
  }
}

}  // namespace

Result<std::string> ReadFile(const std::filesystem::path& path) {
  return ReadFileHead(path, std::numeric_limits<size_t>::max());
}

Result<std::string> ReadFileHead(const std::filesystem::path& path, size_t max_bytes) {
  // The system reads a name up to its first NUL: "/etc/passwd\0.yaml" would open /etc/passwd.
  if (path.native().find('\0') != std::string::npos) {
    const std::string shown = path.native().substr(0, path.native().find('\0'));
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}\\0...: not a path (it holds a NUL byte)", shown));
  }
  // A device (/dev/zero) may never end, and opening one can itself act (a terminal, a tape):
  // refused before it is opened. The rest is opened without blocking and judged again by fstat
  // before a byte is read: a plain open of a named pipe waits for a writer that may never come.
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 &&
      (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) || S_ISSOCK(st.st_mode))) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}: not a regular file (a device or socket), expected a file", path.string()));
  }
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  const FdCloser closer{fd};
  if (::fstat(fd, &st) != 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: cannot read: {}", path.string(), std::strerror(errno)));
  }
  if (S_ISDIR(st.st_mode)) {
    // Read, a directory gives nothing, which would surface later as a misleading "empty
    // document".
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: is a directory, expected a file", path.string()));
  }
  if (S_ISFIFO(st.st_mode)) return ReadPipe(fd, path);
  if (!S_ISREG(st.st_mode)) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}: not a regular file (a device or socket), expected a file", path.string()));
  }
  return ReadRegular(fd, path, max_bytes);
}

Result<void> SyncDirectory(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return Fail(IoError(dir, "cannot open directory"));
  const int rc = ::fsync(fd);
  ::close(fd);
  if (rc != 0) return Fail(IoError(dir, "fsync failed"));
  return {};
}

}  // namespace frugal

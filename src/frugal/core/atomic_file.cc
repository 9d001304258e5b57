#include "frugal/core/atomic_file.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

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

Result<std::string> ReadFile(const std::filesystem::path& path) {
  // An ifstream opens a directory without complaint and then reads nothing, which would surface
  // later as a misleading "empty document".
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: is a directory, expected a file", path.string()));
  }
  // A device (/dev/zero, /dev/urandom) may never end: reading it whole would hang and grow
  // memory without bound. A pipe is read (a shell's <(...) names one).
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && (std::filesystem::is_character_file(status) ||
              std::filesystem::is_block_file(status) || std::filesystem::is_socket(status))) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}: not a regular file (a device or socket), expected a file", path.string()));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) return Fail(ErrorCode::kBadInput, fmt::format("{}: read failed", path.string()));
  return buffer.str();
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

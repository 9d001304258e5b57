#pragma once
// Durable writes: write to a temporary file beside the target, fsync, rename over the target,
// fsync the directory. A file that was not committed does not exist; an abandoned AtomicFile
// removes its temporary.

#include <filesystem>
#include <string>
#include <string_view>

#include "frugal/core/error.h"

namespace frugal {

class AtomicFile {
 public:
  /// Prepares to replace `path`. Nothing touches the disk until Open/Write.
  explicit AtomicFile(std::filesystem::path path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  /// Appends bytes to the temporary file (created on first write, with parent directories).
  /// kFailed on an I/O error (e.g. disk full), naming the path. A target that is a pipe or a
  /// character device (`-o /dev/stdout`) is written through, never replaced; a pipe with no
  /// reader is kFailed; a block device or socket is kBadInput.
  [[nodiscard]] Result<void> Write(std::string_view bytes);

  /// fsyncs, renames over the target and fsyncs the directory. After a failure the target is
  /// untouched and the temporary removed.
  [[nodiscard]] Result<void> Commit();

  const std::filesystem::path& path() const { return path_; }

 private:
  /// Opens the pipe or device at path_ itself and writes `bytes` to it.
  Result<void> OpenDirect(std::string_view bytes);

  std::filesystem::path path_;
  std::filesystem::path temp_path_;
  int fd_ = -1;
  bool committed_ = false;
  bool direct_ = false;  ///< the target is a pipe or character device: written through
};

/// Writes `contents` to `path` atomically (AtomicFile in one call).
[[nodiscard]] Result<void> WriteFileAtomically(const std::filesystem::path& path,
                                               std::string_view contents);

/// Reads a whole file. kBadInput when it does not exist, is a directory, a device or a socket,
/// or cannot be read, naming it.
[[nodiscard]] Result<std::string> ReadFile(const std::filesystem::path& path);

/// fsyncs a directory so a rename or create inside it is durable.
[[nodiscard]] Result<void> SyncDirectory(const std::filesystem::path& dir);

}  // namespace frugal

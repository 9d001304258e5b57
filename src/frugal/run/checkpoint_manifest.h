#pragma once
// A checkpoint's manifest: every file's relative path, size and SHA-256, written by the
// supervisor beside the files when it commits the checkpoint. A committed checkpoint verifies
// when every listed file exists with that size and checksum.
//
// On-disk format (MANIFEST_NAME inside the checkpoint directory), JSON, version 1:
//   {"format":"frugal-checkpoint","version":1,"seq":7,"step":120,
//    "kind":"dir"|"file","name":"step-120","created_unix_ms":..., "total_bytes":...,
//    "files":[{"path":"model.pt","bytes":1048576,"sha256":"<64 hex>"}]}
// kind "file": the child reported a single file, stored as <checkpoint dir>/<name>.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::run {

inline constexpr const char* kManifestName = ".frugal-manifest.json";
inline constexpr int kManifestVersion = 1;

struct ManifestFile {
  std::string path;  ///< relative to the checkpoint directory, '/'-separated
  uint64_t bytes = 0;
  std::string sha256;  ///< lowercase hex
};

enum class CheckpointKind { kDirectory, kFile };

struct Manifest {
  int64_t seq = 0;
  int64_t step = 0;
  CheckpointKind kind = CheckpointKind::kDirectory;
  std::string name;  ///< what the child called it
  int64_t created_unix_ms = 0;
  std::vector<ManifestFile> files;

  [[nodiscard]] uint64_t TotalBytes() const;
  [[nodiscard]] std::string ToJson() const;
  /// kBadInput naming `origin` when the text is not a version-1 manifest.
  [[nodiscard]] static Result<Manifest> Parse(std::string_view text, const std::string& origin);
};

/// SHA-256 of a file as lowercase hex; also fsyncs it (so what was hashed is durable).
/// kFailed naming the file on an I/O error.
[[nodiscard]] Result<std::string> HashAndSyncFile(const std::filesystem::path& path,
                                                  uint64_t* bytes);

/// Lists and hashes every regular file under `dir` (sorted, manifest excluded). Symbolic links
/// and other special files are refused (kFailed), as they could point outside the checkpoint.
[[nodiscard]] Result<std::vector<ManifestFile>> HashDirectory(const std::filesystem::path& dir);

/// Checks the checkpoint at `dir` against its manifest. kFailed with the first problem found
/// ("model.pt: size 10 bytes, manifest says 20").
[[nodiscard]] Result<Manifest> VerifyCheckpoint(const std::filesystem::path& dir);

}  // namespace frugal::run

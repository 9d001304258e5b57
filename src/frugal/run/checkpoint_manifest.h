#pragma once
// A checkpoint's manifest: every file's relative path, size and checksum, written by the
// supervisor beside the files when it commits the checkpoint. A committed checkpoint verifies
// when every listed file exists with that size and checksum.
//
// On-disk format (MANIFEST_NAME inside the checkpoint directory), JSON, version 2:
//   {"format":"frugal-checkpoint","version":2,"seq":7,"step":120,
//    "kind":"dir"|"file","name":"step-120","created_unix_ms":..., "total_bytes":...,
//    "checksum":"xxh128",
//    "files":[{"path":"model.pt","bytes":1048576,"xxh128":"<32 hex>"}]}
// kind "file": the child reported a single file, stored as <checkpoint dir>/<name>.
// The checksum guards against torn or corrupted files (integrity, not an adversary): XXH3's
// 128-bit hash, as canonical (big-endian) lowercase hex, computed at memory speed.
// Version 1 (still read, never written) is the same without "checksum", each file carrying
// "sha256":"<64 hex>" instead of "xxh128".

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::run {

inline constexpr const char* kManifestName = ".frugal-manifest.json";
/// The version written; versions 1 (SHA-256) and 2 (XXH128) are read.
inline constexpr int kManifestVersion = 2;

/// How a manifest's files are checksummed.
enum class Checksum { kSha256, kXxh128 };

struct ManifestFile {
  std::string path;  ///< relative to the checkpoint directory, '/'-separated
  uint64_t bytes = 0;
  std::string digest;  ///< lowercase hex of the manifest's checksum
};

enum class CheckpointKind { kDirectory, kFile };

struct Manifest {
  int64_t seq = 0;
  int64_t step = 0;
  CheckpointKind kind = CheckpointKind::kDirectory;
  std::string name;  ///< what the child called it
  int64_t created_unix_ms = 0;
  Checksum checksum = Checksum::kXxh128;
  std::vector<ManifestFile> files;

  [[nodiscard]] uint64_t TotalBytes() const;
  /// The manifest as version 2 (XXH128) or, for a SHA-256 one, version 1.
  [[nodiscard]] std::string ToJson() const;
  /// kBadInput naming `origin` when the text is not a version-1 or version-2 manifest.
  [[nodiscard]] static Result<Manifest> Parse(std::string_view text, const std::string& origin);
};

/// The checksum of a file as lowercase hex; also fsyncs it (so what was hashed is durable).
/// kFailed naming the file on an I/O error.
[[nodiscard]] Result<std::string> HashAndSyncFile(const std::filesystem::path& path,
                                                  Checksum checksum, uint64_t* bytes);

/// Lists every regular file under `dir` (sorted, manifest excluded), checksums it with XXH128
/// and makes it durable: a flusher thread fsyncs the files while this thread reads and hashes
/// them from the page cache, so the commit costs about the disk's write-back, not write-back
/// plus hashing. Symbolic links and other special files are refused (kFailed), as they could
/// point outside the checkpoint. Directories are not synced here (see SyncCheckpointTree).
[[nodiscard]] Result<std::vector<ManifestFile>> HashDirectory(const std::filesystem::path& dir);

/// Writes `manifest` into `dir` and makes it and every directory of the checkpoint durable
/// (the manifest fsynced, then each directory under `dir` and `dir` itself). No temporary: the
/// checkpoint does not exist until its directory is renamed into committed/, so a torn
/// manifest is never seen. kFailed naming the path on an I/O error.
[[nodiscard]] Result<void> WriteManifestDurably(const std::filesystem::path& dir,
                                                const Manifest& manifest);

/// Checks the checkpoint at `dir` against its manifest. kFailed with the first problem found
/// ("model.pt: size 10 bytes, manifest says 20").
[[nodiscard]] Result<Manifest> VerifyCheckpoint(const std::filesystem::path& dir);

}  // namespace frugal::run

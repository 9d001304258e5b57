#pragma once
// The checkpoint store of one run. Layout under its root:
//   staging/             FRUGAL_CHECKPOINT_DIR: the child writes new checkpoints here
//   committed/ckpt-NNNNNN/  committed checkpoints, each with its manifest (checkpoint_manifest.h)
//   committed/.trash-*   checkpoints being garbage-collected (never listed)
// Commit: verify what the child reported, checksum every file while a flusher thread fsyncs
// them, write the manifest (fsync it and the checkpoint's directories), then rename the
// directory from staging/ into committed/ and fsync committed/: one fsync per file plus three. A
// checkpoint that was not committed does not exist: a crash at any point leaves either the previous
// set of committed checkpoints or that set plus the new one.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/run/checkpoint_manifest.h"
#include "frugal/run/report_channel.h"

namespace frugal::run {

struct CommittedCheckpoint {
  std::filesystem::path dir;          ///< committed/ckpt-NNNNNN
  std::filesystem::path resume_path;  ///< what FRUGAL_RESUME_FROM names (dir, or dir/<file>)
  int64_t seq = 0;
  int64_t step = 0;
  uint64_t bytes = 0;
  Duration commit_time{0};  ///< verify + hash + fsync + rename, on commit only
};

class CheckpointStore {
 public:
  /// `keep`: how many committed checkpoints to keep (at least 1; older ones are removed).
  CheckpointStore(std::filesystem::path root, int keep);

  /// Creates the directories and clears leftovers of an interrupted commit or collection
  /// (staging contents, trash). kFailed naming the directory when it cannot.
  [[nodiscard]] Result<void> Prepare();

  std::filesystem::path staging_dir() const { return root_ / "staging"; }
  std::filesystem::path committed_dir() const { return root_ / "committed"; }

  /// Verifies and commits what the child reported, then garbage-collects beyond `keep`.
  /// kFailed with a message for the user when the checkpoint does not exist (a vanished
  /// directory), lies outside the staging directory, has files of other sizes than reported,
  /// or cannot be made durable (a full disk); the committed set is then unchanged.
  [[nodiscard]] Result<CommittedCheckpoint> Commit(const CheckpointReport& report);

  /// The newest committed checkpoint that verifies, or none. Checkpoints that fail to verify
  /// are skipped (each problem appended to `problems`), so resume falls back to the one before.
  [[nodiscard]] std::optional<CommittedCheckpoint> LatestValid(
      std::vector<std::string>* problems) const;

  /// Committed checkpoint directories, oldest first (not verified).
  [[nodiscard]] std::vector<std::filesystem::path> ListCommitted() const;

 private:
  [[nodiscard]] Result<std::filesystem::path> ResolveReported(const std::string& reported) const;
  void CollectGarbage();

  std::filesystem::path root_;
  int keep_;
};

}  // namespace frugal::run

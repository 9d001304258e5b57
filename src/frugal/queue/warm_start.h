#pragma once
// Warm starts: a queued job (`warm_start: RUN_ID`) that begins from another run's newest
// committed checkpoint, as incremental retraining does. The job's own run is given a copy of
// that checkpoint as its first committed one before it starts, so `frugal run` resumes from it
// exactly as it resumes after a preemption (FRUGAL_RESUME_FROM names it), and a job requeued
// later resumes from its own newer checkpoints instead.

#include <filesystem>
#include <string>
#include <string_view>

#include "frugal/core/error.h"
#include "frugal/ledger/sql.h"
#include "frugal/run/checkpoint_store.h"

namespace frugal::queue {

/// Where `frugal run` keeps a run's journal and checkpoints when not told otherwise:
/// <data dir>/runs/RUN_ID.
[[nodiscard]] std::filesystem::path RunDirOf(const std::string& run_id);

struct WarmStart {
  std::string run_id;
  run::CommittedCheckpoint checkpoint;  ///< the newest committed one that verifies
};

/// The newest committed checkpoint of run `run_id` that verifies, under `run_dir`
/// (RunDirOf(run_id) for a run started with the default directory). kBadInput prefixed with
/// `where` ("job.yaml:7:13: field 'warm_start'" or "--warm-start") when no run by that name is
/// in the ledger, or it has no committed checkpoint that verifies.
[[nodiscard]] Result<WarmStart> FindWarmStart(ledger::Connection& db, const std::string& run_id,
                                              const std::filesystem::path& run_dir,
                                              std::string_view where);

/// FindWarmStart without the ledger: the checkpoint on disk only (at launch, the run was
/// checked at submission).
[[nodiscard]] Result<WarmStart> FindWarmStartOnDisk(const std::string& run_id,
                                                    const std::filesystem::path& run_dir,
                                                    std::string_view where);

/// Gives the run at `run_dir` the warm start's checkpoint as its first committed one, unless
/// it has committed checkpoints of its own already (then false, nothing done). Files are hard
/// linked where the filesystem allows (committed checkpoints are never written again), else
/// copied; the copy is verified against its manifest and appears under its final name in one
/// rename, so a crash leaves no half-seeded checkpoint. kFailed naming the path otherwise.
[[nodiscard]] Result<bool> SeedRunDir(const WarmStart& warm, const std::filesystem::path& run_dir);

}  // namespace frugal::queue

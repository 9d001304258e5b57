#include "frugal/queue/warm_start.h"

#include <fmt/format.h>

#include <vector>

#include "frugal/core/paths.h"
#include "frugal/ledger/run_rows.h"
#include "frugal/run/checkpoint_manifest.h"
#include "frugal/run/run_control.h"

namespace frugal::queue {
namespace {

namespace fs = std::filesystem;

/// `frugal run` keeps three committed checkpoints by default; the seeded store keeps them too.
constexpr int kKeep = 3;

}  // namespace

fs::path RunDirOf(const std::string& run_id) { return run::DefaultRunDir(run_id); }

Result<WarmStart> FindWarmStart(ledger::Connection& db, const std::string& run_id,
                                const fs::path& run_dir, std::string_view where) {
  if (!FRUGAL_TRY(ledger::LatestRunNamed(db, run_id))) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("{}: no run named '{}' in the ledger (see 'frugal runs list')", where, run_id));
  }
  return FindWarmStartOnDisk(run_id, run_dir, where);
}

Result<WarmStart> FindWarmStartOnDisk(const std::string& run_id, const fs::path& run_dir,
                                      std::string_view where) {
  std::vector<std::string> problems;
  const run::CheckpointStore store(run_dir / "checkpoints", kKeep);
  const std::optional<run::CommittedCheckpoint> latest = store.LatestValid(&problems);
  if (!latest) {
    std::string detail = problems.empty() ? "" : " (" + problems.front() + ")";
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: run '{}' has no committed checkpoint to start from in {}{}", where,
                            run_id, store.committed_dir().string(), detail));
  }
  return WarmStart{run_id, *latest};
}

Result<bool> SeedRunDir(const WarmStart& warm, const fs::path& run_dir) {
  run::CheckpointStore store(run_dir / "checkpoints", kKeep);
  FRUGAL_TRY(store.Prepare());
  if (!store.ListCommitted().empty()) return false;
  // A dot name is never listed as committed, and Prepare() clears it after a crash.
  const fs::path tmp = store.committed_dir() / ".warm-start";
  const fs::path target = store.committed_dir() / warm.checkpoint.dir.filename();
  std::error_code ec;
  fs::remove_all(tmp, ec);
  fs::copy(warm.checkpoint.dir, tmp,
           fs::copy_options::recursive | fs::copy_options::create_hard_links, ec);
  if (ec) {
    fs::remove_all(tmp, ec);
    ec.clear();
    fs::copy(warm.checkpoint.dir, tmp, fs::copy_options::recursive, ec);
  }
  if (ec) {
    return Fail(ErrorCode::kFailed,
                fmt::format("warm start: cannot copy {} to {}: {}", warm.checkpoint.dir.string(),
                            tmp.string(), ec.message()));
  }
  if (Result<run::Manifest> m = run::VerifyCheckpoint(tmp); !m) {
    fs::remove_all(tmp, ec);
    return Fail(ErrorCode::kFailed, "warm start: the copy does not verify: " + m.error().message);
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    return Fail(ErrorCode::kFailed, fmt::format("warm start: cannot move {} to {}: {}",
                                                tmp.string(), target.string(), ec.message()));
  }
  return true;
}

}  // namespace frugal::queue

#include "frugal/run/checkpoint_store.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "frugal/core/atomic_file.h"
#include "frugal/core/log.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
constexpr std::string_view kPrefix = "ckpt-";

std::optional<int64_t> SeqOf(const fs::path& dir) {
  const std::string name = dir.filename().string();
  if (name.rfind(kPrefix, 0) != 0) return std::nullopt;
  try {
    return std::stoll(name.substr(kPrefix.size()));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

/// Renames and fsyncs the target's directory. The source's directory is not synced: should
/// a crash bring its old entry back, it is in staging/, which Prepare() clears.
Result<void> RenameDurably(const fs::path& from, const fs::path& to) {
  if (std::rename(from.c_str(), to.c_str()) != 0) {
    return Fail(ErrorCode::kFailed, fmt::format("cannot move {} to {}: {}", from.string(),
                                                to.string(), std::strerror(errno)));
  }
  return SyncDirectory(to.parent_path());
}

// A reported checkpoint is a single file or a directory (no link, no device).
Result<CheckpointKind> KindOfReported(const fs::path& source) {
  std::error_code ec;
  if (fs::is_regular_file(fs::symlink_status(source, ec))) return CheckpointKind::kFile;
  if (fs::is_directory(fs::symlink_status(source, ec))) return CheckpointKind::kDirectory;
  return Fail(
      ErrorCode::kFailed,
      fmt::format("reported checkpoint {} is neither a file nor a directory", source.string()));
}

// The directory to commit: a single file is wrapped in a directory of its own under `staging`
// so both kinds commit the same way.
Result<fs::path> WrapInDirectory(const fs::path& source, CheckpointKind kind,
                                 const fs::path& staging) {
  if (kind != CheckpointKind::kFile) return source;
  const fs::path dir = staging / fmt::format(".wrap-{}", source.filename().string());
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || std::rename(source.c_str(), (dir / source.filename()).c_str()) != 0) {
    return Fail(ErrorCode::kFailed, fmt::format("cannot stage checkpoint {}", source.string()));
  }
  return dir;
}

// Every file the child reported is in the manifest with the size it reported.
Result<void> CheckReportedSizes(const Manifest& manifest, const CheckpointReport& report,
                                const fs::path& source) {
  if (!report.files) return {};
  const bool is_file = manifest.kind == CheckpointKind::kFile;
  for (const auto& reported : *report.files) {
    // Named copies of the pair's parts: a lambda cannot capture a structured binding in clang 14.
    const std::string& name = reported.first;
    const uint64_t bytes = reported.second;
    const auto it =
        std::find_if(manifest.files.begin(), manifest.files.end(), [&](const ManifestFile& f) {
          return f.path == name || (is_file && f.path == source.filename().string());
        });
    if (it == manifest.files.end()) {
      return Fail(ErrorCode::kFailed, fmt::format("checkpoint {}: reported file '{}' is missing",
                                                  source.string(), name));
    }
    if (it->bytes != bytes) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("checkpoint {}: '{}' has {} bytes, the child reported {}",
                              source.string(), name, it->bytes, bytes));
    }
  }
  return {};
}

// One past the highest sequence number committed (1 for the first).
int64_t NextSeq(const std::vector<fs::path>& committed) {
  int64_t seq = 1;
  for (const fs::path& existing : committed) seq = std::max(seq, SeqOf(existing).value_or(0) + 1);
  return seq;
}

}  // namespace

CheckpointStore::CheckpointStore(fs::path root, int keep)
    : root_(std::move(root)), keep_(std::max(keep, 1)) {}

Result<void> CheckpointStore::Prepare() {
  std::error_code ec;
  for (const fs::path& dir : {staging_dir(), committed_dir()}) {
    fs::create_directories(dir, ec);
    if (ec)
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: cannot create: {}", dir.string(), ec.message()));
  }
  // Whatever is in staging was never committed: a new segment starts clean.
  for (const auto& entry : fs::directory_iterator(staging_dir(), ec))
    fs::remove_all(entry.path(), ec);
  for (const auto& entry : fs::directory_iterator(committed_dir(), ec)) {
    if (entry.path().filename().string().rfind('.', 0) == 0) fs::remove_all(entry.path(), ec);
  }
  return {};
}

Result<fs::path> CheckpointStore::ResolveReported(const std::string& reported) const {
  std::error_code ec;
  const fs::path staging = fs::weakly_canonical(staging_dir(), ec);
  fs::path p = fs::path(reported).is_absolute() ? fs::path(reported) : staging_dir() / reported;
  if (!fs::exists(staging_dir(), ec)) {
    return Fail(ErrorCode::kFailed,
                fmt::format("checkpoint directory {} vanished; checkpoint '{}' is lost",
                            staging_dir().string(), reported));
  }
  if (!fs::exists(fs::symlink_status(p, ec))) {
    return Fail(ErrorCode::kFailed,
                fmt::format("reported checkpoint {} does not exist", p.string()));
  }
  p = fs::weakly_canonical(p, ec);
  const fs::path rel = p.lexically_relative(staging);
  if (rel.empty() || *rel.begin() == ".." || rel == ".") {
    return Fail(ErrorCode::kFailed, fmt::format("reported checkpoint {} is not inside {}",
                                                p.string(), staging_dir().string()));
  }
  // Commit the top-level entry under staging that contains what was reported.
  return staging / *rel.begin();
}

Result<CommittedCheckpoint> CheckpointStore::Commit(const CheckpointReport& report) {
  const auto started = std::chrono::steady_clock::now();
  const fs::path source = FRUGAL_TRY(ResolveReported(report.path));
  const CheckpointKind kind = FRUGAL_TRY(KindOfReported(source));
  const bool is_file = kind == CheckpointKind::kFile;
  const fs::path dir = FRUGAL_TRY(WrapInDirectory(source, kind, staging_dir()));
  Manifest manifest;
  manifest.step = report.step;
  manifest.kind = kind;
  manifest.name = source.filename().string();
  manifest.created_unix_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                 std::chrono::system_clock::now().time_since_epoch())
                                 .count();
  manifest.files = FRUGAL_TRY(HashDirectory(dir));
  if (manifest.files.empty()) {
    return Fail(ErrorCode::kFailed,
                fmt::format("reported checkpoint {} is empty", source.string()));
  }
  FRUGAL_TRY(CheckReportedSizes(manifest, report, source));
  const int64_t seq = NextSeq(ListCommitted());
  manifest.seq = seq;
  FRUGAL_TRY(WriteManifestDurably(dir, manifest));
  const fs::path target = committed_dir() / fmt::format("{}{:06}", kPrefix, seq);
  FRUGAL_TRY(RenameDurably(dir, target));

  CommittedCheckpoint committed;
  committed.dir = target;
  committed.resume_path = is_file ? target / manifest.name : target;
  committed.seq = seq;
  committed.step = report.step;
  committed.bytes = manifest.TotalBytes();
  committed.commit_time =
      std::chrono::duration_cast<Duration>(std::chrono::steady_clock::now() - started);
  CollectGarbage();
  return committed;
}

std::vector<fs::path> CheckpointStore::ListCommitted() const {
  std::vector<std::pair<int64_t, fs::path>> found;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(committed_dir(), ec)) {
    if (auto seq = SeqOf(entry.path())) found.emplace_back(*seq, entry.path());
  }
  std::sort(found.begin(), found.end());
  std::vector<fs::path> out;
  out.reserve(found.size());
  for (auto& [seq, path] : found) out.push_back(std::move(path));
  return out;
}

std::optional<CommittedCheckpoint> CheckpointStore::LatestValid(
    std::vector<std::string>* problems) const {
  const std::vector<fs::path> all = ListCommitted();
  for (auto it = all.rbegin(); it != all.rend(); ++it) {
    Result<Manifest> m = VerifyCheckpoint(*it);
    if (!m) {
      if (problems != nullptr) problems->push_back(m.error().message);
      continue;
    }
    CommittedCheckpoint c;
    c.dir = *it;
    c.resume_path = m->kind == CheckpointKind::kFile ? *it / m->name : *it;
    c.seq = m->seq;
    c.step = m->step;
    c.bytes = m->TotalBytes();
    return c;
  }
  return std::nullopt;
}

void CheckpointStore::CollectGarbage() {
  const std::vector<fs::path> all = ListCommitted();
  if (all.size() <= static_cast<size_t>(keep_)) return;
  for (size_t i = 0; i + static_cast<size_t>(keep_) < all.size(); ++i) {
    // Rename first so a half-removed checkpoint is never listed as committed.
    const fs::path trash = committed_dir() / (".trash-" + all[i].filename().string());
    std::error_code ec;
    if (std::rename(all[i].c_str(), trash.c_str()) != 0) {
      log::Warning("cannot remove old checkpoint {}: {}", all[i].string(), std::strerror(errno));
      continue;
    }
    fs::remove_all(trash, ec);
  }
}

}  // namespace frugal::run

// Checkpoint commit cost: committing a 1 GiB checkpoint (verify sizes, XXH128 of every byte
// while the files are flushed, manifest, directory rename) against the durable floor (the
// same files, written the same way, made durable with nothing else: fsync each, rename the
// directory, fsync its new parent) and the disk's plain write speed (write 1 GiB and fsync it). The
// child's own write is not timed in the commit case: it writes the way a training script does (no
// fsync), and the commit makes it durable.
//
// The directory is $FRUGAL_BENCH_DIR, else the system temp directory: point it at the disk
// checkpoints will live on.

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/run/checkpoint_store.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kCheckpointBytes = uint64_t{1} << 30;
constexpr int kFiles = 4;  // model, optimizer, two shards: 256 MiB each
constexpr size_t kBlock = size_t{4} << 20;

fs::path BenchDir(const char* name) {
  const char* env = std::getenv("FRUGAL_BENCH_DIR");
  fs::path dir =
      (env != nullptr && *env != '\0' ? fs::path(env) : fs::temp_directory_path()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

enum class Sync { kNone, kFsync };

/// Writes `bytes` of non-constant data to `path` (so nothing compresses or dedups it).
void WriteFile(const fs::path& path, uint64_t bytes, Sync sync) {
  std::vector<unsigned char> block(kBlock);
  for (size_t i = 0; i < block.size(); ++i)
    block[i] = static_cast<unsigned char>((i * 2654435761u) >> 13);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) std::abort();
  for (uint64_t done = 0; done < bytes; done += kBlock) {
    block[0] = static_cast<unsigned char>(done >> 22);  // every block differs
    if (::write(fd, block.data(), block.size()) != static_cast<ssize_t>(block.size())) std::abort();
  }
  if (sync == Sync::kFsync && ::fsync(fd) != 0) std::abort();
  ::close(fd);
}

void SetBytes(benchmark::State& state) {
  state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                          static_cast<int64_t>(kCheckpointBytes));
}

/// The disk's plain write speed: 1 GiB in four files, each fsync'ed.
void BM_PlainWrite1GiB(benchmark::State& state) {
  const fs::path dir = BenchDir("frugal-bench-plain");
  for (auto _ : state) {
    for (int f = 0; f < kFiles; ++f)
      WriteFile(dir / ("part" + std::to_string(f)), kCheckpointBytes / kFiles, Sync::kFsync);
    state.PauseTiming();
    fs::remove_all(dir);
    fs::create_directories(dir);
    ::sync();
    state.ResumeTiming();
  }
  SetBytes(state);
  fs::remove_all(dir);
}
BENCHMARK(BM_PlainWrite1GiB)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The child writes 1 GiB without fsync (untimed); the supervisor commits it (timed).
void BM_CheckpointCommit1GiB(benchmark::State& state) {
  const fs::path dir = BenchDir("frugal-bench-commit");
  CheckpointStore store(dir, 1);
  if (!store.Prepare()) std::abort();
  int64_t step = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const std::string name = "ckpt-" + std::to_string(++step);
    fs::create_directories(store.staging_dir() / name);
    for (int f = 0; f < kFiles; ++f) {
      WriteFile(store.staging_dir() / name / ("part" + std::to_string(f)),
                kCheckpointBytes / kFiles, Sync::kNone);
    }
    CheckpointReport report;
    report.path = name;
    report.step = step;
    state.ResumeTiming();
    Result<CommittedCheckpoint> committed = store.Commit(report);
    if (!committed) {
      state.SkipWithError(committed.error().message.c_str());
      break;
    }
    state.PauseTiming();
    ::sync();  // the previous checkpoint's garbage collection must not leak into the next
    state.ResumeTiming();
  }
  SetBytes(state);
  fs::remove_all(dir);
}
BENCHMARK(BM_CheckpointCommit1GiB)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The floor a commit cannot go below: the child's 1 GiB (untimed, no fsync) made durable and
/// moved into place: fsync every file, rename the directory, fsync the new parent.
void BM_DurableFloor1GiB(benchmark::State& state) {
  const fs::path dir = BenchDir("frugal-bench-floor");
  int64_t step = 0;
  for (auto _ : state) {
    state.PauseTiming();
    const fs::path staged = dir / ("staged-" + std::to_string(++step));
    fs::create_directories(staged);
    fs::create_directories(dir / "committed");
    std::vector<fs::path> files;
    for (int f = 0; f < kFiles; ++f) {
      files.push_back(staged / ("part" + std::to_string(f)));
      WriteFile(files.back(), kCheckpointBytes / kFiles, Sync::kNone);
    }
    state.ResumeTiming();
    for (const fs::path& file : files) {
      const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
      if (fd < 0 || ::fsync(fd) != 0) std::abort();
      ::close(fd);
    }
    const fs::path target = dir / "committed" / staged.filename();
    if (std::rename(staged.c_str(), target.c_str()) != 0) std::abort();
    const int parent = ::open((dir / "committed").c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (parent < 0 || ::fsync(parent) != 0) std::abort();
    ::close(parent);
    state.PauseTiming();
    fs::remove_all(target);
    ::sync();
    state.ResumeTiming();
  }
  SetBytes(state);
  fs::remove_all(dir);
}
BENCHMARK(BM_DurableFloor1GiB)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

/// What the child's 1 GiB write without fsync costs (the part the commit leaves to the child).
void BM_ChildWriteNoSync1GiB(benchmark::State& state) {
  const fs::path dir = BenchDir("frugal-bench-child");
  for (auto _ : state) {
    for (int f = 0; f < kFiles; ++f)
      WriteFile(dir / ("part" + std::to_string(f)), kCheckpointBytes / kFiles, Sync::kNone);
    state.PauseTiming();
    ::sync();
    fs::remove_all(dir);
    fs::create_directories(dir);
    state.ResumeTiming();
  }
  SetBytes(state);
  fs::remove_all(dir);
}
BENCHMARK(BM_ChildWriteNoSync1GiB)->Iterations(3)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace frugal::run

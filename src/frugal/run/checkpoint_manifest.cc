#include "frugal/run/checkpoint_manifest.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <unistd.h>
// Inlined: the checksum costs no shared object at start-up.
#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <thread>

#include "frugal/core/atomic_file.h"
#include "frugal/run/run_text.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct FdCloser {
  int fd;
  ~FdCloser() {
    if (fd >= 0) ::close(fd);
  }
};

struct DigestFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

std::string Hex(const unsigned char* data, unsigned size) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(size * 2);
  for (unsigned i = 0; i < size; ++i) {
    out.push_back(kDigits[data[i] >> 4]);
    out.push_back(kDigits[data[i] & 0xf]);
  }
  return out;
}

const char* KeyOf(Checksum checksum) { return checksum == Checksum::kSha256 ? "sha256" : "xxh128"; }

/// Feeds every byte of an open file to `update`; kFailed naming `path` on a read error.
template <typename Update>
Result<uint64_t> ReadAll(int fd, const fs::path& path, Update update) {
  // A buffer that stays in the L2 cache: the bytes are hashed while still hot.
  std::vector<char> buffer(size_t{256} << 10);
  uint64_t total = 0;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: read failed: {}", path.string(), std::strerror(errno)));
    }
    if (n == 0) break;
    update(buffer.data(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  return total;
}

Result<std::string> Sha256Of(int fd, const fs::path& path, uint64_t* bytes) {
  std::unique_ptr<EVP_MD_CTX, DigestFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Fail(ErrorCode::kFailed, "cannot initialise SHA-256");
  }
  *bytes = FRUGAL_TRY(
      ReadAll(fd, path, [&](const char* data, size_t n) { EVP_DigestUpdate(ctx.get(), data, n); }));
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &size);
  return Hex(digest, size);
}

struct XxhFree {
  void operator()(XXH3_state_t* state) const { XXH3_freeState(state); }
};

Result<std::string> Xxh128Of(int fd, const fs::path& path, uint64_t* bytes) {
  std::unique_ptr<XXH3_state_t, XxhFree> state(XXH3_createState());
  if (!state || XXH3_128bits_reset(state.get()) == XXH_ERROR) {
    return Fail(ErrorCode::kFailed, "cannot initialise XXH128");
  }
  *bytes = FRUGAL_TRY(ReadAll(
      fd, path, [&](const char* data, size_t n) { XXH3_128bits_update(state.get(), data, n); }));
  XXH128_canonical_t canonical;
  XXH128_canonicalFromHash(&canonical, XXH3_128bits_digest(state.get()));
  return Hex(canonical.digest, sizeof(canonical.digest));
}

Result<std::string> HashOpenFile(int fd, const fs::path& path, Checksum checksum, uint64_t* bytes) {
  return checksum == Checksum::kSha256 ? Sha256Of(fd, path, bytes) : Xxh128Of(fd, path, bytes);
}

Result<int> OpenForReading(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  return fd;
}

Result<void> SyncFd(int fd, const fs::path& path) {
  if (::fsync(fd) != 0 && errno != EINVAL) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: fsync failed: {}", path.string(), std::strerror(errno)));
  }
  return {};
}

/// The regular files under `dir`, sorted by relative path, manifest excluded (`digest` empty).
Result<std::vector<ManifestFile>> ListFiles(const fs::path& dir) {
  std::vector<ManifestFile> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(dir, ec);
  if (ec)
    return Fail(ErrorCode::kFailed, fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const fs::directory_entry& entry = *it;
    // The manifest is JSON, which holds UTF-8 text only: a name that is not cannot be listed
    // in it (nor restored from it), so the checkpoint is refused rather than half-described.
    if (!IsUtf8(entry.path().lexically_relative(dir).generic_string())) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: the file name is not UTF-8 text, which a checkpoint manifest "
                              "cannot hold; rename it",
                              EscapeNonUtf8(entry.path().string())));
    }
    if (entry.is_symlink()) {
      return Fail(
          ErrorCode::kFailed,
          fmt::format("{}: symbolic links are not allowed in a checkpoint", entry.path().string()));
    }
    if (entry.is_directory()) continue;
    if (!entry.is_regular_file()) {
      return Fail(ErrorCode::kFailed, fmt::format("{}: not a regular file", entry.path().string()));
    }
    const std::string rel = entry.path().lexically_relative(dir).generic_string();
    if (rel == kManifestName) continue;
    files.push_back({rel, 0, ""});
  }
  if (ec)
    return Fail(ErrorCode::kFailed, fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
}

/// fsyncs each file in order; the first failure is kept and the rest still flushed.
Result<void> FlushFiles(const std::vector<fs::path>& paths) {
  Result<void> first = {};
  for (const fs::path& path : paths) {
    Result<int> fd = OpenForReading(path);
    Result<void> synced = fd ? SyncFd(*fd, path) : Result<void>(tl::unexpected(fd.error()));
    if (fd) ::close(*fd);
    if (!synced && first) first = synced;
  }
  return first;
}

}  // namespace

uint64_t Manifest::TotalBytes() const {
  uint64_t total = 0;
  for (const ManifestFile& f : files) total += f.bytes;
  return total;
}

std::string Manifest::ToJson() const {
  const char* key = KeyOf(checksum);
  json files_json = json::array();
  for (const ManifestFile& f : files) {
    files_json.push_back({{"path", f.path}, {"bytes", f.bytes}, {key, f.digest}});
  }
  json doc = {{"format", "frugal-checkpoint"},
              {"version", checksum == Checksum::kSha256 ? 1 : kManifestVersion},
              {"seq", seq},
              {"step", step},
              {"kind", kind == CheckpointKind::kFile ? "file" : "dir"},
              {"name", name},
              {"created_unix_ms", created_unix_ms},
              {"total_bytes", TotalBytes()}};
  if (checksum != Checksum::kSha256) doc["checksum"] = key;
  doc["files"] = std::move(files_json);
  return doc.dump(1) + "\n";
}

Result<Manifest> Manifest::Parse(std::string_view text, const std::string& origin) {
  const json doc = json::parse(text, nullptr, false);
  auto bad = [&](const std::string& why) {
    return Fail(ErrorCode::kBadInput, origin + ": " + why);
  };
  if (doc.is_discarded() || !doc.is_object()) return bad("not a JSON object");
  try {
    if (doc.at("format").get<std::string>() != "frugal-checkpoint")
      return bad("not a frugal manifest");
    const json& version = doc.at("version");
    if (version != 1 && version != 2) {
      return bad(fmt::format("manifest version {} is not 1 or 2", version.dump()));
    }
    Manifest m;
    m.checksum = version == 1 ? Checksum::kSha256 : Checksum::kXxh128;
    if (version == 2 && doc.at("checksum").get<std::string>() != "xxh128") {
      return bad(fmt::format("unknown checksum {} (xxh128 expected)", doc.at("checksum").dump()));
    }
    m.seq = doc.at("seq").get<int64_t>();
    m.step = doc.at("step").get<int64_t>();
    m.kind = doc.at("kind").get<std::string>() == "file" ? CheckpointKind::kFile
                                                         : CheckpointKind::kDirectory;
    m.name = doc.at("name").get<std::string>();
    m.created_unix_ms = doc.at("created_unix_ms").get<int64_t>();
    const char* key = KeyOf(m.checksum);
    for (const json& f : doc.at("files")) {
      m.files.push_back({f.at("path").get<std::string>(), f.at("bytes").get<uint64_t>(),
                         f.at(key).get<std::string>()});
    }
    return m;
  } catch (const json::exception& e) {
    return bad(std::string("malformed manifest: ") + e.what());
  }
}

Result<std::string> HashAndSyncFile(const fs::path& path, Checksum checksum, uint64_t* bytes) {
  const int fd = FRUGAL_TRY(OpenForReading(path));
  FdCloser closer{fd};
  uint64_t total = 0;
  std::string digest = FRUGAL_TRY(HashOpenFile(fd, path, checksum, &total));
  // The child may not have synced; a committed checkpoint must survive a power cut.
  FRUGAL_TRY(SyncFd(fd, path));
  if (bytes != nullptr) *bytes = total;
  return digest;
}

Result<std::vector<ManifestFile>> HashDirectory(const fs::path& dir) {
  std::vector<ManifestFile> files = FRUGAL_TRY(ListFiles(dir));
  // The write-back of what the child wrote is the commit's floor; hashing the same bytes
  // from the page cache meanwhile hides the hashing behind it.
  std::vector<fs::path> paths;
  for (const ManifestFile& f : files) paths.push_back(dir / f.path);
  Result<void> flushed = {};
  std::thread flusher([&paths, &flushed] {
    pthread_setname_np(pthread_self(), "ckpt-flush");
    flushed = FlushFiles(paths);
  });
  Result<void> hashed = {};
  for (ManifestFile& f : files) {
    const fs::path path = dir / f.path;
    Result<int> fd = OpenForReading(path);
    if (!fd) {
      hashed = tl::unexpected(fd.error());
      break;
    }
    FdCloser closer{*fd};
    Result<std::string> digest = HashOpenFile(*fd, path, Checksum::kXxh128, &f.bytes);
    if (!digest) {
      hashed = tl::unexpected(digest.error());
      break;
    }
    f.digest = std::move(*digest);
  }
  flusher.join();
  FRUGAL_TRY(hashed);
  FRUGAL_TRY(flushed);
  return files;
}

Result<void> WriteManifestDurably(const fs::path& dir, const Manifest& manifest) {
  const fs::path path = dir / kManifestName;
  const std::string text = manifest.ToJson();
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: cannot create: {}", path.string(), std::strerror(errno)));
  }
  FdCloser closer{fd};
  for (size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: write failed: {}", path.string(), std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  FRUGAL_TRY(SyncFd(fd, path));
  // Each file's name lives in its directory: those must be durable before the commit rename.
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it->is_directory() && !it->is_symlink()) FRUGAL_TRY(SyncDirectory(it->path()));
  }
  if (ec)
    return Fail(ErrorCode::kFailed, fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  return SyncDirectory(dir);
}

Result<Manifest> VerifyCheckpoint(const fs::path& dir) {
  const fs::path manifest_path = dir / kManifestName;
  Result<std::string> text = ReadFile(manifest_path);
  if (!text) return Fail(ErrorCode::kFailed, fmt::format("{}: no manifest", dir.string()));
  Result<Manifest> manifest = Manifest::Parse(*text, manifest_path.string());
  if (!manifest) return Fail(ErrorCode::kFailed, manifest.error().message);
  for (const ManifestFile& f : manifest->files) {
    const fs::path p = dir / f.path;
    std::error_code ec;
    const uint64_t size = fs::file_size(p, ec);
    if (ec) return Fail(ErrorCode::kFailed, fmt::format("{}: missing", p.string()));
    if (size != f.bytes) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: size {} bytes, manifest says {}", p.string(), size, f.bytes));
    }
    uint64_t bytes = 0;
    const std::string digest = FRUGAL_TRY(HashAndSyncFile(p, manifest->checksum, &bytes));
    if (digest != f.digest)
      return Fail(ErrorCode::kFailed, fmt::format("{}: checksum mismatch", p.string()));
  }
  return manifest;
}

}  // namespace frugal::run

#include "frugal/run/checkpoint_manifest.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>

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

}  // namespace

uint64_t Manifest::TotalBytes() const {
  uint64_t total = 0;
  for (const ManifestFile& f : files) total += f.bytes;
  return total;
}

std::string Manifest::ToJson() const {
  json files_json = json::array();
  for (const ManifestFile& f : files) {
    files_json.push_back({{"path", f.path}, {"bytes", f.bytes}, {"sha256", f.sha256}});
  }
  json doc = {{"format", "frugal-checkpoint"},
              {"version", kManifestVersion},
              {"seq", seq},
              {"step", step},
              {"kind", kind == CheckpointKind::kFile ? "file" : "dir"},
              {"name", name},
              {"created_unix_ms", created_unix_ms},
              {"total_bytes", TotalBytes()},
              {"files", files_json}};
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
    if (doc.at("version").get<int>() != kManifestVersion) {
      return bad(
          fmt::format("manifest version {} is not {}", doc.at("version").dump(), kManifestVersion));
    }
    Manifest m;
    m.seq = doc.at("seq").get<int64_t>();
    m.step = doc.at("step").get<int64_t>();
    m.kind = doc.at("kind").get<std::string>() == "file" ? CheckpointKind::kFile
                                                         : CheckpointKind::kDirectory;
    m.name = doc.at("name").get<std::string>();
    m.created_unix_ms = doc.at("created_unix_ms").get<int64_t>();
    for (const json& f : doc.at("files")) {
      m.files.push_back({f.at("path").get<std::string>(), f.at("bytes").get<uint64_t>(),
                         f.at("sha256").get<std::string>()});
    }
    return m;
  } catch (const json::exception& e) {
    return bad(std::string("malformed manifest: ") + e.what());
  }
}

Result<std::string> HashAndSyncFile(const fs::path& path, uint64_t* bytes) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  FdCloser closer{fd};
  std::unique_ptr<EVP_MD_CTX, DigestFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1) {
    return Fail(ErrorCode::kFailed, "cannot initialise SHA-256");
  }
  std::vector<char> buffer(1 << 20);
  uint64_t total = 0;
  while (true) {
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return Fail(ErrorCode::kFailed,
                  fmt::format("{}: read failed: {}", path.string(), std::strerror(errno)));
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<size_t>(n));
    total += static_cast<uint64_t>(n);
  }
  // The child may not have synced; a committed checkpoint must survive a power cut.
  if (::fsync(fd) != 0 && errno != EINVAL) {
    return Fail(ErrorCode::kFailed,
                fmt::format("{}: fsync failed: {}", path.string(), std::strerror(errno)));
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned size = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &size);
  if (bytes != nullptr) *bytes = total;
  return Hex(digest, size);
}

Result<std::vector<ManifestFile>> HashDirectory(const fs::path& dir) {
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
    ManifestFile f;
    f.path = rel;
    f.sha256 = FRUGAL_TRY(HashAndSyncFile(entry.path(), &f.bytes));
    files.push_back(std::move(f));
  }
  if (ec)
    return Fail(ErrorCode::kFailed, fmt::format("{}: cannot list: {}", dir.string(), ec.message()));
  std::sort(files.begin(), files.end(),
            [](const auto& a, const auto& b) { return a.path < b.path; });
  return files;
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
    const std::string sha = FRUGAL_TRY(HashAndSyncFile(p, &bytes));
    if (sha != f.sha256)
      return Fail(ErrorCode::kFailed, fmt::format("{}: checksum mismatch", p.string()));
  }
  return manifest;
}

}  // namespace frugal::run

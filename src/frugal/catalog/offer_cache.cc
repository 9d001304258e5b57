#include "frugal/catalog/offer_cache.h"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <system_error>
#include <type_traits>
#include <unordered_map>
#include <utility>

#include "frugal/catalog/offer_table.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/log.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace frugal::catalog {
namespace fs = std::filesystem;
namespace {

constexpr std::string_view kMagic = "FRUGALOC";
// Cache files kept per directory: the tables in use (shipped, imported, a test's data) and the
// ones just replaced.
constexpr size_t kKeptCaches = 4;
// magic, version, 0, content hash (2 x u64), body size, body checksum.
constexpr size_t kHeaderSize = 8 + 4 + 4 + 16 + 8 + 8;

XXH128_hash_t ContentHash(std::string_view text) { return XXH3_128bits(text.data(), text.size()); }

template <typename T>
void Put(std::string& out, T value) {
  static_assert(std::is_trivially_copyable_v<T>);
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

// Reads fixed-size values and strings from a byte range; any read past its end fails the
// whole decode (ok() false) and returns zeros.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}
  template <typename T>
  T Get() {
    T value{};
    if (!ok_ || bytes_.size() - pos_ < sizeof(T)) {
      ok_ = false;
      return value;
    }
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string_view Bytes(size_t n) {
    if (!ok_ || bytes_.size() - pos_ < n) {
      ok_ = false;
      return {};
    }
    const std::string_view s = bytes_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  [[nodiscard]] bool ok() const { return ok_; }
  [[nodiscard]] bool done() const { return pos_ == bytes_.size(); }

 private:
  std::string_view bytes_;
  size_t pos_ = 0;
  bool ok_ = true;
};

// The body: the distinct strings once, then the offers as numbers into them.
std::string EncodeBody(const std::vector<Offer>& offers) {
  std::vector<std::string_view> strings;
  std::unordered_map<std::string_view, uint32_t> numbers;
  const auto number = [&](const std::string& s) {
    const auto [it, fresh] = numbers.emplace(s, static_cast<uint32_t>(strings.size()));
    if (fresh) strings.push_back(s);
    return it->second;
  };
  std::string rows;
  for (const Offer& o : offers) {
    for (const std::string* s : {&o.cloud, &o.instance_type, &o.region, &o.zone, &o.gpu})
      Put<uint32_t>(rows, number(*s));
    Put<int32_t>(rows, o.gpu_count);
    Put<double>(rows, o.gpu_fraction);
    Put<double>(rows, o.vcpus);
    Put<double>(rows, o.ram_gib);
    Put<uint8_t>(rows, static_cast<uint8_t>(o.tier));
    Put<int64_t>(rows, o.price.per_hour.micros());
  }
  std::string body;
  Put<uint32_t>(body, static_cast<uint32_t>(strings.size()));
  for (const std::string_view s : strings) {
    Put<uint32_t>(body, static_cast<uint32_t>(s.size()));
    body.append(s);
  }
  Put<uint32_t>(body, static_cast<uint32_t>(offers.size()));
  body += rows;
  return body;
}

// The offers of a body whose checksum matched; nullopt when a value is out of range, so that a
// cache written by a different program is never taken for rows.
std::optional<std::vector<Offer>> DecodeBody(std::string_view body, OfferSource source) {
  Reader in(body);
  const auto string_count = in.Get<uint32_t>();
  if (string_count > body.size()) return std::nullopt;
  std::vector<std::string_view> strings;
  strings.reserve(string_count);
  for (uint32_t i = 0; i < string_count && in.ok(); ++i)
    strings.push_back(in.Bytes(in.Get<uint32_t>()));
  const auto offer_count = in.Get<uint32_t>();
  if (!in.ok() || offer_count > body.size()) return std::nullopt;
  std::vector<Offer> offers(offer_count);
  for (Offer& o : offers) {
    for (std::string* s : {&o.cloud, &o.instance_type, &o.region, &o.zone, &o.gpu}) {
      const auto n = in.Get<uint32_t>();
      if (n >= strings.size()) return std::nullopt;
      s->assign(strings[n]);
    }
    o.gpu_count = in.Get<int32_t>();
    o.gpu_fraction = in.Get<double>();
    o.vcpus = in.Get<double>();
    o.ram_gib = in.Get<double>();
    const auto tier = in.Get<uint8_t>();
    const auto micros = in.Get<int64_t>();
    // The ranges ReadOfferTable accepts: a cache of other rows is not a cache of this table.
    if (!in.ok() || o.gpu_count < 0 || !(o.gpu_fraction > 0 && o.gpu_fraction <= 1) ||
        !(o.vcpus >= 0) || !(o.ram_gib >= 0) || !std::isfinite(o.vcpus) ||
        !std::isfinite(o.ram_gib) || tier > static_cast<uint8_t>(CapacityTier::kReserved3y) ||
        micros <= 0)
      return std::nullopt;
    o.tier = static_cast<CapacityTier>(tier);
    o.price = Rate{Money::FromMicros(micros)};
    o.source = source;
  }
  if (!in.ok() || !in.done()) return std::nullopt;
  return offers;
}

// Removes all but the newest kKeptCaches cache files in `dir`, `written` (just written) always
// kept: one file per table content seen, so a catalog updated every day does not leave a file a
// day behind.
void PruneOldCaches(const fs::path& dir, const fs::path& written) {
  std::error_code ec;
  std::vector<std::pair<fs::file_time_type, fs::path>> others;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with("offers-") || !name.ends_with(".bin") || entry.path() == written)
      continue;
    if (auto when = entry.last_write_time(ec); !ec) others.emplace_back(when, entry.path());
  }
  if (others.size() < kKeptCaches) return;
  std::sort(others.begin(), others.end(), [](const auto& a, const auto& b) { return a > b; });
  for (size_t i = kKeptCaches - 1; i < others.size(); ++i) fs::remove(others[i].second, ec);
}

fs::path CachePathFor(const fs::path& cache_dir, XXH128_hash_t h) {
  return cache_dir / fmt::format("offers-{:016x}{:016x}.bin", h.high64, h.low64);
}

std::optional<std::vector<Offer>> DecodeHashed(std::string_view bytes, XXH128_hash_t h,
                                               OfferSource source) {
  if (bytes.size() < kHeaderSize || !bytes.starts_with(kMagic)) return std::nullopt;
  Reader header(bytes.substr(kMagic.size(), kHeaderSize - kMagic.size()));
  const auto version = header.Get<uint32_t>();
  const auto flags = header.Get<uint32_t>();
  const auto high = header.Get<uint64_t>();
  const auto low = header.Get<uint64_t>();
  const auto body_size = header.Get<uint64_t>();
  const auto checksum = header.Get<uint64_t>();
  if (version != kOfferCacheVersion || flags != 0 || high != h.high64 || low != h.low64)
    return std::nullopt;
  const std::string_view body = bytes.substr(kHeaderSize);
  if (body.size() != body_size || XXH3_64bits(body.data(), body.size()) != checksum)
    return std::nullopt;
  return DecodeBody(body, source);
}

// The key file of a table: where the table is, and its size, modification time and inode when
// its content hashed to the hash it names ("<size> <mtime s> <ns> <dev> <ino> <xxh128 hex>").
// While all five are unchanged the table is taken as unchanged and is not read to be hashed,
// as make and ninja take a file with an unchanged modification time.
fs::path KeyPathFor(const fs::path& cache_dir, const fs::path& csv) {
  std::error_code ec;
  const std::string where = fs::absolute(csv, ec).string();
  return cache_dir / fmt::format("offers-{:016x}.key", XXH3_64bits(where.data(), where.size()));
}

struct TableStat {
  std::string key;            ///< "<size> <mtime s> <ns> <dev> <ino> "
  int64_t modified_secs = 0;  ///< the modification time's seconds
};

std::optional<TableStat> StatTable(const fs::path& csv) {
  struct stat st {};
  if (::stat(csv.c_str(), &st) != 0) return std::nullopt;
  return TableStat{fmt::format("{} {} {} {} {} ", st.st_size, st.st_mtim.tv_sec, st.st_mtim.tv_nsec,
                               st.st_dev, st.st_ino),
                   static_cast<int64_t>(st.st_mtim.tv_sec)};
}

// A key written less than this after the table's last modification is not trusted: the file
// system's clock is coarse, so the table may have been written again within the same tick
// after it was hashed (git's "racily clean" rule). Such a table is hashed again until a key
// written later records it.
constexpr int64_t kRacySeconds = 2;

// The content hash the key file records for a table of this stat, if it records one and was
// written well after the table last changed.
std::optional<XXH128_hash_t> KnownHash(const fs::path& key_path, const TableStat& table) {
  struct stat key_stat {};
  if (::stat(key_path.c_str(), &key_stat) != 0 || !S_ISREG(key_stat.st_mode) ||
      key_stat.st_size > 256 ||
      static_cast<int64_t>(key_stat.st_mtim.tv_sec) < table.modified_secs + kRacySeconds) {
    return std::nullopt;
  }
  const std::string& stat_key = table.key;
  const Result<std::string> text = ReadFile(key_path);
  if (!text || !text->starts_with(stat_key)) return std::nullopt;
  const std::string hex = text->substr(stat_key.size());
  if (hex.size() != 33 || hex.back() != '\n') return std::nullopt;
  XXH128_hash_t h{};
  for (size_t i = 0; i < 32; ++i) {
    const char c = hex[i];
    const int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
    if (v < 0) return std::nullopt;
    uint64_t& half = i < 16 ? h.high64 : h.low64;
    half = (half << 4) | static_cast<uint64_t>(v);
  }
  return h;
}

void WriteKey(const fs::path& key_path, const TableStat& table, XXH128_hash_t h) {
  const std::string text = fmt::format("{}{:016x}{:016x}\n", table.key, h.high64, h.low64);
  if (auto written = WriteFileAtomically(key_path, text); !written) {
    log::Debug("offer cache key not written: {}", written.error().message);
  }
}

}  // namespace

fs::path OfferCachePath(const fs::path& cache_dir, std::string_view csv_text) {
  return CachePathFor(cache_dir, ContentHash(csv_text));
}

std::string EncodeOfferCache(std::string_view csv_text, const std::vector<Offer>& offers) {
  const std::string body = EncodeBody(offers);
  const XXH128_hash_t h = ContentHash(csv_text);
  std::string out(kMagic);
  Put<uint32_t>(out, kOfferCacheVersion);
  Put<uint32_t>(out, 0);
  Put<uint64_t>(out, h.high64);
  Put<uint64_t>(out, h.low64);
  Put<uint64_t>(out, body.size());
  Put<uint64_t>(out, XXH3_64bits(body.data(), body.size()));
  return out + body;
}

std::optional<std::vector<Offer>> DecodeOfferCache(std::string_view bytes,
                                                   std::string_view csv_text, OfferSource source) {
  return DecodeHashed(bytes, ContentHash(csv_text), source);
}

Result<std::vector<Offer>> ReadOfferTableCached(const fs::path& csv, OfferSource source,
                                                const fs::path& cache_dir) {
  // Taken before the table is read: a table changed after it is seen as changed next time.
  const std::optional<TableStat> table = StatTable(csv);
  const fs::path key_path = KeyPathFor(cache_dir, csv);
  if (table) {
    if (const std::optional<XXH128_hash_t> known = KnownHash(key_path, *table)) {
      if (auto bytes = ReadFile(CachePathFor(cache_dir, *known))) {
        if (auto offers = DecodeHashed(*bytes, *known, source)) return std::move(*offers);
      }
    }
  }
  const std::string text = FRUGAL_TRY(ReadFile(csv));
  const XXH128_hash_t hash = ContentHash(text);
  const fs::path cache = CachePathFor(cache_dir, hash);
  std::error_code ec;
  if (fs::is_regular_file(cache, ec)) {
    if (auto bytes = ReadFile(cache)) {
      if (auto offers = DecodeHashed(*bytes, hash, source)) {
        if (table) WriteKey(key_path, *table, hash);
        return std::move(*offers);
      }
    }
    log::Debug("{}: not a valid cache of {}; rebuilding it", cache.string(), csv.string());
  }
  std::vector<Offer> offers = FRUGAL_TRY(ParseOfferTable(text, csv.string(), source));
  // A cache that cannot be written (a read-only home) costs the next command the parse only.
  if (auto written = WriteFileAtomically(cache, EncodeOfferCache(text, offers)); !written) {
    log::Debug("offer cache not written: {}", written.error().message);
  } else {
    PruneOldCaches(cache_dir, cache);
    if (table) WriteKey(key_path, *table, hash);
  }
  return offers;
}

}  // namespace frugal::catalog

#pragma once
// A compact binary copy of an offer table (offers.csv), so a command reads the table's 18,000
// rows in a millisecond or two instead of parsing 1.2 MB of CSV.
//
// The cache is built on first use in a cache directory, one file per table content: its name
// and its header carry the XXH128 of the CSV's bytes, so a changed table (an update, an import,
// an edited file) is a different key and is parsed and cached again. Each file also carries an
// XXH3-64 of its body: a cache that is cut short, damaged or of another format is not read but
// rebuilt from the CSV. Writes are atomic (temp, fsync, rename); a cache directory that cannot
// be written only costs the parse.
//
// Finding the cache without reading the CSV: beside the caches, a key file per table path
// ("offers-<xxh64 of the path>.key") records the table's size, modification time (to the
// nanosecond), device and inode when its content had the hash it names. While all of them are
// unchanged the table is not read at all, as make and ninja trust an unchanged modification
// time; any change (an edit, a copy, a checkout) reads and hashes it again.
//
// Format version 1, native byte order (a cache never leaves the machine that wrote it):
//   "FRUGALOC" | u32 version | u32 0 | XXH128 of the CSV (high, low u64) | u64 body size |
//   u64 XXH3-64 of the body | body
//   body: u32 strings, each u32 length + bytes | u32 offers, each u32 cloud, instance_type,
//   region, zone, gpu (string numbers) | i32 gpu_count | f64 gpu_fraction, vcpus, ram_gib |
//   u8 tier | i64 price in micros per hour

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/catalog/offer.h"
#include "frugal/core/error.h"

namespace frugal::catalog {

inline constexpr unsigned kOfferCacheVersion = 1;

/// Reads the offer table at `csv` as ReadOfferTable does, through the cache in `cache_dir`:
/// the cached rows when a valid cache of this content exists, else the CSV parsed (kBadInput
/// naming file:line:column as ReadOfferTable) and then cached. Rows read either way are equal.
[[nodiscard]] Result<std::vector<Offer>> ReadOfferTableCached(
    const std::filesystem::path& csv, OfferSource source, const std::filesystem::path& cache_dir);

/// The cache file for a table of this content in `cache_dir` ("offers-<xxh128 hex>.bin").
[[nodiscard]] std::filesystem::path OfferCachePath(const std::filesystem::path& cache_dir,
                                                   std::string_view csv_text);

/// The cache's bytes for these rows of a table of this content.
[[nodiscard]] std::string EncodeOfferCache(std::string_view csv_text,
                                           const std::vector<Offer>& offers);
/// The rows in `bytes`, or nullopt when they are not a valid cache of this content (wrong
/// magic, version or content hash, a bad checksum, cut short, a number out of range).
[[nodiscard]] std::optional<std::vector<Offer>> DecodeOfferCache(std::string_view bytes,
                                                                 std::string_view csv_text,
                                                                 OfferSource source);

}  // namespace frugal::catalog

#include "frugal/catalog/offer_cache.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>

#include "frugal/catalog/offer_table.h"
#include "support/test_support.h"

namespace frugal::catalog {
namespace {

namespace fs = std::filesystem;
using frugal::testing::ReadTestFile;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

const char* const kTable =
    "cloud,instance_type,region,zone,gpu,gpu_count,vcpus,ram_gib,tier,price_per_hour,"
    "gpu_fraction\n"
    "aws,p4d.24xlarge,us-east-1,,A100-40GB,8,96,1152,on_demand,32.7726,\n"
    "aws,p4d.24xlarge,us-east-1,use1-az2,A100-40GB,8,96,1152,spot,9.8318,\n"
    "azure,Standard_NV4as_v4,eastus,,MI25,1,4,14,spot,0.034,0.125\n"
    "gcp,n2-standard-8,us-central1,,,0,8,32,on_demand,0.388472,\n";

// Every field the table sets, so two readings can be compared whole.
std::string Rows(const std::vector<Offer>& offers) {
  std::string out;
  for (const Offer& o : offers) {
    out += fmt::format("{}|{}|{}|{:.17g}|{:.17g}|{:.17g}|{}|{}|{}|{}\n", o.Id(), o.gpu, o.gpu_count,
                       o.gpu_fraction, o.vcpus, o.ram_gib, o.price.per_hour.micros(),
                       static_cast<int>(o.source), o.zone, o.instance_type);
  }
  return out;
}

std::vector<Offer> Parsed(const std::string& text, OfferSource source = OfferSource::kShipped) {
  auto offers = ParseOfferTable(text, "offers.csv", source);
  EXPECT_TRUE(offers.has_value()) << offers.error().message;
  return offers.value_or(std::vector<Offer>{});
}

TEST(OfferCache, TheShippedTableReadsBackEqualFromItsCache) {
  const fs::path csv = frugal::testing::SourceDir() / "data" / "catalog" / "offers.csv";
  const std::string text = ReadTestFile(csv);
  const std::vector<Offer> parsed = Parsed(text);
  ASSERT_GT(parsed.size(), 10'000u);
  const auto decoded =
      DecodeOfferCache(EncodeOfferCache(text, parsed), text, OfferSource::kShipped);
  ASSERT_TRUE(decoded.has_value());
  EXPECT_EQ(Rows(*decoded), Rows(parsed));
}

TEST(OfferCache, AValidCacheIsWhatIsReadAndTheFirstReadWritesIt) {
  TempDir dir;
  WriteTestFile(dir / "offers.csv", kTable);
  const fs::path cache_path = OfferCachePath(dir / "cache", kTable);
  auto first = ReadOfferTableCached(dir / "offers.csv", OfferSource::kImported, dir / "cache");
  ASSERT_TRUE(first.has_value()) << first.error().message;
  EXPECT_EQ(Rows(*first), Rows(Parsed(kTable, OfferSource::kImported)));
  ASSERT_TRUE(fs::is_regular_file(cache_path));
  // A cache of this content that says other rows is believed: the rows come from the cache,
  // not from parsing the CSV again.
  std::vector<Offer> other = Parsed(kTable);
  other.resize(1);
  other.front().price = Rate{Money::FromCents(123)};
  WriteTestFile(cache_path, EncodeOfferCache(kTable, other));
  auto second = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(Rows(*second), Rows(other));
}

// The key file finds the cache without reading the table while its size, modification time
// and inode are unchanged; any of them changing reads and hashes it again. A key written
// within seconds of the table's last change is not trusted (the file system's clock is coarse).
TEST(OfferCache, AnUnchangedTableIsNotReadAgainAndAChangedOneIs) {
  TempDir dir;
  const fs::path csv = dir / "offers.csv";
  WriteTestFile(csv, kTable);
  const auto an_hour_ago = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(csv, an_hour_ago);
  ASSERT_TRUE(ReadOfferTableCached(csv, OfferSource::kShipped, dir / "cache"));
  // The same size, written in place, its modification time put back: taken as unchanged, so
  // the rows are the cached ones (the table was not read).
  std::string same_size = kTable;
  same_size.replace(same_size.find("32.7726"), 7, "30.0001");
  WriteTestFile(csv, same_size);
  fs::last_write_time(csv, an_hour_ago);
  auto kept = ReadOfferTableCached(csv, OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(kept.has_value());
  EXPECT_EQ(Rows(*kept), Rows(Parsed(kTable)));
  // A new modification time: read and hashed again.
  fs::last_write_time(csv, an_hour_ago + std::chrono::minutes(1));
  auto fresh = ReadOfferTableCached(csv, OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(Rows(*fresh), Rows(Parsed(same_size)));
  // A table changed just now, within the same tick as its hashing: the key is not trusted and
  // every read hashes the table until it has been still for a while.
  WriteTestFile(csv, kTable);
  ASSERT_TRUE(ReadOfferTableCached(csv, OfferSource::kShipped, dir / "cache"));
  WriteTestFile(csv, same_size);  // same size, and likely the same coarse modification time
  auto racy = ReadOfferTableCached(csv, OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(racy.has_value());
  EXPECT_EQ(Rows(*racy), Rows(Parsed(same_size)));
  // A damaged key file is only a miss.
  fs::last_write_time(csv, an_hour_ago);
  for (const auto& entry : fs::directory_iterator(dir / "cache")) {
    if (entry.path().extension() == ".key") WriteTestFile(entry.path(), "12 x\n");
  }
  auto damaged = ReadOfferTableCached(csv, OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(damaged.has_value());
  EXPECT_EQ(Rows(*damaged), Rows(Parsed(same_size)));
}

TEST(OfferCache, AChangedTableIsParsedAgainAndAStaleCacheUnderItsNameIsRefused) {
  TempDir dir;
  WriteTestFile(dir / "offers.csv", kTable);
  ASSERT_TRUE(ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache"));
  const std::string old_cache = ReadTestFile(OfferCachePath(dir / "cache", kTable));
  ASSERT_FALSE(old_cache.empty());
  // One price changed: a different content hash, so the old cache is not this table's.
  std::string changed = kTable;
  changed.replace(changed.find("32.7726"), 7, "30.0001");
  WriteTestFile(dir / "offers.csv", changed);
  auto fresh = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(fresh.has_value());
  EXPECT_EQ(Rows(*fresh), Rows(Parsed(changed)));
  EXPECT_EQ(fresh->front().price.per_hour, Money::FromMicros(30'000'100));
  // The old table's cache copied under the new name still says the old content: refused.
  WriteTestFile(OfferCachePath(dir / "cache", changed), old_cache);
  auto again = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(Rows(*again), Rows(Parsed(changed)));
  EXPECT_NE(ReadTestFile(OfferCachePath(dir / "cache", changed)), old_cache);
}

TEST(OfferCache, ACorruptOrCutCacheIsRebuiltNeverRead) {
  const std::string good = EncodeOfferCache(kTable, Parsed(kTable));
  std::string flipped = good;
  flipped[flipped.size() - 3] ^= 0x40;  // a price's byte: only the checksum sees it
  std::string bad_header = good;
  bad_header[9] ^= 1;  // the format version
  const std::vector<std::string> damaged = {
      "",      "FRUGALOC", good.substr(0, good.size() - 1), good + "x",
      flipped, bad_header, std::string(good.size(), '\0')};
  for (size_t i = 0; i < damaged.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_FALSE(DecodeOfferCache(damaged[i], kTable, OfferSource::kShipped).has_value());
    TempDir dir;
    WriteTestFile(dir / "offers.csv", kTable);
    WriteTestFile(OfferCachePath(dir / "cache", kTable), damaged[i]);
    auto read = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache");
    ASSERT_TRUE(read.has_value()) << read.error().message;
    EXPECT_EQ(Rows(*read), Rows(Parsed(kTable)));
    // Rebuilt: the next command reads a valid cache.
    EXPECT_EQ(ReadTestFile(OfferCachePath(dir / "cache", kTable)), good);
  }
}

TEST(OfferCache, ACacheThatCannotBeWrittenOnlyCostsTheParse) {
  TempDir dir;
  WriteTestFile(dir / "offers.csv", kTable);
  WriteTestFile(dir / "not-a-dir", "a file where the cache directory would be");
  auto read = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "not-a-dir");
  ASSERT_TRUE(read.has_value()) << read.error().message;
  EXPECT_EQ(Rows(*read), Rows(Parsed(kTable)));
  // A directory where the cache file would be: read from the CSV, no crash.
  fs::create_directories(OfferCachePath(dir / "cache", kTable));
  auto beside = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache");
  ASSERT_TRUE(beside.has_value()) << beside.error().message;
  EXPECT_EQ(Rows(*beside), Rows(Parsed(kTable)));
}

TEST(OfferCache, AMalformedTableIsStillAnErrorNamingTheFieldAndNothingIsCached) {
  TempDir dir;
  std::string bad = kTable;
  bad.replace(bad.find("9.8318"), 6, "cheap!");
  WriteTestFile(dir / "offers.csv", bad);
  auto read = ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache");
  ASSERT_FALSE(read.has_value());
  EXPECT_EQ(read.error().code, ErrorCode::kBadInput);
  EXPECT_NE(read.error().message.find("offers.csv:3:"), std::string::npos) << read.error().message;
  EXPECT_NE(read.error().message.find("price_per_hour"), std::string::npos);
  EXPECT_FALSE(fs::exists(OfferCachePath(dir / "cache", bad)));
}

TEST(OfferCache, OnlyTheNewestCachesAreKept) {
  TempDir dir;
  WriteTestFile(dir / "cache" / "notes.txt", "not a cache: left alone");
  std::string table = kTable;
  for (int i = 0; i < 7; ++i) {
    table += fmt::format("gcp,n2-standard-{},us-east1,,,0,{},{},on_demand,{}.5,\n", 2 * i + 2,
                         2 * i + 2, 8 * i + 8, i + 1);
    WriteTestFile(dir / "offers.csv", table);
    ASSERT_TRUE(ReadOfferTableCached(dir / "offers.csv", OfferSource::kShipped, dir / "cache"));
    EXPECT_TRUE(fs::is_regular_file(OfferCachePath(dir / "cache", table))) << i;
  }
  size_t caches = 0;
  for (const auto& e : fs::directory_iterator(dir / "cache"))
    caches += e.path().extension() == ".bin" ? 1u : 0u;
  EXPECT_EQ(caches, 4u);
  EXPECT_TRUE(fs::exists(dir / "cache" / "notes.txt"));
}

}  // namespace
}  // namespace frugal::catalog

// Measured profiles in the ledger, against SQLite and a real PostgreSQL server.

#include "frugal/ledger/profiles.h"

#include <gtest/gtest.h>

#include <limits>

#include "backends.h"
#include "frugal/ledger/profile_json.h"
#include "frugal/ledger/schema.h"

namespace frugal::ledger::testing {
namespace {

const Timestamp kT0 = FromMillis(1'767'225'600'000);  // 2026-01-01T00:00:00Z

NewProfile MakeProfile(const std::string& name, double steps_per_second, Timestamp time) {
  NewProfile p;
  p.name = name;
  p.time = time;
  p.command = "python3 train.py";
  p.device = "NVIDIA A100-SXM4-80GB";
  p.device_kind = "gpu";
  p.device_count = 1;
  p.wall = std::chrono::seconds(40);
  p.measured = std::chrono::seconds(30);
  p.steps = 300;
  p.steps_per_second = steps_per_second;
  p.tokens_per_second = steps_per_second * 4096;
  p.peak_gpu_memory_bytes = uint64_t{30} << 30;
  p.peak_rss_bytes = uint64_t{5} << 30;
  p.cpu_cores = 1.5;
  p.ended = "steps";
  return p;
}

template <typename B>
class ProfileSuite : public BackendTest<B> {};
TYPED_TEST_SUITE(ProfileSuite, Backends, BackendNames);

TYPED_TEST(ProfileSuite, LatestOfANameIsTheNewestAndRoundTripsEveryField) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  EXPECT_FALSE(LatestProfile(*ledger, "bert").value());
  const ProfileId old_id = RecordProfile(*ledger, MakeProfile("bert", 10, kT0)).value();
  NewProfile cpu = MakeProfile("xgb", 2, kT0 + std::chrono::hours(2));
  cpu.device = "AMD EPYC 7B13";
  cpu.device_kind = "cpu";
  cpu.peak_gpu_memory_bytes.reset();
  cpu.tokens_per_second.reset();
  cpu.samples_per_second = 50000;
  cpu.run_id = 42;
  ASSERT_TRUE(RecordProfile(*ledger, cpu));
  const ProfileId new_id =
      RecordProfile(*ledger, MakeProfile("bert", 12.5, kT0 + std::chrono::hours(1))).value();
  EXPECT_NE(old_id, new_id);

  const auto latest = LatestProfile(*ledger, "bert").value();
  ASSERT_TRUE(latest);
  EXPECT_EQ(latest->id, new_id);
  const NewProfile& r = latest->record;
  EXPECT_EQ(r.time, kT0 + std::chrono::hours(1));
  EXPECT_DOUBLE_EQ(r.steps_per_second, 12.5);
  EXPECT_DOUBLE_EQ(*r.tokens_per_second, 12.5 * 4096);
  EXPECT_FALSE(r.samples_per_second);
  EXPECT_EQ(*r.peak_gpu_memory_bytes, uint64_t{30} << 30);
  EXPECT_EQ(r.peak_rss_bytes, uint64_t{5} << 30);
  EXPECT_EQ(r.wall, std::chrono::seconds(40));
  EXPECT_EQ(r.measured, std::chrono::seconds(30));
  EXPECT_EQ(r.device, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(r.ended, "steps");
  EXPECT_FALSE(r.run_id);

  const auto xgb = LatestProfile(*ledger, "xgb").value();
  ASSERT_TRUE(xgb);
  EXPECT_EQ(xgb->record.device_kind, "cpu");
  EXPECT_FALSE(xgb->record.peak_gpu_memory_bytes);
  EXPECT_EQ(*xgb->record.run_id, 42);
  EXPECT_DOUBLE_EQ(*xgb->record.samples_per_second, 50000);

  const auto all = ListProfiles(*ledger, std::nullopt).value();
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].record.name, "xgb");  // newest first
  EXPECT_EQ(ListProfiles(*ledger, std::string("bert")).value().size(), 2u);
  EXPECT_EQ(GetProfile(*ledger, old_id).value()->record.steps_per_second, 10);
  EXPECT_FALSE(GetProfile(*ledger, 9999).value());
}

TYPED_TEST(ProfileSuite, RefusesAProfileWithoutANameOrARate) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  NewProfile p = MakeProfile("", 1, kT0);
  EXPECT_EQ(RecordProfile(*ledger, p).error().code, ErrorCode::kBadInput);
  p = MakeProfile("x", 0, kT0);
  EXPECT_EQ(RecordProfile(*ledger, p).error().code, ErrorCode::kBadInput);
  p = MakeProfile("x", 1, kT0);
  p.tokens_per_second = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(RecordProfile(*ledger, p).error().code, ErrorCode::kBadInput);
  EXPECT_TRUE(ListProfiles(*ledger, std::nullopt).value().empty());
}

TYPED_TEST(ProfileSuite, ALedgerFromBeforeProfilesGainsTheTable) {
  {
    OpenOptions v6;
    v6.schema_version = 6;
    auto old = this->Open(v6);
    ASSERT_TRUE(old);
    EXPECT_EQ(SchemaVersion(old->connection()).value(), 6);
    EXPECT_FALSE(ListProfiles(*old, std::nullopt));  // no table yet
  }
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  EXPECT_EQ(SchemaVersion(ledger->connection()).value(), kSchemaVersion);
  ASSERT_TRUE(RecordProfile(*ledger, MakeProfile("bert", 3, kT0)));
  EXPECT_EQ(ListProfiles(*ledger, std::nullopt).value().size(), 1u);
}

// `profile show NAME`: the newest of a name, else the profile with that id, else bad input.
TYPED_TEST(ProfileSuite, FindsTheNewestOfANameThenAnIdAndBuildsItsJson) {
  auto ledger = this->Open();
  ASSERT_TRUE(ledger);
  const ProfileId first = RecordProfile(*ledger, MakeProfile("bert", 10, kT0)).value();
  const ProfileId newer =
      RecordProfile(*ledger, MakeProfile("bert", 11, kT0 + std::chrono::hours(1))).value();
  EXPECT_EQ(FindProfile(*ledger, "bert").value().id, newer);
  EXPECT_EQ(FindProfile(*ledger, std::to_string(first)).value().id, first);
  const auto missing = FindProfile(*ledger, "gpt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::kBadInput);
  EXPECT_EQ(missing.error().message, "no profile 'gpt' in the ledger (see 'frugal profile list')");
  EXPECT_FALSE(FindProfile(*ledger, "0"));

  const nlohmann::json j = ProfileJson(FindProfile(*ledger, "bert").value());
  EXPECT_EQ(j["id"], newer);
  EXPECT_EQ(j["name"], "bert");
  EXPECT_EQ(j["time"], "2026-01-01T01:00:00Z");
  EXPECT_EQ(j["device_kind"], "gpu");
  EXPECT_DOUBLE_EQ(j["tokens_per_second"].get<double>(), 11.0 * 4096);
  EXPECT_TRUE(j["samples_per_second"].is_null());
  EXPECT_DOUBLE_EQ(j["measured_seconds"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(j["wall_seconds"].get<double>(), 40.0);
  EXPECT_EQ(j["peak_gpu_memory_bytes"], uint64_t{30} << 30);
  EXPECT_TRUE(j["run_id"].is_null());
  const nlohmann::json list = ProfileListJson(ListProfiles(*ledger, std::nullopt).value());
  ASSERT_EQ(list["profiles"].size(), 2u);
  EXPECT_EQ(list["profiles"][0]["id"], newer);
}

}  // namespace
}  // namespace frugal::ledger::testing

#include "frugal/ledger/profiles.h"

#include <fmt/format.h>

#include <cmath>

#include "frugal/core/text.h"
#include "frugal/ledger/ledger.h"

namespace frugal::ledger {
namespace {

constexpr const char* kProfileColumns =
    "id, name, time_ms, command, device, device_kind, device_count, wall_ms, measured_ms, steps, "
    "steps_per_second, tokens_per_second, samples_per_second, peak_gpu_memory_bytes, "
    "peak_rss_bytes, cpu_cores, ended, run_id";

Profile ProfileFromRow(const Row& r) {
  Profile p;
  p.id = AsInt(r[0]);
  NewProfile& n = p.record;
  n.name = AsText(r[1]);
  n.time = FromMillis(AsInt(r[2]));
  n.command = AsText(r[3]);
  n.device = AsText(r[4]);
  n.device_kind = AsText(r[5]);
  n.device_count = static_cast<int>(AsInt(r[6]));
  n.wall = Duration(AsInt(r[7]));
  n.measured = Duration(AsInt(r[8]));
  n.steps = AsInt(r[9]);
  n.steps_per_second = AsDouble(r[10]);
  n.tokens_per_second = AsOptionalDouble(r[11]);
  n.samples_per_second = AsOptionalDouble(r[12]);
  if (const auto bytes = AsOptionalInt(r[13]))
    n.peak_gpu_memory_bytes = static_cast<uint64_t>(*bytes);
  n.peak_rss_bytes = static_cast<uint64_t>(AsInt(r[14]));
  n.cpu_cores = AsDouble(r[15]);
  n.ended = AsText(r[16]);
  n.run_id = AsOptionalInt(r[17]);
  return p;
}

bool PositiveRate(double rate) { return std::isfinite(rate) && rate > 0; }

Result<void> Validate(const NewProfile& p) {
  if (p.name.empty()) return Fail(ErrorCode::kBadInput, "a profile needs a name");
  if (p.device.empty()) return Fail(ErrorCode::kBadInput, "a profile needs a device");
  if (!PositiveRate(p.steps_per_second) ||
      (p.tokens_per_second && !PositiveRate(*p.tokens_per_second)) ||
      (p.samples_per_second && !PositiveRate(*p.samples_per_second))) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("profile '{}': throughput must be a positive number", p.name));
  }
  return {};
}

Value OptionalBytes(const std::optional<uint64_t>& bytes) {
  if (!bytes) return Value{};
  return Value{static_cast<int64_t>(*bytes)};
}

Result<std::vector<Profile>> Select(Ledger& ledger, const std::string& where,
                                    std::vector<Value> params, const char* tail) {
  std::vector<Profile> out;
  const Result<void> done =
      Transact(ledger.connection(), TxnMode::kRead, [&](Connection& c) -> Result<void> {
        out.clear();
        const std::vector<Row> rows = FRUGAL_TRY(
            c.Query(fmt::format("SELECT {} FROM profiles {} ORDER BY time_ms DESC, id DESC {}",
                                kProfileColumns, where, tail),
                    params));
        for (const Row& r : rows) out.push_back(ProfileFromRow(r));
        return {};
      });
  if (!done) return Fail(done.error());
  return out;
}

}  // namespace

Result<ProfileId> RecordProfile(Ledger& ledger, const NewProfile& p) {
  FRUGAL_TRY(Validate(p));
  ProfileId id = 0;
  const Result<void> done =
      Transact(ledger.connection(), TxnMode::kWrite, [&](Connection& c) -> Result<void> {
        const std::vector<Row> rows = FRUGAL_TRY(c.Query(
            "INSERT INTO profiles (name, time_ms, command, device, device_kind, device_count, "
            "wall_ms, measured_ms, steps, steps_per_second, tokens_per_second, samples_per_second, "
            "peak_gpu_memory_bytes, peak_rss_bytes, cpu_cores, ended, run_id) VALUES (?, ?, ?, ?, "
            "?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
            std::vector<Value>{
                p.name, ToMillis(p.time), p.command, p.device, p.device_kind,
                int64_t{p.device_count}, int64_t{p.wall.count()}, int64_t{p.measured.count()},
                p.steps, p.steps_per_second, OrNull(p.tokens_per_second),
                OrNull(p.samples_per_second), OptionalBytes(p.peak_gpu_memory_bytes),
                static_cast<int64_t>(p.peak_rss_bytes), p.cpu_cores, p.ended, OrNull(p.run_id)}));
        if (rows.empty()) return Fail(ErrorCode::kFailed, "profile insert returned no id");
        id = AsInt(rows[0][0]);
        return {};
      });
  if (!done) return Fail(done.error());
  return id;
}

Result<std::vector<Profile>> ListProfiles(Ledger& ledger, const std::optional<std::string>& name) {
  if (!name) return Select(ledger, "", {}, "");
  return Select(ledger, "WHERE name = ?", {*name}, "");
}

Result<std::optional<Profile>> LatestProfile(Ledger& ledger, const std::string& name) {
  std::vector<Profile> found = FRUGAL_TRY(Select(ledger, "WHERE name = ?", {name}, "LIMIT 1"));
  if (found.empty()) return std::optional<Profile>();
  return std::optional<Profile>(std::move(found.front()));
}

Result<std::optional<Profile>> GetProfile(Ledger& ledger, ProfileId id) {
  std::vector<Profile> found = FRUGAL_TRY(Select(ledger, "WHERE id = ?", {id}, ""));
  if (found.empty()) return std::optional<Profile>();
  return std::optional<Profile>(std::move(found.front()));
}

Result<Profile> FindProfile(Ledger& ledger, const std::string& name_or_id) {
  std::optional<Profile> found = FRUGAL_TRY(LatestProfile(ledger, name_or_id));
  if (!found) {
    if (const Result<int64_t> id = ParseInt(name_or_id); id && *id > 0) {
      found = FRUGAL_TRY(GetProfile(ledger, *id));
    }
  }
  if (!found) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("no profile '{}' in the ledger (see 'frugal profile list')", name_or_id));
  }
  return std::move(*found);
}

}  // namespace frugal::ledger

#include "seed.h"

#include <fmt/format.h>

#include "frugal/ledger/ledger.h"
#include "frugal/run/ledger_recorder.h"

namespace frugal::server_test {
namespace {

using ledger::Timestamp;
using std::chrono::hours;
using std::chrono::minutes;

ledger::SegmentOffer Offer(std::string gpu, int count, CapacityTier tier, double per_hour,
                           std::optional<double> on_demand = std::nullopt) {
  ledger::SegmentOffer o;
  o.cloud = "aws";
  o.instance_type = gpu == "H100" ? "p5.48xlarge" : "p4d.24xlarge";
  o.region = "us-east-1";
  o.gpu = std::move(gpu);
  o.gpu_count = count;
  o.tier = tier;
  o.price = Rate{Money::FromDollars(per_hour)};
  if (on_demand) o.on_demand_price = Rate{Money::FromDollars(*on_demand)};
  return o;
}

Result<void> Samples(ledger::Ledger& db, ledger::RunId run, Timestamp from, Timestamp to,
                     double gpu_util) {
  std::vector<ledger::Sample> samples;
  for (Timestamp t = from; t < to; t += minutes(10)) {
    ledger::Sample s;
    s.time = t;
    s.gpu_util = gpu_util + static_cast<double>((ledger::ToMillis(t) / 600'000) % 7) * 3;
    s.cpu_util = 180;
    samples.push_back(s);
  }
  return db.AddSamples(run, samples);
}

ledger::NewRun Run(std::string name, std::string team, std::string project, Timestamp start) {
  ledger::NewRun r;
  r.name = std::move(name);
  r.command = "python train.py";
  r.tags.team = std::move(team);
  r.tags.project = std::move(project);
  r.tags.owner = "ana";
  r.start = start;
  return r;
}

}  // namespace

Result<SeededFleet> SeedFleet(const std::filesystem::path& path, Timestamp now) {
  auto db = FRUGAL_TRY(ledger::Ledger::Open(path.string()));
  SeededFleet fleet;
  // nlp-pretrain: 3 h on spot A100s at $12.00/h (on-demand $32.77/h), checkpointed, preempted
  // 40 minutes after its last checkpoint; then 2 h on demand at $32.77/h.
  {
    const Timestamp start = now - hours(30);
    const ledger::RunId id =
        FRUGAL_TRY(db->BeginRun(Run("nlp-pretrain", "nlp", "assistant", start)));
    const auto spot =
        FRUGAL_TRY(db->OpenSegment(id, Offer("A100", 8, CapacityTier::kSpot, 12.0, 32.77), start));
    for (int k = 1; k <= 2; ++k) {
      FRUGAL_TRY(db->AddEvent(id, spot, ledger::EventType::kCheckpointCommitted,
                              start + minutes(60 * k + 20),
                              {{"kind", "checkpoint_committed"}, {"write_seconds", 4.5 * k}}));
    }
    FRUGAL_TRY(db->AddEvent(id, spot, ledger::EventType::kPreempted, start + hours(3), {}));
    FRUGAL_TRY(db->CloseSegment(spot, start + hours(3), ledger::EndReason::kPreempted));
    const auto od = FRUGAL_TRY(
        db->OpenSegment(id, Offer("A100", 8, CapacityTier::kOnDemand, 32.77), start + hours(3)));
    FRUGAL_TRY(db->AddEvent(id, od, ledger::EventType::kResumed, start + hours(3) + minutes(1),
                            {{"kind", "resumed"}, {"seconds_to_first_progress", 42.0}}));
    FRUGAL_TRY(Samples(*db, id, start, start + hours(5), 71));
    FRUGAL_TRY(db->FinishRun(id, ledger::RunStatus::kSucceeded, start + hours(5)));
    fleet.finished_run = id;
  }
  // vision-sweep: 5 h on demand, one A100 at $4.10/h, poorly utilized.
  {
    const Timestamp start = now - hours(20);
    const ledger::RunId id =
        FRUGAL_TRY(db->BeginRun(Run("vision-sweep", "vision", "detector", start)));
    const auto seg =
        FRUGAL_TRY(db->OpenSegment(id, Offer("A100", 1, CapacityTier::kOnDemand, 4.10), start));
    FRUGAL_TRY(Samples(*db, id, start, start + hours(5), 22));
    FRUGAL_TRY(db->CloseSegment(seg, start + hours(5), ledger::EndReason::kFinished));
    FRUGAL_TRY(db->FinishRun(id, ledger::RunStatus::kSucceeded, start + hours(5)));
    fleet.vision_run = id;
  }
  // nlp-live: running for 2 h on 8 spot H100s at $25.00/h.
  {
    const Timestamp start = now - hours(2);
    const ledger::RunId id = FRUGAL_TRY(db->BeginRun(Run("nlp-live", "nlp", "assistant", start)));
    FRUGAL_TRY(db->OpenSegment(id, Offer("H100", 8, CapacityTier::kSpot, 25.0, 98.32), start));
    FRUGAL_TRY(Samples(*db, id, start, now, 88));
    FRUGAL_TRY(db->Heartbeat(id, now));
    fleet.running_run = id;
  }
  return fleet;
}

namespace {

Result<ledger::RunId> LiveRun(ledger::Ledger& db) {
  const std::optional<ledger::Run> run = FRUGAL_TRY(run::FindRunByName(db, "nlp-live"));
  if (!run) return Fail(ErrorCode::kBadInput, "no run nlp-live in the ledger: seed it first");
  return run->id;
}

}  // namespace

Result<void> Progress(const std::filesystem::path& path, Timestamp now) {
  auto db = FRUGAL_TRY(ledger::Ledger::Open(path.string()));
  const ledger::RunId id = FRUGAL_TRY(LiveRun(*db));
  ledger::Sample s;
  s.time = now;
  s.gpu_util = 97;
  s.cpu_util = 190;
  FRUGAL_TRY(db->AddSamples(id, std::vector<ledger::Sample>{s}));
  return db->Heartbeat(id, now);
}

Result<void> FinishLive(const std::filesystem::path& path, Timestamp now) {
  auto db = FRUGAL_TRY(ledger::Ledger::Open(path.string()));
  const ledger::RunId id = FRUGAL_TRY(LiveRun(*db));
  return db->FinishRun(id, ledger::RunStatus::kSucceeded, now);
}

Result<void> AddManyRuns(const std::filesystem::path& path, int64_t count, Timestamp now) {
  auto db = FRUGAL_TRY(ledger::Ledger::Open(path.string()));
  ledger::Connection& c = db->connection();
  const auto top = FRUGAL_TRY(c.Query("SELECT COALESCE(MAX(id), 0) FROM runs"));
  int64_t next = ledger::AsInt(top[0][0]) + 1;
  const char* teams[] = {"nlp", "vision", "speech", "recsys", "research"};
  const char* tiers[] = {"spot", "on_demand", "spot", "reserved_1y"};
  constexpr int64_t kBatch = 10'000;
  const int64_t window_ms = 30LL * 24 * 3600 * 1000;
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kBatch, count - done);
    std::vector<ledger::Row> runs;
    std::vector<ledger::Row> segments;
    for (int64_t i = 0; i < n; ++i, ++next) {
      const int64_t k = done + i;
      const int64_t start =
          ledger::ToMillis(now) - window_ms + (k * 7919) % (window_ms - 3'600'000);
      const std::string team = teams[k % 5];
      runs.push_back({next, fmt::format("bench-{}", k), std::string("python train.py"),
                      std::string(""), team, fmt::format("p{}", k % 17), std::string("bench"),
                      std::string("succeeded"), start, start + 3'600'000, start + 3'600'000});
      segments.push_back({next, std::string("aws"), std::string("p4d.24xlarge"),
                          std::string("us-east-1"), std::string("A100"), int64_t{8},
                          std::string(tiers[k % 4]), int64_t{12'000'000} + (k % 13) * 1'000'000,
                          start, start + 3'600'000, std::string("finished")});
    }
    FRUGAL_TRY(c.Begin(ledger::TxnMode::kWrite));
    Result<void> wrote = c.ExecuteMany(
        "INSERT INTO runs (id, name, command, spec, team, project, owner, status, start_ms, "
        "end_ms, heartbeat_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        runs);
    if (wrote) {
      wrote = c.ExecuteMany(
          "INSERT INTO segments (run_id, cloud, instance_type, region, gpu, gpu_count, tier, "
          "price_micros_per_hour, start_ms, end_ms, end_reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, "
          "?, ?, ?)",
          segments);
    }
    if (!wrote) {
      c.Rollback();
      return Fail(wrote.error());
    }
    FRUGAL_TRY(c.Commit());
    done += n;
  }
  return {};
}

}  // namespace frugal::server_test

// The queue's question to the spot deadline policy after a preemption, on a real SQLite
// ledger holding the job's run: its segments and checkpoints are the history the policy reads.

#include "frugal/queue/spot_move.h"

#include <gtest/gtest.h>

#include "frugal/ledger/ledger.h"
#include "shipped_gpus.h"
#include "support/test_support.h"

namespace frugal::queue {
namespace {

constexpr Seconds kMinute = 60;
constexpr Seconds kHour = 60 * kMinute;
const Seconds kStart = 1'795'996'800 + 10 * kHour;

ledger::Timestamp At(Seconds s) { return ledger::Timestamp(std::chrono::seconds(s)); }

struct Fixture {
  testing::TempDir dir;
  std::unique_ptr<ledger::Ledger> ledger;
  Capacity cap;
  ledger::QueueJobRow row;
  JobRequest job;

  explicit Fixture(const std::string& pools) {
    ledger = std::move(*ledger::Ledger::Open((dir / "ledger.db").string()));
    cap = *ParseCapacity("apiVersion: frugal/v1\nkind: Capacity\npools:\n" + pools, "c.yaml",
                         ShippedGpus());
    row.id = 1;
    row.pool = "spot";
    row.run_id = "queue-1";
    row.started_ms = kStart * 1000;
    job.name = "train";
    job.units = 1;
    job.runtime_hours = 4;
    job.checkpoints = true;
  }
  /// The run: `spot_seconds` on spot from kStart, preempted, with a checkpoint `saved_after`
  /// seconds in.
  void RanOnSpot(Seconds spot_seconds, Seconds saved_after) {
    ledger::NewRun run;
    run.name = row.run_id;
    run.command = "train";
    run.start = At(kStart);
    const ledger::RunId id = *ledger->BeginRun(run);
    ledger::SegmentOffer offer;
    offer.cloud = "slurm";
    offer.instance_type = "spot";
    offer.region = "local";
    offer.gpu = "A10G";
    offer.gpu_count = 1;
    offer.tier = CapacityTier::kSpot;
    const ledger::SegmentId seg = *ledger->OpenSegment(id, offer, At(kStart));
    ASSERT_TRUE(ledger->AddEvent(id, seg, ledger::EventType::kCheckpointCommitted,
                                 At(kStart + saved_after), nlohmann::json::object()));
    ASSERT_TRUE(
        ledger->CloseSegment(seg, At(kStart + spot_seconds), ledger::EndReason::kPreempted));
  }
  Result<SpotAnswer> Ask(Seconds now) {
    return DecideAfterPreemption(ledger->connection(), cap, row, job, 1, SpotNow::kWaiting, now);
  }
};

constexpr const char* kSpotAndOnDemand =
    "  - {name: spot, kind: slurm, partition: spot, tier: spot, gpu: A10G, gpus_per_node: 4,\n"
    "     price_per_gpu_hour: 0.52, preemptions_per_hour: 0.3, changeover: 6m}\n"
    "  - {name: od-local, tier: on_demand, gpu: A10G, gpus_per_node: 4, price_per_gpu_hour: 1.2}\n"
    "  - {name: od, kind: slurm, partition: ondemand, tier: on_demand, gpu: A10G,\n"
    "     gpus_per_node: 4, price_per_gpu_hour: 1.42, changeover: 6m}\n";

TEST(SpotMove, WithoutADeadlineTheJobWaitsForSpot) {
  Fixture f(kSpotAndOnDemand);
  f.RanOnSpot(3600, 3000);
  const auto a = f.Ask(kStart + 3700);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_FALSE(a->move);
  EXPECT_NE(a->reason.find("no deadline"), std::string::npos) << a->reason;
}

TEST(SpotMove, WithNoOnDemandPoolTheJobWaitsForSpot) {
  Fixture f(
      "  - {name: spot, kind: slurm, partition: spot, tier: spot, gpu: A10G,\n"
      "     gpus_per_node: 4, price_per_gpu_hour: 0.52, preemptions_per_hour: 0.3}\n");
  f.job.deadline = kStart + 5 * kHour;
  const auto a = f.Ask(kStart + 600);
  ASSERT_TRUE(a) << a.error().message;
  EXPECT_FALSE(a->move);
  EXPECT_NE(a->reason.find("no on-demand pool fits"), std::string::npos) << a->reason;
}

TEST(SpotMove, ASlackDeadlineWaitsAndATightOneMovesToTheSlurmOnDemandPool) {
  // Four hours of work, one done and checkpointed (50 of the 60 minutes on spot were saved).
  Fixture slack(kSpotAndOnDemand);
  slack.job.deadline = kStart + 24 * kHour;
  slack.RanOnSpot(3600, 3000);
  const auto wait = slack.Ask(kStart + 3700);
  ASSERT_TRUE(wait) << wait.error().message;
  EXPECT_FALSE(wait->move) << wait->reason;
  EXPECT_EQ(wait->advice, spot::Mode::kIdle);

  // The same history with the deadline (less the 15-minute margin) at the time on-demand
  // needs from now (a changeover of 6m, a checkpoint of 1m, 3h10m of work): no time to wait.
  Fixture tight(kSpotAndOnDemand);
  tight.job.deadline =
      kStart + 3700 + 15 * kMinute + 6 * kMinute + kMinute + 3 * kHour + 10 * kMinute;
  tight.RanOnSpot(3600, 3000);
  const auto move = tight.Ask(kStart + 3700);
  ASSERT_TRUE(move) << move.error().message;
  EXPECT_TRUE(move->move) << move->reason;
  EXPECT_EQ(move->advice, spot::Mode::kOnDemand);
  // The Slurm on-demand pool, though a local one is cheaper: the job stays on the cluster.
  EXPECT_EQ(tight.cap.pools[static_cast<size_t>(move->pool)].name, "od");
  EXPECT_NE(move->reason.find("spot policy says on_demand"), std::string::npos) << move->reason;
  // The work left is what the checkpoint did not save: 4 h - 50 min.
  EXPECT_NE(move->reason.find("work left 3h10m"), std::string::npos) << move->reason;
}

}  // namespace
}  // namespace frugal::queue

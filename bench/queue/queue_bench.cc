// One scheduling pass of the queue over FRUGAL_BENCH_JOBS waiting jobs (default 10,000) and
// FRUGAL_BENCH_POOLS pools (default 100): a third owned, a third on-demand (half of them with
// a night price schedule, so deferral is searched), a third spot; each pool 4 nodes of 8 GPUs
// with half its GPUs busy. Jobs of 1-8 GPUs, 1-7 h, deadlines 4-53 h, half checkpointing.

#include <benchmark/benchmark.h>

#include <deque>
#include <string>

#include "bench_env.h"
#include "frugal/queue/scheduler.h"

namespace {

using frugal::queue::Capacity;
using frugal::queue::JobRequest;
using frugal::queue::Seconds;

Capacity MakeCapacity(int pools) {
  std::string yaml = "apiVersion: frugal/v1\nkind: Capacity\npools:\n";
  for (int p = 0; p < pools; ++p) {
    const int kind = p % 3;
    yaml += "  - {name: p" + std::to_string(p) + ", gpu: A100, gpus_per_node: 8, nodes: 4";
    if (kind == 0) yaml += ", tier: owned";
    if (kind == 1) {
      yaml += ", tier: on_demand, price_per_gpu_hour: " + std::to_string(3 + p % 4);
      if (p % 2 == 1) {
        yaml += ", price_schedule: [{days: daily, hours: 22-06, price_per_gpu_hour: 1.5}]";
      }
    }
    if (kind == 2) yaml += ", tier: spot, price_per_gpu_hour: 1.1, preemptions_per_hour: 0.1";
    yaml += "}\n";
  }
  return *frugal::queue::ParseCapacity(yaml, "bench");
}

void BM_SchedulePass(benchmark::State& state) {
  const int jobs = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_JOBS", 10000));
  const int pools = static_cast<int>(frugal::bench::EnvCount("FRUGAL_BENCH_POOLS", 100));
  const Capacity cap = MakeCapacity(pools);
  const Seconds now = 1'795'996'800 + 10 * 3600;
  std::deque<JobRequest> requests;
  for (int i = 0; i < jobs; ++i) {
    JobRequest& r = requests.emplace_back();
    r.name = "j" + std::to_string(i);
    r.units = 1 + i % 8;
    r.runtime_hours = 1 + i % 7;
    r.checkpoints = i % 2 == 0;
    r.arrival = now - i;
    r.deadline = now + (4 + i % 50) * 3600;
    r.tags["team"] = "t" + std::to_string(i % 5);
  }
  frugal::queue::ScheduleInput base;
  base.now = now;
  base.capacity = &cap;
  base.pools.resize(cap.pools.size());
  for (size_t p = 0; p < base.pools.size(); ++p) {
    for (int u = 0; u < 16; ++u) base.pools[p].busy_until.push_back(now + (1 + u % 5) * 3600);
    for (int j = 0; j < 4; ++j) base.pools[p].jobs_until.push_back(now + (1 + j) * 3600);
  }
  for (const JobRequest& r : requests) base.jobs.push_back({&r});
  size_t placed = 0;
  for (auto _ : state) {
    frugal::queue::ScheduleInput in = base;
    const auto pls = frugal::queue::Schedule(in);
    placed = pls.size();
    benchmark::DoNotOptimize(placed);
  }
  state.counters["jobs"] = static_cast<double>(placed);
}
BENCHMARK(BM_SchedulePass)->Unit(benchmark::kMillisecond);

}  // namespace

#pragma once
// The capacity file: the pools the queue may place jobs on, and the teams' budgets over time.
// Format (apiVersion frugal/v1, kind Capacity; docs/queue.md has the full reference):
//
//   apiVersion: frugal/v1
//   kind: Capacity
//   pools:
//     - name: lab                  # unique
//       kind: local                # local (this machine) | slurm (a partition)
//       tier: owned                # owned | on_demand | spot
//       gpu: A100-80GB             # a catalog GPU the nodes carry (omit, with cpu_slots, for CPU)
//       gpus_per_node: 8
//       nodes: 1
//       price_per_gpu_hour: 0      # owned: what an idle hour costs anyway (reports only)
//       max_jobs: 8                # at once, at least 1 (absent: no limit beyond the GPUs)
//     - name: cloud-spot
//       kind: slurm
//       partition: spot           # slurm: the partition; gres defaults to gpu:<gpus_per_node>
//       gres: gpu:a100:8
//       offer: p4d.24xlarge       # the catalog offer the partition launches (informational)
//       tier: spot
//       price_per_gpu_hour: 1.20
//       preemptions_per_hour: 0.2 # per node, for pricing the risk
//       trace: data/spot_traces/us-west-2a_v100_1.json   # availability for `queue simulate`
//       price_schedule:           # first matching rule wins; else price_per_gpu_hour
//         - {days: mon-fri, hours: 22-06, price_per_gpu_hour: 0.95}
//   windows:                      # named start windows for --window (nights, weekends built in)
//     - {name: lunch, days: weekdays, hours: 12-14}
//   budgets:
//     - {tag: team=nlp, period: month, limit: 5000}

#include <array>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/duration.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/core/tier.h"
#include "frugal/core/timestamp.h"
#include "frugal/queue/week_time.h"

namespace frugal::queue {

enum class PoolKind { kLocal, kSlurm };

[[nodiscard]] const char* PoolKindName(PoolKind kind);

struct PriceRule {
  HourSet hours;
  Money per_gpu_hour;
};

struct Pool {
  std::string name;
  PoolKind kind = PoolKind::kLocal;
  /// owned, on_demand or spot (a pool is not reserved); the tier the ledger records its runs on.
  CapacityTier tier = CapacityTier::kOnDemand;
  std::string partition;  ///< slurm only
  std::string gres;       ///< slurm only; "gpu:<gpus_per_node>" when not given
  std::string offer;      ///< the catalog offer a cloud partition launches; "" when none
  std::string gpu;        ///< GPU model; "" for a CPU-only pool
  int gpus_per_node = 0;
  int cpu_slots = 0;  ///< CPU-only pools: job slots per node
  int nodes = 1;
  int max_jobs = 0;          ///< 0: no limit beyond the GPUs (or slots)
  int max_gpus = 0;          ///< 0: every GPU of every node
  Money price_per_gpu_hour;  ///< per slot-hour on a CPU-only pool
  std::vector<PriceRule> schedule;
  double preemptions_per_hour = 0;  ///< spot: per node
  std::string trace;                ///< spot: availability trace for simulate ("" = always up)
  std::string trace_where;          ///< "capacity.yaml:12:12: field 'trace'", for its errors
  Duration changeover = std::chrono::minutes(5);  ///< start a job: launch, setup, restore
  int line = 0;                                   ///< where the pool is in its file

  /// Dollars per GPU-hour (slot-hour) in each hour of the week, the schedule applied.
  std::array<double, kHoursPerWeek> hourly{};
  /// hourly_prefix[i] = sum of hourly[0..i), i = 0..168: the price of a span in O(1).
  std::array<double, kHoursPerWeek + 1> hourly_prefix{};

  /// The units a job asks for: GPUs, or CPU slots on a CPU-only pool.
  [[nodiscard]] int units() const {
    const int all = nodes * (gpu.empty() ? cpu_slots : gpus_per_node);
    return max_gpus > 0 && max_gpus < all ? max_gpus : all;
  }
  [[nodiscard]] int units_per_node() const { return gpu.empty() ? cpu_slots : gpus_per_node; }
  /// Dollars for one unit over [start, end), the schedule applied hour by hour.
  [[nodiscard]] double UnitCost(Seconds start, Seconds end) const;
  /// Dollars per unit-hour at `t`.
  [[nodiscard]] double PriceAt(Seconds t) const {
    return hourly[static_cast<size_t>(HourOfWeek(t))];
  }
  /// Whether the schedule makes some hours cheaper than others.
  [[nodiscard]] bool HasSchedule() const { return !schedule.empty(); }
};

/// The queue keeps team budgets by week, month or quarter (core's calendar periods).
using BudgetPeriod = CalendarPeriod;

struct TeamBudget {
  std::string tag_key;    ///< "team"
  std::string tag_value;  ///< "nlp"
  BudgetPeriod period = BudgetPeriod::kMonth;
  Money limit;
  int line = 0;
};

[[nodiscard]] const char* PeriodName(BudgetPeriod period);
/// The start of the period containing `t` (Monday 00:00, the 1st, the quarter's first day):
/// core's PeriodAround in the queue's seconds.
[[nodiscard]] Seconds PeriodStart(BudgetPeriod period, Seconds t);

struct Window {
  std::string name;
  HourSet hours;
};

struct Capacity {
  std::string source;
  std::vector<Pool> pools;
  std::vector<TeamBudget> budgets;
  std::vector<Window> windows;  ///< built-in nights, weekends, off_peak, then the file's
  /// The catalog's GPU names the pools' were checked against (empty: the pools' own names).
  std::vector<std::string> known_gpus;

  [[nodiscard]] const Pool* FindPool(std::string_view name) const;
  /// A job's `gpu` (or a `runtime_by_gpu` key) as the pools write it: the one pool GPU it
  /// denotes, resolved with the catalog's names as a pool's is (A100, a100-80gb for a pool of
  /// A100-80GB). kBadInput, for the caller to locate, on a name no pool's GPU answers to (with
  /// a suggestion) or one that denotes the GPUs of pools of more than one model.
  [[nodiscard]] Result<std::string> PoolGpuFor(const std::string& gpu) const;
  /// The window by name; kBadInput with a suggestion when there is none.
  [[nodiscard]] Result<HourSet> FindWindow(std::string_view name) const;
};

/// Loads and checks a capacity file. A pool's `gpu` must name one GPU of `known_gpus` (the
/// catalog's names; an alias such as A100 counts, and is kept as written). kBadInput names
/// file:line:column and the field.
[[nodiscard]] Result<Capacity> LoadCapacity(const std::filesystem::path& path,
                                            const std::vector<std::string>& known_gpus);
[[nodiscard]] Result<Capacity> ParseCapacity(std::string_view text, const std::string& source,
                                             const std::vector<std::string>& known_gpus);

}  // namespace frugal::queue

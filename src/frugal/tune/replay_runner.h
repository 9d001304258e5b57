#pragma once
// A TrialRunner that replays tabulated curves in simulated time: a segment's progress events
// fall at the cumulative cost of each tabulated evaluation, so N segments in flight interleave
// exactly as N workers would. Deterministic: ties break by launch order.

#include <cstdint>
#include <queue>
#include <unordered_map>
#include <vector>

#include "frugal/tune/replay_table.h"
#include "frugal/tune/trial_runner.h"

namespace frugal::tune {

class ReplayRunner final : public TrialRunner {
 public:
  /// Borrows `table`, which must outlive the runner. Trials name their row by source_id.
  ReplayRunner(const ReplayTable& table, double max_fidelity);

  [[nodiscard]] Result<void> Launch(const Trial& trial, double from_fidelity,
                                    double to_fidelity) override;
  [[nodiscard]] Result<std::optional<Progress>> WaitNext() override;
  Progress Stop(int64_t trial_id) override;
  double Now() const override { return now_; }
  std::optional<double> FullFidelitySeconds(const Trial& trial) const override;
  /// A segment whose next point would take its trial past the wall stops at the wall instead,
  /// without that point's result, as a supervised trial's wall cap stops it.
  void SetTrialMaxWall(std::optional<Duration> wall) override;
  nlohmann::json Save() const override;
  [[nodiscard]] Result<void> Load(const nlohmann::json& state) override;

 private:
  struct Segment {
    size_t config = 0;
    size_t next = 0;  ///< index of the next curve point to report
    double to_fidelity = 0.0;
    double last_cost = 0.0;   ///< cumulative cost at the last report (or checkpoint)
    double event_time = 0.0;  ///< when `next` is reported
    uint64_t seq = 0;         ///< launch/reschedule order, for ties and staleness
    double wall_left = 0.0;   ///< wall seconds its trial may still run (infinite: no cap)
    bool at_wall = false;     ///< the scheduled event is the stop at the wall, not `next`
  };
  struct Event {
    double time;
    uint64_t seq;
    int64_t trial_id;
    bool operator>(const Event& o) const { return time != o.time ? time > o.time : seq > o.seq; }
  };
  void Schedule(int64_t trial_id, Segment& segment, double from_time);

  const ReplayTable& table_;
  double max_fidelity_;
  std::unordered_map<std::string, size_t> index_;
  std::unordered_map<int64_t, Segment> running_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  double now_ = 0.0;
  std::optional<double> wall_seconds_;
  uint64_t seq_ = 0;
};

}  // namespace frugal::tune

#pragma once
// The clock seam: what reads the time takes a `const Clock&` instead of calling
// std::chrono::steady_clock or system_clock itself, so a test can drive time (a FakeClock it
// advances) instead of sleeping. Steady time is for intervals and timers (monotonic, never
// jumps); wall time is for records (what a journal or the ledger stores).

#include <atomic>
#include <chrono>

#include "frugal/core/duration.h"

namespace frugal {

using SteadyTime = std::chrono::steady_clock::time_point;
using WallTime = std::chrono::system_clock::time_point;

class Clock {
 public:
  virtual ~Clock() = default;
  /// Monotonic time: for intervals, deadlines and timers.
  [[nodiscard]] virtual SteadyTime Steady() const = 0;
  /// Calendar time (UTC): for what is recorded.
  [[nodiscard]] virtual WallTime Wall() const = 0;
};

/// The machine's clocks. Lives for the whole program.
[[nodiscard]] const Clock& RealClock();

/// A clock that moves only when told to: both its steady and its wall time advance together by
/// Advance(). Safe to read and advance from different threads.
class FakeClock final : public Clock {
 public:
  /// Starts at `wall` (and at a fixed steady time).
  explicit FakeClock(WallTime wall = WallTime(std::chrono::hours(24 * 20'000)));
  [[nodiscard]] SteadyTime Steady() const override;
  [[nodiscard]] WallTime Wall() const override;
  /// Moves both clocks forward by `by` (a negative `by` is a programmer error).
  void Advance(Duration by);

 private:
  const WallTime wall_origin_;
  std::atomic<int64_t> elapsed_ms_{0};
};

}  // namespace frugal

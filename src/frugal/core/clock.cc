#include "frugal/core/clock.h"

#include "frugal/core/error.h"

namespace frugal {
namespace {

class SystemClocks final : public Clock {
 public:
  [[nodiscard]] SteadyTime Steady() const override { return std::chrono::steady_clock::now(); }
  [[nodiscard]] WallTime Wall() const override { return std::chrono::system_clock::now(); }
};

}  // namespace

const Clock& RealClock() {
  static const SystemClocks clocks;
  return clocks;
}

FakeClock::FakeClock(WallTime wall) : wall_origin_(wall) {}

namespace {
// Far from the steady clock's epoch, which code may take for "never".
constexpr Duration kFakeSteadyOrigin = std::chrono::hours(1000);
}  // namespace

SteadyTime FakeClock::Steady() const {
  return SteadyTime(kFakeSteadyOrigin + Duration(elapsed_ms_.load()));
}

WallTime FakeClock::Wall() const {
  return wall_origin_ +
         std::chrono::duration_cast<WallTime::duration>(Duration(elapsed_ms_.load()));
}

void FakeClock::Advance(Duration by) {
  FRUGAL_CHECK(by.count() >= 0);
  elapsed_ms_.fetch_add(by.count());
}

}  // namespace frugal

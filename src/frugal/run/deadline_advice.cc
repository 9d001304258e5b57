#include "frugal/run/deadline_advice.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/run/run_journal.h"

namespace frugal::run {
namespace {

std::optional<WallTime> AtOf(const nlohmann::json& record) {
  if (!record.contains("at") || !record["at"].is_string()) return std::nullopt;
  return ParseWallTime(record["at"].get<std::string>());
}

Duration Between(WallTime from, WallTime to) {
  return std::max(Duration(0), std::chrono::duration_cast<Duration>(to - from));
}

// Per segment: when it opened, when its work started (first progress), its last commit.
struct SegmentTimes {
  WallTime opened;
  std::optional<WallTime> work_start;
  std::optional<WallTime> last_commit;
};

}  // namespace

SpotHistory SpotHistoryOf(const std::vector<nlohmann::json>& records, WallTime now) {
  SpotHistory h;
  bool on_spot = false;
  std::optional<WallTime> preempted_at;  // a wait for capacity began
  std::optional<SegmentTimes> open;
  auto close_segment = [&h](const SegmentTimes& s) {
    const WallTime start = s.work_start.value_or(s.opened);
    if (s.last_commit && *s.last_commit > start) h.work_done += Between(start, *s.last_commit);
  };
  for (const nlohmann::json& r : records) {
    const std::string kind = r.value("record", "");
    const std::optional<WallTime> at = AtOf(r);
    if (!at) continue;
    if (kind == "run_started") {
      if (!h.first_start) h.first_start = *at;
      const Result<std::optional<CapacityTier>> tier = JournalTier(r);
      on_spot = tier && *tier == CapacityTier::kSpot;
    } else if (kind == "segment_opened") {
      if (preempted_at) h.spans.push_back({false, Between(*preempted_at, *at)});
      preempted_at.reset();
      open = SegmentTimes{*at, std::nullopt, std::nullopt};
    } else if (kind == "event" && open) {
      const std::string event = r.value("kind", "");
      if (event == "resumed") {
        // When the first progress came. Not the segment's opening plus the time to it: after a
        // local restart the segment opens where the previous one closed, before the backoff.
        open->work_start = *at;
      } else if (event == "checkpoint_committed") {
        open->last_commit = *at;
      }
    } else if (kind == "segment_closed" && open) {
      close_segment(*open);
      if (on_spot) h.spans.push_back({true, Between(open->opened, *at)});
      if (r.value("end", "") == "preempted") preempted_at = *at;
      open.reset();
    }
  }
  if (preempted_at) {
    h.spans.push_back({false, Between(*preempted_at, now)});
    h.waiting_for_spot = true;
  }
  return h;
}

Result<DeadlineAdvice> AdviseAfterPreemption(const DeadlineAdviceConfig& config,
                                             const std::vector<nlohmann::json>& records,
                                             WallTime now) {
  const SpotHistory history = SpotHistoryOf(records, now);
  spot::LiveState state;
  state.elapsed = history.first_start ? Between(*history.first_start, now) : Duration(0);
  state.work_done = history.work_done;
  state.mode = spot::Mode::kIdle;  // preempted: nothing runs now
  state.spot_available = false;
  DeadlineAdvice out;
  out.advice = FRUGAL_TRY(spot::AdviseLive(config, history.spans, state));
  out.tier =
      out.advice.mode == spot::Mode::kOnDemand ? CapacityTier::kOnDemand : CapacityTier::kSpot;
  out.detail =
      fmt::format("{}: {} of work left, {} to spare before the deadline ({} elapsed of {}; {})",
                  spot::AdviceName(out.advice.mode), FormatDuration(out.advice.work_left),
                  FormatDuration(out.advice.spare), FormatDuration(state.elapsed),
                  FormatDuration(config.deadline), out.advice.planned ? "planned" : "rules");
  return out;
}

}  // namespace frugal::run

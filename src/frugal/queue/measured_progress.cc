#include "frugal/queue/measured_progress.h"

#include <string>
#include <vector>

#include "frugal/run/run_journal.h"

namespace frugal::queue {
namespace {

struct Point {
  double at = 0;
  int64_t step = 0;
};

double UnixSeconds(run::WallTime t) {
  return std::chrono::duration<double>(t.time_since_epoch()).count();
}

}  // namespace

std::optional<MeasuredProgress> ReadMeasuredProgress(const std::filesystem::path& journal) {
  int segment = 0;
  std::vector<Point> points;  // of `segment`, in journal order
  for (const nlohmann::json& r : run::ReadJournal(journal)) {
    const std::string kind = r.value("record", "");
    const int seg = r.value("segment", 0);
    if (kind == "segment_opened" && seg > segment) {
      segment = seg;
      points.clear();
      continue;
    }
    if (seg != segment || segment == 0) continue;
    if (kind == "heartbeat") {
      const std::optional<run::WallTime> at = run::ParseWallTime(r.value("at", ""));
      const int64_t step = r.value("step", int64_t{0});
      // A heartbeat before the command's first progress report says step 0.
      if (at && step > 0) points.push_back({UnixSeconds(*at), step});
    } else if (const std::optional<run::RunEvent> e = run::JournalEvent(r); e && e->step) {
      if (e->kind == run::EventKind::kResumed) {
        // The first progress after a resume: what came before it was the command loading.
        points.clear();
        points.push_back({UnixSeconds(e->at), *e->step});
      } else if (e->kind == run::EventKind::kCheckpointCommitted) {
        points.push_back({UnixSeconds(e->at), *e->step});
      }
    }
  }
  if (points.empty()) return std::nullopt;
  Point first = points.front();
  Point last = first;
  for (const Point& p : points) {
    if (p.step >= last.step) last = p;
  }
  MeasuredProgress m;
  m.step = last.step;
  m.at = last.at;
  const double seconds = last.at - first.at;
  if (seconds >= 1.0 && last.step > first.step) {
    m.steps_per_second = static_cast<double>(last.step - first.step) / seconds;
  }
  return m;
}

std::optional<double> MeasuredFinish(const MeasuredProgress& progress, int64_t total_steps) {
  if (total_steps <= 0 || progress.steps_per_second <= 0) return std::nullopt;
  if (progress.step >= total_steps) return progress.at;
  return progress.at + static_cast<double>(total_steps - progress.step) / progress.steps_per_second;
}

}  // namespace frugal::queue

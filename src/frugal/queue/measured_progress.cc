#include "frugal/queue/measured_progress.h"

#include <algorithm>
#include <fstream>
#include <string>
#include <string_view>
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

/// Whether `line` is the record that begins what ReadMeasuredProgress measures over: a
/// segment's opening, or the first progress after a resume. Told by its text alone.
bool BeginsMeasure(std::string_view line) {
  return line.find("\"segment_opened\"") != std::string_view::npos ||
         line.find("\"resumed\"") != std::string_view::npos;
}

/// The journal's records from its end back to the newest that begins a measure (or to its
/// start, or `max_bytes` back, whichever comes first), in journal order. A running job's
/// journal grows by a heartbeat every few seconds for as long as it runs: read whole on every
/// `queue list`, a week-long run's would be read a hundred thousand lines at a time.
std::vector<nlohmann::json> ReadJournalTail(const std::filesystem::path& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  in.seekg(0, std::ios::end);
  const auto size = static_cast<size_t>(std::max<std::streamoff>(0, in.tellg()));
  constexpr size_t kBlock = 64 * 1024;
  std::string tail;  // bytes [from, size)
  size_t from = size;
  std::vector<std::string_view> lines;
  while (from > 0 && size - from < max_bytes) {
    const size_t n = std::min(kBlock, from);
    from -= n;
    std::string block(n, '\0');
    in.seekg(static_cast<std::streamoff>(from));
    in.read(block.data(), static_cast<std::streamsize>(n));
    tail.insert(0, block);
    // Whole lines only: the first is cut unless the tail begins the file.
    std::string_view text(tail);
    if (from > 0) {
      const size_t nl = text.find('\n');
      text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    }
    bool begun = false;
    for (size_t at = text.size(); at > 0 && !begun;) {
      const size_t nl = text.rfind('\n', at - 1);
      const size_t start = nl == std::string_view::npos ? 0 : nl + 1;
      begun = BeginsMeasure(text.substr(start, at - start));
      at = nl == std::string_view::npos ? 0 : nl;
    }
    if (begun) break;
  }
  std::vector<nlohmann::json> records;
  std::string_view text(tail);
  if (from > 0) {
    const size_t nl = text.find('\n');
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
  }
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.is_object() && j.contains("record")) records.push_back(std::move(j));
  }
  return records;
}

}  // namespace

std::optional<MeasuredProgress> ReadMeasuredProgress(const std::filesystem::path& journal) {
  int segment = 0;
  std::vector<Point> points;  // of `segment`, in journal order
  for (const nlohmann::json& r : ReadJournalTail(journal, kMeasuredTailBytes)) {
    const std::string kind = r.value("record", "");
    const int seg = r.value("segment", 0);
    if (kind == "segment_opened" && seg > segment) {
      segment = seg;
      points.clear();
      continue;
    }
    // A tail that begins inside a segment: its records are the newest segment's.
    if (seg > segment) {
      segment = seg;
      points.clear();
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

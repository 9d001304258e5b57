#include "frugal/tune/replay_runner.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "frugal/tune/trial.h"

namespace frugal::tune {

ReplayRunner::ReplayRunner(const ReplayTable& table, double max_fidelity)
    : table_(table), max_fidelity_(max_fidelity) {
  for (size_t i = 0; i < table.configs().size(); ++i) index_[table.configs()[i].id] = i;
}

void ReplayRunner::Schedule(int64_t trial_id, Segment& segment, double from_time) {
  const ReplayConfig& c = table_.configs()[segment.config];
  const double cost =
      segment.next < c.curve.size() ? c.curve[segment.next].cost_seconds : segment.last_cost;
  const double step = std::max(0.0, cost - segment.last_cost);
  segment.at_wall = step > segment.wall_left + kEps;
  segment.event_time = from_time + (segment.at_wall ? std::max(0.0, segment.wall_left) : step);
  segment.seq = seq_++;
  events_.push(Event{segment.event_time, segment.seq, trial_id});
}

Result<void> ReplayRunner::Launch(const Trial& trial, double from_fidelity, double to_fidelity) {
  auto it = index_.find(trial.source_id);
  if (it == index_.end()) {
    return Fail(ErrorCode::kFailed, "replay: trial " + std::to_string(trial.id) +
                                        " names config '" + trial.source_id +
                                        "', which the table does not have");
  }
  const ReplayConfig& c = table_.configs()[it->second];
  Segment segment;
  segment.config = it->second;
  segment.to_fidelity = to_fidelity;
  // Resume from the checkpoint: the first point past it; its cost so far is already paid.
  while (segment.next < c.curve.size() && c.curve[segment.next].fidelity <= from_fidelity + kEps) {
    segment.last_cost = c.curve[segment.next].cost_seconds;
    ++segment.next;
  }
  if (from_fidelity <= kEps) segment.last_cost = 0.0;
  segment.wall_left =
      wall_seconds_ ? *wall_seconds_ - trial.cost_seconds : std::numeric_limits<double>::infinity();
  Segment& stored = running_[trial.id] = segment;
  Schedule(trial.id, stored, now_);
  return {};
}

Result<std::optional<Progress>> ReplayRunner::WaitNext() {
  while (!events_.empty()) {
    const Event event = events_.top();
    events_.pop();
    auto it = running_.find(event.trial_id);
    if (it == running_.end() || it->second.seq != event.seq) continue;  // stopped or superseded
    Segment& s = it->second;
    now_ = std::max(now_, event.time);
    const ReplayConfig& c = table_.configs()[s.config];
    Progress p;
    p.trial_id = event.trial_id;
    if (s.at_wall) {
      // Its wall came before its next point: stopped there, checkpointed at the last one.
      p.fidelity = s.next > 0 ? c.curve[s.next - 1].fidelity : 0.0;
      p.wall_seconds = std::max(0.0, s.wall_left);
      p.end = SegmentEnd::kWallStopped;
      running_.erase(it);
      return p;
    }
    if (s.next >= c.curve.size()) {
      // Nothing left to replay past the checkpoint.
      p.fidelity = c.curve.empty() ? 0.0 : c.curve.back().fidelity;
      p.end = c.fails ? SegmentEnd::kFailed : SegmentEnd::kScheduleEnded;
      running_.erase(it);
      return p;
    }
    const CurvePoint& point = c.curve[s.next];
    p.fidelity = point.fidelity;
    p.wall_seconds = std::max(0.0, point.cost_seconds - s.last_cost);
    if (!std::isnan(point.value)) p.value = point.value;
    s.last_cost = point.cost_seconds;
    s.wall_left -= p.wall_seconds;
    ++s.next;
    const bool last = s.next >= c.curve.size();
    if (std::isnan(point.value)) {
      p.end = SegmentEnd::kFailed;
    } else if (point.fidelity >= s.to_fidelity - kEps) {
      p.end = SegmentEnd::kReachedTarget;
    } else if (last) {
      p.end = c.fails ? SegmentEnd::kFailed : SegmentEnd::kScheduleEnded;
    }
    if (p.end == SegmentEnd::kNone) {
      Schedule(event.trial_id, s, now_);
    } else {
      running_.erase(it);
    }
    return p;
  }
  return std::optional<Progress>();
}

void ReplayRunner::SetTrialMaxWall(std::optional<Duration> wall) {
  wall_seconds_ = wall ? std::optional<double>(ToSeconds(*wall)) : std::nullopt;
}

Progress ReplayRunner::Stop(int64_t trial_id) {
  running_.erase(trial_id);
  Progress tail;
  tail.trial_id = trial_id;
  return tail;
}

std::optional<double> ReplayRunner::FullFidelitySeconds(const Trial& trial) const {
  auto it = index_.find(trial.source_id);
  if (it == index_.end()) return std::nullopt;
  const ReplayConfig& c = table_.configs()[it->second];
  const CurvePoint* p = ReplayTable::FinalPoint(c, max_fidelity_);
  return p ? p->cost_seconds : 0.0;
}

nlohmann::json ReplayRunner::Save() const {
  nlohmann::json segments = nlohmann::json::array();
  for (const auto& [id, s] : running_) {
    segments.push_back({{"trial", id},
                        {"config", s.config},
                        {"next", s.next},
                        {"to_fidelity", s.to_fidelity},
                        {"last_cost", s.last_cost},
                        {"event_time", s.event_time},
                        {"seq", s.seq},
                        {"wall_left", std::isfinite(s.wall_left) ? nlohmann::json(s.wall_left)
                                                                 : nlohmann::json(nullptr)},
                        {"at_wall", s.at_wall}});
  }
  return {{"now", now_}, {"seq", seq_}, {"segments", segments}};
}

Result<void> ReplayRunner::Load(const nlohmann::json& state) {
  try {
    running_.clear();
    events_ = {};
    now_ = state.at("now").get<double>();
    seq_ = state.at("seq").get<uint64_t>();
    for (const auto& j : state.at("segments")) {
      Segment s;
      s.config = j.at("config").get<size_t>();
      s.next = j.at("next").get<size_t>();
      s.to_fidelity = j.at("to_fidelity").get<double>();
      s.last_cost = j.at("last_cost").get<double>();
      s.event_time = j.at("event_time").get<double>();
      s.seq = j.at("seq").get<uint64_t>();
      // Absent before the runner held the wall: no cap on a segment already in flight.
      const nlohmann::json wall_left = j.value("wall_left", nlohmann::json(nullptr));
      s.wall_left =
          wall_left.is_number() ? wall_left.get<double>() : std::numeric_limits<double>::infinity();
      s.at_wall = j.value("at_wall", false);
      if (s.config >= table_.configs().size()) {
        return Fail(ErrorCode::kBadInput, "replay state names a config the table does not have");
      }
      const int64_t id = j.at("trial").get<int64_t>();
      running_[id] = s;
      events_.push(Event{s.event_time, s.seq, id});
    }
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("replay state: ") + e.what());
  }
  return {};
}

}  // namespace frugal::tune

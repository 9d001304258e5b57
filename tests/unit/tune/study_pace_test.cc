// The pace a study reserves new trials at: every second its trials cost, over the fidelity
// they gained. A real trial's seconds mostly arrive in accruals between its reports.

#include <gtest/gtest.h>

#include <deque>
#include <map>

#include "replay_study.h"

namespace frugal::tune {
namespace {

/// Tells each replayed report as a run of accruals that move nothing, then the report: the
/// same seconds, as a real trial's heartbeats come between its epochs.
class HeartbeatRunner final : public ForwardingRunner {
 public:
  static constexpr int kBeats = 10;
  using ForwardingRunner::ForwardingRunner;
  Result<void> Launch(const Trial& t, double from, double to) override {
    reached_[t.id] = from;
    return inner_.Launch(t, from, to);
  }
  Result<std::optional<Progress>> WaitNext() override {
    if (pending_.empty()) {
      auto next = inner_.WaitNext();
      if (!next || !*next) return next;
      const Progress report = **next;
      Progress beat;
      beat.trial_id = report.trial_id;
      beat.fidelity = reached_[report.trial_id];
      beat.wall_seconds = report.wall_seconds / kBeats;
      for (int i = 1; i < kBeats; ++i) pending_.push_back(beat);
      Progress last = report;
      last.wall_seconds = report.wall_seconds - beat.wall_seconds * (kBeats - 1);
      pending_.push_back(last);
      if (report.value) reached_[report.trial_id] = report.fidelity;
    }
    const Progress p = pending_.front();
    pending_.pop_front();
    return std::optional<Progress>(p);
  }
  Progress Stop(int64_t id) override {
    std::erase_if(pending_, [id](const Progress& p) { return p.trial_id == id; });
    return inner_.Stop(id);
  }

 private:
  std::deque<Progress> pending_;
  std::map<int64_t, double> reached_;
};

/// Seconds per epoch the study learned, from its saved accounting.
double LearnedPace(ReplayStudy& rs) {
  const nlohmann::json accounting = rs.store().Load("t")->at("accounting");
  return accounting.at("estimator_seconds").get<double>() /
         accounting.at("estimator_units").get<double>();
}

TEST_F(StudyTest, ThePaceCountsTheSecondsBetweenReports) {
  const std::string yaml =
      "scheduler: none\nresources: {price_per_hour: 3.60, workers: 1}\n"
      "gates: {budget_usd: 1000, max_trials: 4}\n";
  ReplayStudy plain(dir_.path(), yaml);
  ASSERT_TRUE((*plain.Create())->Run({}).has_value());
  ReplayStudy beating(dir_.path(), yaml);
  HeartbeatRunner heartbeats(beating.replay());
  auto study = beating.CreateWith(heartbeats);
  ASSERT_TRUE(study.has_value()) << study.error().message;
  const Result<StudySummary> summary = (*study)->Run({});
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->trials_started, 4);

  // The same trials cost the same seconds however they are told, so the pace is the same
  // (counted from reports alone, it would be a tenth of it).
  const double pace = LearnedPace(plain);
  EXPECT_GT(pace, 1.0);
  EXPECT_NEAR(LearnedPace(beating), pace, pace * 1e-9);
}

}  // namespace
}  // namespace frugal::tune

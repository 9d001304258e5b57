// What a trial reports while it stops. A real trial stopped at a cap trains on until it has
// checkpointed and exited; when that tail reaches its full fidelity, the trial is complete and
// its result counts, whatever stopped it.

#include <gtest/gtest.h>

#include <limits>

#include "replay_study.h"

namespace frugal::tune {
namespace {

/// A replay whose trials, when stopped, turn out to have reached their full fidelity first, at
/// an objective value no configuration of the table has.
class FinishesWhileStoppingRunner final : public ForwardingRunner {
 public:
  static constexpr double kValue = 1e6;  // the objective is maximized
  using ForwardingRunner::ForwardingRunner;
  Progress Stop(int64_t id) override {
    Progress tail = inner_.Stop(id);
    tail.trial_id = id;
    tail.fidelity = kEpochs;
    tail.value = kValue;
    ++stops_;
    return tail;
  }
  int stops() const { return stops_; }

 private:
  int stops_ = 0;
};

TEST_F(StudyTest, ATrialThatReachedItsFullFidelityWhileStoppingAtTheBudgetIsComplete) {
  // No scheduler: a trial is stopped only by the budget, never paused or pruned.
  ReplayStudy rs(dir_.path(),
                 "scheduler: none\nresources: {price_per_hour: 3.60, workers: 2}\n"
                 "gates: {budget_usd: 0.5}\n");
  FinishesWhileStoppingRunner runner(rs.replay());
  auto study = rs.CreateWith(runner);
  ASSERT_TRUE(study) << study.error().message;
  auto summary = (*study)->Run({});
  ASSERT_TRUE(summary) << summary.error().message;
  ASSERT_GT(runner.stops(), 0);
  int finished_while_stopping = 0;
  for (const Trial& t : (*study)->trials()) {
    if (t.last_value != FinishesWhileStoppingRunner::kValue) continue;
    ++finished_while_stopping;
    EXPECT_EQ(t.state, TrialState::kCompleted) << "trial " << t.id;
  }
  EXPECT_EQ(finished_while_stopping, runner.stops());
  ASSERT_TRUE(summary->best_value.has_value());
  EXPECT_EQ(*summary->best_value, FinishesWhileStoppingRunner::kValue);
}

}  // namespace
}  // namespace frugal::tune

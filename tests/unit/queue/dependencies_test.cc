// A queued job's depends_on against the queue: met, still to be met, or never (a job of that
// name failed, none exists, or every one waits on the job itself through reused names).

#include "frugal/queue/dependencies.h"

#include <gtest/gtest.h>

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

LoadedJob Job(int64_t id, const std::string& name, QueueJobState state,
              std::vector<std::string> depends_on = {}) {
  LoadedJob j;
  j.row.id = id;
  j.row.name = name;
  j.row.state = state;
  j.request.name = name;
  j.request.depends_on = std::move(depends_on);
  return j;
}

TEST(Dependencies, ACycleThroughAReusedNameCanNeverBeMetInsteadOfWaitingForEver) {
  // Submit x and hold it; submit y on [x]; then a new x on [y].
  std::vector<LoadedJob> jobs = {Job(1, "x", QueueJobState::kHeld),
                                 Job(2, "y", QueueJobState::kWaiting, {"x"}),
                                 Job(3, "x", QueueJobState::kWaiting, {"y"})};
  // While the first x may still run, both wait.
  EXPECT_EQ(CheckDependencies({"x"}, jobs, 2).unmet, std::vector<std::string>{"x"});
  EXPECT_FALSE(CheckDependencies({"x"}, jobs, 2).never);
  EXPECT_EQ(CheckDependencies({"y"}, jobs, 3).unmet, std::vector<std::string>{"y"});
  // Cancelled, y waits for the new x, which waits for y: neither can ever start.
  jobs[0].row.state = QueueJobState::kCancelled;
  for (const auto& [deps, self] : {std::pair{std::vector<std::string>{"x"}, int64_t{2}},
                                   std::pair{std::vector<std::string>{"y"}, int64_t{3}}}) {
    const DependencyState state = CheckDependencies(deps, jobs, self);
    ASSERT_TRUE(state.never) << "job " << self << " would wait for ever";
    EXPECT_NE(state.never->find("cycle"), std::string::npos) << *state.never;
    EXPECT_TRUE(state.unmet.empty());
  }
  // A job of the name that does not wait on the cycle can still meet it.
  jobs.push_back(Job(4, "x", QueueJobState::kWaiting));
  const DependencyState met = CheckDependencies({"x"}, jobs, 2);
  EXPECT_FALSE(met.never);
  EXPECT_EQ(met.unmet, std::vector<std::string>{"x"});
}

TEST(Dependencies, ALongChainIsMeetableFromItsSucceededRoot) {
  std::vector<LoadedJob> jobs = {Job(1, "j0", QueueJobState::kSucceeded)};
  for (int i = 1; i < 2000; ++i) {
    jobs.push_back(Job(i + 1, "j" + std::to_string(i), QueueJobState::kWaiting,
                       {"j" + std::to_string(i - 1)}));
  }
  const DependencyState last = CheckDependencies({"j1998"}, jobs, 2000);
  EXPECT_FALSE(last.never);
  EXPECT_EQ(last.unmet, std::vector<std::string>{"j1998"});
}

}  // namespace
}  // namespace frugal::queue

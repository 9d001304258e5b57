#include "frugal/queue/dependencies.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

#include "frugal/core/text.h"

namespace frugal::queue {
namespace {

using ledger::QueueJobState;

bool Live(QueueJobState state) {
  return state == QueueJobState::kWaiting || state == QueueJobState::kHeld ||
         state == QueueJobState::kStarting || state == QueueJobState::kRunning;
}

/// The names a dependency on which may still be met: a job of that name succeeded, or one is
/// live whose own dependencies may all still be met. A live name outside the set can never be
/// met: every job of it waits, through others, on itself (a cycle through reused names: `y` on
/// `[x]`, then a new `x` on `[y]`). A worklist over the live jobs, linear in jobs and edges.
std::set<std::string> MeetableNames(const std::vector<LoadedJob>& jobs) {
  std::set<std::string> meetable;
  std::vector<std::string> ready;
  for (const LoadedJob& j : jobs) {
    if (j.row.state == QueueJobState::kSucceeded && meetable.insert(j.row.name).second)
      ready.push_back(j.row.name);
  }
  std::map<std::string, std::vector<size_t>> waiting_on;  // a name -> live jobs depending on it
  std::vector<size_t> remaining(jobs.size(), 0);
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!Live(jobs[i].row.state)) continue;
    const std::set<std::string> deps(jobs[i].request.depends_on.begin(),
                                     jobs[i].request.depends_on.end());
    for (const std::string& dep : deps) {
      if (meetable.count(dep) != 0) continue;
      waiting_on[dep].push_back(i);
      ++remaining[i];
    }
    if (remaining[i] == 0 && meetable.insert(jobs[i].row.name).second) {
      ready.push_back(jobs[i].row.name);
    }
  }
  while (!ready.empty()) {
    const std::string name = std::move(ready.back());
    ready.pop_back();
    const auto it = waiting_on.find(name);
    if (it == waiting_on.end()) continue;
    for (const size_t i : it->second) {
      if (--remaining[i] == 0 && meetable.insert(jobs[i].row.name).second) {
        ready.push_back(jobs[i].row.name);
      }
    }
  }
  return meetable;
}

}  // namespace

DependencyState CheckDependencies(const std::vector<std::string>& depends_on,
                                  const std::vector<LoadedJob>& jobs, int64_t self_id) {
  DependencyState out;
  std::optional<std::set<std::string>> meetable;  // computed once, when a dependency is live
  for (const std::string& dep : depends_on) {
    bool succeeded = false;
    bool live = false;
    const ledger::QueueJobRow* last_end = nullptr;  // the newest failed or cancelled one
    for (const LoadedJob& j : jobs) {
      if (j.row.id == self_id || j.row.name != dep) continue;
      succeeded = succeeded || j.row.state == QueueJobState::kSucceeded;
      live = live || Live(j.row.state);
      if (j.row.state == QueueJobState::kFailed || j.row.state == QueueJobState::kCancelled) {
        if (last_end == nullptr || j.row.id > last_end->id) last_end = &j.row;
      }
    }
    if (succeeded) continue;
    if (live) {
      if (!meetable) meetable = MeetableNames(jobs);
      if (meetable->count(dep) != 0) {
        out.unmet.push_back(dep);
        continue;
      }
      if (!out.never) {
        out.never = fmt::format(
            "'{}' can never succeed: every job of that name waits, through its depends_on, on a "
            "job that waits for it (a dependency cycle)",
            Abbreviate(dep));
      }
      continue;
    }
    if (out.never) continue;
    if (last_end == nullptr) {
      std::vector<std::string> names;
      for (const LoadedJob& j : jobs) names.push_back(j.row.name);
      out.never =
          fmt::format("no queue job is named '{}'{}", Abbreviate(dep), DidYouMean(dep, names));
    } else {
      out.never = fmt::format("'{}' {} (job {}{}{}) and no job of that name is waiting or running",
                              dep, ledger::QueueJobStateName(last_end->state), last_end->id,
                              last_end->reason.empty() ? "" : ": ", last_end->reason);
    }
  }
  return out;
}

}  // namespace frugal::queue

#include "frugal/queue/dependencies.h"

#include <fmt/format.h>

#include "frugal/core/text.h"

namespace frugal::queue {
namespace {

bool Live(const std::string& state) {
  return state == "waiting" || state == "held" || state == "starting" || state == "running";
}

}  // namespace

DependencyState CheckDependencies(const std::vector<std::string>& depends_on,
                                  const std::vector<LoadedJob>& jobs, int64_t self_id) {
  DependencyState out;
  for (const std::string& dep : depends_on) {
    bool succeeded = false;
    bool live = false;
    const ledger::QueueJobRow* last_end = nullptr;  // the newest failed or cancelled one
    for (const LoadedJob& j : jobs) {
      if (j.row.id == self_id || j.row.name != dep) continue;
      succeeded = succeeded || j.row.state == "succeeded";
      live = live || Live(j.row.state);
      if (j.row.state == "failed" || j.row.state == "cancelled") {
        if (last_end == nullptr || j.row.id > last_end->id) last_end = &j.row;
      }
    }
    if (succeeded) continue;
    if (live) {
      out.unmet.push_back(dep);
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
                              dep, last_end->state, last_end->id,
                              last_end->reason.empty() ? "" : ": ", last_end->reason);
    }
  }
  return out;
}

}  // namespace frugal::queue

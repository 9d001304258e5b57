#pragma once
// Hand-built step traces for the spot tests: "1" available, "0" not; spot costs $1 a step,
// on-demand $3.

#include <string>

#include "frugal/spot/job.h"

namespace frugal::spot::testing {

inline StepTrace MakeStepTrace(const std::string& pattern, double spot = 1, double od = 3) {
  StepTrace t;
  for (char ch : pattern) {
    t.available.push_back(ch == '1' ? 1 : 0);
    t.spot_cost.push_back(spot);
    t.on_demand_cost.push_back(od);
  }
  return t;
}

inline StepJob MakeJob(int compute, int deadline, int changeover, int checkpoint_cost = 0,
                       int checkpoint_every = 0, int notice = 0) {
  StepJob job;
  job.step_seconds = 600;
  job.compute = compute;
  job.deadline = deadline;
  job.changeover = changeover;
  job.checkpoint_cost = checkpoint_cost;
  job.checkpoint_every = checkpoint_cost > 0 ? (checkpoint_every > 0 ? checkpoint_every : 3) : 0;
  job.notice = notice;
  return job;
}

}  // namespace frugal::spot::testing

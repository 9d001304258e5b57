#pragma once
// What the run area's end-to-end tests share: the environment that lets a child import the
// Python helper, and the counter child (tests/unit/run/children/counter.py). Targets that use
// Counter define FRUGAL_PYTHON and FRUGAL_TEST_CHILDREN.

#include <string>
#include <vector>

#include "support/test_support.h"

namespace frugal::run::e2e {

/// PYTHONPATH=<source>/python, for a child that imports the frugal helper.
inline std::string PythonPath() {
  return "PYTHONPATH=" + (frugal::testing::SourceDir() / "python").string();
}

#ifdef FRUGAL_TEST_CHILDREN
/// The counter child: `steps` steps of `step_seconds`, a checkpoint every `every` steps.
inline std::vector<std::string> Counter(int steps, double step_seconds, int every) {
  return {FRUGAL_PYTHON, std::string(FRUGAL_TEST_CHILDREN) + "/counter.py", std::to_string(steps),
          std::to_string(step_seconds), std::to_string(every)};
}
#endif

/// `a` followed by `b`.
inline std::vector<std::string> Concat(std::vector<std::string> a,
                                       const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

}  // namespace frugal::run::e2e

#include "run_test_support.h"

#include <cstdlib>

#include "frugal/run/run_journal.h"
#include "support/test_support.h"

namespace frugal::run::testing {

void UsePythonHelper() {
  ::setenv("PYTHONPATH", (frugal::testing::SourceDir() / "python").c_str(), 1);
  ::setenv("PYTHONDONTWRITEBYTECODE", "1", 1);
}

std::vector<std::string> CounterCommand(int steps, double step_seconds, int checkpoint_every,
                                        int pad_bytes) {
  UsePythonHelper();
  return {FRUGAL_PYTHON,
          std::string(FRUGAL_TEST_CHILDREN) + "/counter.py",
          std::to_string(steps),
          std::to_string(step_seconds),
          std::to_string(checkpoint_every),
          std::to_string(pad_bytes)};
}

std::vector<std::string> Shell(const std::string& script) { return {"/bin/sh", "-c", script}; }

std::vector<nlohmann::json> Records(const std::filesystem::path& journal, const std::string& kind,
                                    const std::string& event_kind) {
  std::vector<nlohmann::json> out;
  for (nlohmann::json& r : ReadJournal(journal)) {
    if (r.value("record", "") != kind) continue;
    if (!event_kind.empty() && r.value("kind", "") != event_kind) continue;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace frugal::run::testing

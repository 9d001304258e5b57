#pragma once
// Helpers for the run area's tests: the counter child, journal queries.

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace frugal::run::testing {

/// argv running children/counter.py with the Python helper on PYTHONPATH.
std::vector<std::string> CounterCommand(int steps, double step_seconds, int checkpoint_every,
                                        int pad_bytes = 0);
/// argv for `sh -c script`.
std::vector<std::string> Shell(const std::string& script);
/// Makes the Python helper importable by children (sets PYTHONPATH in this process).
void UsePythonHelper();
/// Journal records of `kind` (and, for events, of `event_kind`).
std::vector<nlohmann::json> Records(const std::filesystem::path& journal, const std::string& kind,
                                    const std::string& event_kind = "");
using frugal::testing::CounterValue;

}  // namespace frugal::run::testing

#pragma once
// What the replay end-to-end tests share: a study given by flags over a synthetic table
// (tests/unit/tune/synthetic_table.h), and its --json result.

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/test_support.h"

namespace frugal::testing {

/// The one JSON document a command printed (a test failure when it is not one).
inline nlohmann::json Json(const CommandResult& r) {
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
  return doc;
}

/// `frugal tune --replay TABLE ... --json`: maximize `score` by epoch, at $3.60 per hour with
/// four workers and seed 2.
inline std::vector<std::string> ReplayStudyFlags(const std::filesystem::path& table,
                                                 const std::string& name, const std::string& budget,
                                                 const std::string& scheduler) {
  return {"tune",
          "--replay",
          table.string(),
          "--metric",
          "score",
          "--maximize",
          "--fidelity",
          "epoch",
          "--cost-column",
          "elapsed_s",
          "--price-per-hour",
          "3.6",
          "--budget",
          budget,
          "--scheduler",
          scheduler,
          "--workers",
          "4",
          "--seed",
          "2",
          "--name",
          name,
          "--json"};
}

}  // namespace frugal::testing

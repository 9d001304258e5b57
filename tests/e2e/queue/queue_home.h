#pragma once
// What the live-queue end-to-end tests share: a home with a capacity file and a ledger, the
// real binary run against them, job specs written there, and one scheduling pass.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/test_support.h"

namespace frugal {

struct QueueHome {
  testing::TempDir home;
  std::string cap;  ///< capacity.yaml
  std::string db;   ///< ledger.db

  explicit QueueHome(const std::string& capacity)
      : cap((home / "capacity.yaml").string()), db((home / "ledger.db").string()) {
    testing::WriteTestFile(cap, capacity);
  }
  /// `frugal --db DB ARGS...` in the home.
  testing::CommandResult Run(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    return testing::RunFrugal(args, home.path());
  }
  /// Writes NAME.yaml, a queue job named `name` with `body`, and returns its path.
  std::string Spec(const std::string& name, const std::string& body) {
    const std::string path = (home / (name + ".yaml")).string();
    testing::WriteTestFile(path,
                           "apiVersion: frugal/v1\nkind: QueueJob\nname: " + name + "\n" + body);
    return path;
  }
  /// One pass of the scheduling loop (`queue run --once`).
  void Pass() {
    auto r = Run({"queue", "run", "--once", "--capacity", cap});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
};

}  // namespace frugal

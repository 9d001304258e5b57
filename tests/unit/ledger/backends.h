#pragma once
// The two ledger backends as gtest type parameters: every typed test runs against a fresh
// SQLite file and a fresh schema on the real PostgreSQL server started by the fixture.

#include <gtest/gtest.h>

#include <string>

#include "frugal/ledger/ledger.h"
#include "postgres_server.h"
#include "support/test_support.h"

namespace frugal::ledger::testing {

struct SqliteBackend {
  static constexpr const char* kName = "sqlite";
  static bool Available(std::string& /*why*/) { return true; }
  std::string NewLocation() {
    return (dir / ("ledger" + std::to_string(++n) + ".sqlite")).string();
  }
  frugal::testing::TempDir dir;
  int n = 0;
};

struct PostgresBackend {
  static constexpr const char* kName = "postgres";
  static bool Available(std::string& why) {
    if (PostgresServer::Shared() != nullptr) return true;
    why = PostgresServer::why();
    return false;
  }
  std::string NewLocation() { return PostgresServer::Shared()->NewDatabaseUrl(); }
};

using Backends = ::testing::Types<SqliteBackend, PostgresBackend>;

struct BackendNames {
  template <typename T>
  static std::string GetName(int /*index*/) {
    return T::kName;
  }
};

/// Base fixture: a fresh location per test; skips when the backend cannot run here.
template <typename B>
class BackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    if (!B::Available(why)) GTEST_SKIP() << why;
    location_ = backend_.NewLocation();
    ASSERT_FALSE(location_.empty());
  }

  std::unique_ptr<Ledger> Open(const OpenOptions& options = {}) {
    Result<std::unique_ptr<Ledger>> ledger = Ledger::Open(location_, options);
    EXPECT_TRUE(ledger.has_value()) << (ledger ? "" : ledger.error().message);
    return ledger ? std::move(*ledger) : nullptr;
  }
  std::string NewLocation() { return backend_.NewLocation(); }

  B backend_;
  std::string location_;
};

}  // namespace frugal::ledger::testing

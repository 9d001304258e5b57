// The server over a real PostgreSQL ledger that restarts under it: the sessions the restart
// closed are dropped from the server's pool, so requests recover instead of failing forever.

#include <gtest/gtest.h>

#include "postgres_server.h"
#include "server_fixture.h"

namespace frugal::server_test {
namespace {

using ledger::testing::PostgresServer;

TEST(ServerOverPostgres, RequestsRecoverAfterTheDatabaseRestarts) {
  PostgresServer* pg = PostgresServer::Shared();
  if (pg == nullptr) GTEST_SKIP() << PostgresServer::why();
  const std::string url = pg->NewDatabaseUrl();
  ASSERT_FALSE(url.empty());
  ASSERT_TRUE(SeedFleet(url, ledger::Now()));
  server::ServerOptions o;
  o.listen = {"127.0.0.1", 0};
  o.db = url;
  o.threads = 2;
  RunningServer s(o);
  ASSERT_TRUE(s.ok());
  httplib::Client c = s.Client();
  // A few requests at once, so that the pool holds more than one session.
  std::vector<std::thread> readers;
  for (int i = 0; i < 4; ++i) {
    readers.emplace_back([&s] { EXPECT_EQ(s.Client().Get("/api/v1/runs")->status, 200); });
  }
  for (std::thread& t : readers) t.join();
  ASSERT_EQ(c.Get("/api/v1/runs")->status, 200);

  ASSERT_TRUE(pg->Restart());
  // Each pooled session fails once (the database went away under it) and is dropped;
  // then every request gets a fresh session.
  int failed = 0;
  int answered = 0;
  for (int i = 0; i < 20 && answered < 5; ++i) {
    const auto r = c.Get("/api/v1/runs");
    ASSERT_TRUE(r);
    if (r->status == 200) {
      ++answered;
    } else {
      EXPECT_EQ(answered, 0) << "a failure after recovery: " << r->body;
      EXPECT_GE(r->status, 500) << r->body;
      ++failed;
    }
  }
  EXPECT_EQ(answered, 5) << failed << " requests failed";
  EXPECT_LE(failed, 5);
}

}  // namespace
}  // namespace frugal::server_test

// frugal serve, the real binary: it starts and stops on SIGTERM, refuses a taken port and a
// dead database with exit 4, insists on a token off loopback, and cancels a real run.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <sys/wait.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "seed.h"
#include "support/test_support.h"

namespace frugal::server_test {
namespace {

using frugal::testing::RunFrugal;
using frugal::testing::StartFrugal;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

/// Waits for `pid` to exit (up to `limit`); its exit code, 128 + signal, or -1 on timeout.
int WaitExit(pid_t pid, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return -1;
}

/// Waits until something answers HTTP on the port.
bool AwaitHttp(int port, std::chrono::milliseconds limit) {
  const auto end = std::chrono::steady_clock::now() + limit;
  httplib::Client c("127.0.0.1", port);
  while (std::chrono::steady_clock::now() < end) {
    if (c.Get("/api/v1/runs")) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

class Serve : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(SeedFleet(db_, ledger::Now()));
    WriteTestFile(token_, "0123456789abcdef-token\n");
    std::filesystem::permissions(
        token_, std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
  }
  TempDir dir_;
  TempDir home_;
  std::filesystem::path db_ = dir_ / "ledger.sqlite";
  std::filesystem::path token_ = dir_ / "token";
};

TEST_F(Serve, ServesUntilSigtermAndThenExitsCleanly) {
  const int port = frugal::testing::FreeLoopbackPort();
  const pid_t pid = StartFrugal(
      {"serve", "--listen", fmt::format("127.0.0.1:{}", port), "--db", db_.string()}, home_.path());
  ASSERT_GT(pid, 0);
  ASSERT_TRUE(AwaitHttp(port, std::chrono::seconds(20)));
  httplib::Client c("127.0.0.1", port);
  const auto r = c.Get("/api/v1/runs");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_EQ(nlohmann::json::parse(r->body)["runs"].size(), 3U);
  ::kill(pid, SIGTERM);
  EXPECT_EQ(WaitExit(pid, std::chrono::seconds(10)), 0);
  EXPECT_FALSE(c.Get("/api/v1/runs"));
}

TEST_F(Serve, ATakenPortIsExit4NamingIt) {
  httplib::Server holder;
  const int port = holder.bind_to_any_port("127.0.0.1");
  ASSERT_GT(port, 0);
  const auto r = RunFrugal(
      {"serve", "--listen", fmt::format("127.0.0.1:{}", port), "--db", db_.string()}, home_.path());
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find(fmt::format("127.0.0.1:{}", port)), std::string::npos) << r.err;
}

TEST_F(Serve, ADeadDatabaseIsExit4) {
  const int port = frugal::testing::FreeLoopbackPort();
  const auto r = RunFrugal({"serve", "--listen", "127.0.0.1:0", "--db",
                            fmt::format("postgresql://frugal@127.0.0.1:{}/frugal", port)},
                           home_.path());
  EXPECT_EQ(r.exit_code, 4) << r.err;
  EXPECT_NE(r.err.find("127.0.0.1"), std::string::npos) << r.err;
}

TEST_F(Serve, OffLoopbackItNeedsAPrivateTokenFile) {
  auto r = RunFrugal({"serve", "--listen", "0.0.0.0:0", "--db", db_.string()}, home_.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--token-file"), std::string::npos) << r.err;
  std::filesystem::permissions(token_, std::filesystem::perms::others_read,
                               std::filesystem::perm_options::add);
  r = RunFrugal(
      {"serve", "--listen", "0.0.0.0:0", "--db", db_.string(), "--token-file", token_.string()},
      home_.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("chmod 600"), std::string::npos) << r.err;
  r = RunFrugal({"serve", "--listen", "nonsense", "--db", db_.string()}, home_.path());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--listen"), std::string::npos) << r.err;
}

TEST_F(Serve, CancelsARealRunWithTheTokenAndNotWithout) {
  const int port = frugal::testing::FreeLoopbackPort();
  const pid_t server = StartFrugal({"serve", "--listen", fmt::format("127.0.0.1:{}", port), "--db",
                                    db_.string(), "--token-file", token_.string()},
                                   home_.path());
  ASSERT_GT(server, 0);
  ASSERT_TRUE(AwaitHttp(port, std::chrono::seconds(20)));
  const pid_t run = StartFrugal(
      {"run", "--db", db_.string(), "--run-id", "sleeper", "--price", "2/h", "--", "sleep", "60"},
      home_.path());
  ASSERT_GT(run, 0);
  httplib::Client c("127.0.0.1", port);
  std::string status;
  for (int i = 0; i < 200 && status != "running"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const auto r = c.Get("/api/v1/runs/sleeper");
    if (r && r->status == 200) status = nlohmann::json::parse(r->body)["status"].get<std::string>();
  }
  ASSERT_EQ(status, "running");
  const auto refused = c.Post("/api/v1/runs/sleeper/cancel");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 401);
  EXPECT_EQ(WaitExit(run, std::chrono::milliseconds(500)), -1)
      << "the run stopped without the token";
  c.set_bearer_token_auth("0123456789abcdef-token");
  const auto done = c.Post("/api/v1/runs/sleeper/cancel");
  ASSERT_TRUE(done);
  EXPECT_EQ(done->status, 200) << done->body;
  EXPECT_EQ(WaitExit(run, std::chrono::seconds(30)), 130);
  const auto after = c.Get("/api/v1/runs/sleeper");
  ASSERT_TRUE(after);
  EXPECT_EQ(nlohmann::json::parse(after->body)["status"], "cancelled");
  ::kill(server, SIGTERM);
  EXPECT_EQ(WaitExit(server, std::chrono::seconds(10)), 0);
}

}  // namespace
}  // namespace frugal::server_test

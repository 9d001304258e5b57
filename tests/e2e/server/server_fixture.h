#pragma once
// What the server's tests share: a seeded ledger and a server started in this process on a
// free loopback port, with an HTTP client to it.

#include <gtest/gtest.h>
#include <httplib.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "frugal/server/server.h"
#include "seed.h"
#include "support/test_support.h"

namespace frugal::server_test {

/// A server over `db` serving from a thread until destroyed.
class RunningServer {
 public:
  explicit RunningServer(server::ServerOptions options) {
    auto started = server::Server::Start(options);
    if (!started) {
      ADD_FAILURE() << started.error().message;
      return;
    }
    server_ = std::move(*started);
    thread_ = std::thread([this] { served_ = server_->Serve(); });
    // Ready once the listener answers.
    httplib::Client probe("127.0.0.1", server_->port());
    for (int i = 0; i < 200 && !probe.Get("/api/v1/nothing"); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  ~RunningServer() {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
  }
  RunningServer(const RunningServer&) = delete;
  RunningServer& operator=(const RunningServer&) = delete;

  bool ok() const { return server_ != nullptr; }
  int port() const { return server_->port(); }
  httplib::Client Client() const {
    httplib::Client c("127.0.0.1", server_->port());
    c.set_read_timeout(30, 0);
    return c;
  }

 private:
  std::unique_ptr<server::Server> server_;
  std::thread thread_;
  Result<void> served_;
};

/// The body of a 200 response as JSON (a test failure otherwise).
inline nlohmann::json JsonOf(const httplib::Result& r) {
  if (!r) {
    ADD_FAILURE() << "no response: " << httplib::to_string(r.error());
    return {};
  }
  EXPECT_EQ(r->status, 200) << r->body;
  auto doc = nlohmann::json::parse(r->body, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r->body;
  return doc;
}

/// The one JSON document a command printed.
inline nlohmann::json JsonOf(const frugal::testing::CommandResult& r) {
  EXPECT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
  return doc;
}

}  // namespace frugal::server_test

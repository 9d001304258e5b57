// The server under attack from loopback, seeded (FRUGAL_ATTACK_SEED; FRUGAL_ATTACK_ROUNDS
// repeats each attack with fresh draws, bench/server/attack.sh runs the long version): Range
// headers that would multiply a file, idle and slow clients, a foreign Host or Origin (DNS
// rebinding, cross-site forms), posted specs that name files on the server, POSTs without a
// body, and unknown resources. Each attack ends by itself; the server must answer every
// well-formed request that follows.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <chrono>
#include <random>

#include "frugal/core/atomic_file.h"
#include "frugal/core/paths.h"
#include "raw_http.h"
#include "server_fixture.h"

namespace frugal::server_test {
namespace {

using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

constexpr const char* kToken = "0123456789abcdef-token";

uint64_t EnvNumber(const char* name, uint64_t fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::stoull(v) : fallback;
}

class Attack : public ::testing::Test {
 protected:
  void SetUp() override {
    const Result<SeededFleet> seeded = SeedFleet(db_, ledger::Now());
    ASSERT_TRUE(seeded) << seeded.error().message;
    fleet_ = *seeded;
    WriteTestFile(web_ / "index.html", "<!doctype html><title>frugal</title>\n");
    for (int i = 0; asset_.size() < 80'000; ++i) asset_ += fmt::format("const v{} = {};\n", i, i);
    WriteTestFile(web_ / "assets/index-5f3a.js", asset_);
    rng_.seed(EnvNumber("FRUGAL_ATTACK_SEED", 20261201));
    rounds_ = EnvNumber("FRUGAL_ATTACK_ROUNDS", 1);
  }
  server::ServerOptions Options() const {
    server::ServerOptions o;
    o.listen = {"127.0.0.1", 0};
    o.db = db_.string();
    o.token = kToken;
    o.web_dir = web_;
    o.threads = 8;
    return o;
  }
  static std::string Get(int port, const std::string& path, const std::string& extra = "") {
    return fmt::format("GET {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{}\r\n", path, port, extra);
  }
  static std::string PostPlan(int port, const std::string& origin, const std::string& body) {
    return fmt::format(
        "POST /api/v1/plan HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n{}Content-Type: text/plain\r\n"
        "Content-Length: {}\r\n\r\n{}",
        port, origin.empty() ? "" : "Origin: " + origin + "\r\n", body.size(), body);
  }
  size_t Draw(size_t below) { return std::uniform_int_distribution<size_t>(0, below - 1)(rng_); }

  TempDir dir_;
  std::filesystem::path db_ = dir_ / "ledger.sqlite";
  std::filesystem::path web_ = dir_ / "web";
  std::string asset_;
  SeededFleet fleet_;
  std::mt19937_64 rng_;
  uint64_t rounds_ = 1;
};

TEST_F(Attack, RangesNeverAnswerMoreThanTheFile) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  RawConnection c(s.port());
  ASSERT_TRUE(c.ok());
  const size_t size = asset_.size();
  // The reported request: 2,600 ranges of the whole file.
  std::string many = "bytes=0-";
  for (int i = 1; i < 2600; ++i) many += ",0-";
  auto whole = c.Exchange(Get(s.port(), "/assets/index-5f3a.js", "Range: " + many + "\r\n"));
  ASSERT_TRUE(whole);
  EXPECT_EQ(whole->status, 200) << whole->head;
  EXPECT_EQ(whole->body, asset_);
  // One range is served as asked.
  auto part = c.Exchange(Get(s.port(), "/assets/index-5f3a.js", "Range: bytes=100-199\r\n"));
  ASSERT_TRUE(part);
  EXPECT_EQ(part->status, 206) << part->head;
  EXPECT_EQ(part->body, asset_.substr(100, 100));
  EXPECT_NE(part->head.find(fmt::format("bytes 100-199/{}", size)), std::string::npos);
  auto past = c.Exchange(
      Get(s.port(), "/assets/index-5f3a.js", fmt::format("Range: bytes={}-\r\n", size + 5)));
  ASSERT_TRUE(past);
  EXPECT_EQ(past->status, 416);
  // Drawn lists of overlapping ranges: never more bytes than the file.
  for (uint64_t round = 0; round < 20 * rounds_; ++round) {
    std::string ranges = "bytes=";
    const size_t count = 1 + Draw(3000);
    for (size_t i = 0; i < count; ++i) {
      const size_t first = Draw(size);
      ranges += fmt::format("{}{}-{}", i > 0 ? "," : "", first, first + Draw(size));
    }
    // A header past the server's per-connection memory (32 KiB) is refused (431) and the
    // connection closed, perhaps before the client has finished sending it.
    RawConnection fresh(s.port());
    auto r = fresh.Exchange(Get(s.port(), "/assets/index-5f3a.js", "Range: " + ranges + "\r\n"));
    if (!r) {
      EXPECT_GT(ranges.size(), 16'000U) << "round " << round << ": no answer";
      continue;
    }
    EXPECT_TRUE(r->status == 200 || r->status == 206 || r->status == 431) << r->head;
    EXPECT_LE(r->body.size(), size) << "round " << round << ", " << count << " ranges";
  }
  auto after = RawConnection(s.port()).Exchange(Get(s.port(), "/assets/index-5f3a.js"));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->body, asset_);
}

/// Descriptors this process may open for idle connections (raising the soft limit to the
/// hard one): the server runs in this process and holds one per connection as well.
size_t IdleBudget(size_t wanted) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  limit.rlim_cur = limit.rlim_max;
  ::setrlimit(RLIMIT_NOFILE, &limit);
  ::getrlimit(RLIMIT_NOFILE, &limit);
  const size_t spare = 300;
  return limit.rlim_cur > 2 * spare ? std::min(wanted, (limit.rlim_cur - spare) / 2) : 0;
}

TEST_F(Attack, IdleAndSlowClientsDoNotLockOthersOut) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const size_t idle_count = IdleBudget(1000 * rounds_);
  ASSERT_GE(idle_count, 100U) << "too few descriptors for the attack";
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (size_t i = 0; i < idle_count; ++i) {
    idle.push_back(std::make_unique<RawConnection>(s.port()));
    ASSERT_TRUE(idle.back()->ok()) << "connection " << i;
  }
  // Clients that trickle their headers a few bytes at a time and never finish.
  const std::string slow_request = Get(s.port(), "/api/v1/runs?limit=1", "X-Slow: ");
  std::vector<std::unique_ptr<RawConnection>> slow;
  std::vector<size_t> sent;
  for (int i = 0; i < 70; ++i) {
    slow.push_back(std::make_unique<RawConnection>(s.port()));
    sent.push_back(1 + Draw(slow_request.size() - 1));
    ASSERT_TRUE(slow.back()->Send(std::string_view(slow_request).substr(0, sent.back())));
  }
  for (uint64_t round = 0; round < 3 * rounds_; ++round) {
    httplib::Client c = s.Client();
    c.set_read_timeout(20, 0);
    c.set_connection_timeout(20, 0);
    const auto asked = std::chrono::steady_clock::now();
    const auto r = c.Get("/api/v1/runs?limit=1");
    const auto took = std::chrono::steady_clock::now() - asked;
    ASSERT_TRUE(r) << "round " << round << ": " << httplib::to_string(r.error());
    EXPECT_EQ(r->status, 200);
    // Not a speed target: a server that makes a client wait for an idle one to time out (10 s)
    // locks it out. An answer takes milliseconds; 5 s is far from both.
    EXPECT_LT(took, std::chrono::seconds(5)) << "round " << round;
    for (size_t i = 0; i < slow.size(); ++i) {
      const size_t more = std::min<size_t>(1 + Draw(3), slow_request.size() - 1 - sent[i]);
      (void)slow[i]->Send(std::string_view(slow_request).substr(sent[i], more));
      sent[i] += more;
    }
  }
}

TEST_F(Attack, AForeignHostOrOriginIsRefused) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const int port = s.port();
  const std::string foreign[] = {"evil.example", "EVIL.example", "127.0.0.1.evil.example",
                                 "localhost.evil.example", "10.1.2.3"};
  for (uint64_t round = 0; round < 5 * rounds_; ++round) {
    const std::string& host = foreign[Draw(std::size(foreign))];
    for (const char* path : {"/api/v1/runs", "/metrics", "/", "/api/v1/runs/nlp-pretrain"}) {
      RawConnection c(port);
      auto r = c.Exchange(fmt::format("GET {} HTTP/1.1\r\nHost: {}:{}\r\nOrigin: http://{}\r\n\r\n",
                                      path, host, port, host));
      ASSERT_TRUE(r) << path;
      EXPECT_EQ(r->status, 421) << host << path;
      EXPECT_EQ(r->body.find("nlp-pretrain"), std::string::npos) << r->body;
    }
  }
  // Loopback names read as before.
  for (const std::string& host : {fmt::format("localhost:{}", port), fmt::format("[::1]:{}", port),
                                  fmt::format("127.0.0.1:{}", port)}) {
    RawConnection c(port);
    auto r = c.Exchange(fmt::format("GET /api/v1/runs HTTP/1.1\r\nHost: {}\r\n\r\n", host));
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << host;
  }
  // A page of another site posts a plan as text/plain (no preflight) or a cancel with the
  // token: refused; the dashboard's own page and programs (no Origin) are not.
  const std::string job =
      *ReadFile(frugal::testing::SourceDir() / "examples/plan/llama-7b-finetune.yaml");
  // A refusal before the body is read closes the connection: each on its own.
  auto cross = RawConnection(port).Exchange(PostPlan(port, "http://evil.example", job));
  ASSERT_TRUE(cross);
  EXPECT_EQ(cross->status, 403) << cross->body;
  RawConnection c(port);
  auto cancel = c.Exchange(
      fmt::format("POST /api/v1/runs/{}/cancel HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nOrigin: null\r\n"
                  "Authorization: Bearer {}\r\nContent-Length: 0\r\n\r\n",
                  fleet_.running_run, port, kToken));
  ASSERT_TRUE(cancel);
  EXPECT_EQ(cancel->status, 403) << cancel->body;
  auto own =
      RawConnection(port).Exchange(PostPlan(port, fmt::format("http://127.0.0.1:{}", port), job));
  ASSERT_TRUE(own);
  EXPECT_EQ(own->status, 200) << own->body;
  auto program = RawConnection(port).Exchange(PostPlan(port, "", job));
  ASSERT_TRUE(program);
  EXPECT_EQ(program->status, 200) << program->body;
}

TEST_F(Attack, APostedSpecCannotNameFilesOnTheServer) {
  // A file beside the drills directory: a name with "../" reached it.
  WriteTestFile(UserDataDir() / "outside.json", "{\"not\": \"a drill\"}\n");
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // The shipped example ends in its fault_tolerance section.
  const std::string head =
      *ReadFile(frugal::testing::SourceDir() / "examples/plan/llama-7b-finetune.yaml");
  const std::string outside = (UserDataDir() / "outside").string();
  const std::string drills[] = {
      "/etc/passwd", "/root/.ssh/id_rsa", "../outside",         "../../../../../../etc/passwd",
      outside,       "\"probe\\0\"",      "\"/etc/shadow\\0\"", ".."};
  const std::string profiles[] = {"/etc/passwd", "../outside", outside, "\"x\\0\"", "."};
  std::vector<std::string> specs;
  for (const std::string& d : drills) specs.push_back(head + "  drill: " + d + "\n");
  for (const std::string& p : profiles) {
    specs.push_back(head + "measured:\n  - {gpu: H100, gpus: 8, profile: " + p + "}\n");
  }
  httplib::Client c = s.Client();
  for (uint64_t round = 0; round < rounds_; ++round) {
    for (size_t i = 0; i < specs.size(); ++i) {
      const std::string& spec = specs[(i + Draw(specs.size())) % specs.size()];
      const auto r = c.Post("/api/v1/plan", spec, "application/yaml");
      ASSERT_TRUE(r);
      EXPECT_EQ(r->status, 400) << spec << r->body;
      EXPECT_NE(r->body.find("give a name of"), std::string::npos) << spec << r->body;
      EXPECT_EQ(r->body.find(UserDataDir().string()), std::string::npos) << r->body;
    }
  }
  // A job named like a path is refused at its line (the one file-name rule), so it is never
  // looked up as a drill record either.
  std::string renamed = head;
  renamed.replace(renamed.find("name: llama-7b-finetune"), 23, "name: ../outside");
  const auto named = c.Post("/api/v1/plan", renamed, "application/yaml");
  ASSERT_TRUE(named);
  EXPECT_EQ(named->status, 400) << named->body;
  EXPECT_NE(named->body.find("field 'name'"), std::string::npos) << named->body;
}

TEST_F(Attack, APostWithoutABodyIsAnsweredAtOnce) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  RawConnection c(s.port());
  // No Content-Length and no Transfer-Encoding: an empty body (RFC 9112), not a wait for one.
  const std::string cancel = fmt::format(
      "POST /api/v1/runs/{}/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\n", fleet_.running_run);
  auto none = c.Exchange(cancel + "\r\n");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401) << none->body;
  auto told = c.Exchange(cancel + fmt::format("Authorization: Bearer {}\r\n\r\n", kToken));
  ASSERT_TRUE(told);
  EXPECT_EQ(told->status, 400) << told->body;
  EXPECT_NE(told->body.find("no supervisor"), std::string::npos) << told->body;
  auto plan = c.Exchange("POST /api/v1/plan HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->status, 400) << plan->body;
  EXPECT_EQ(plan->body.find("Content-Length"), std::string::npos) << plan->body;
}

// A client with a wrong token is answered from the headers: it never gets the server to take in
// the body it announces (here 4 MiB it does not send).
TEST_F(Attack, AWrongTokenIsRefusedBeforeTheBody) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  RawConnection c(s.port());
  ASSERT_TRUE(
      c.Send(fmt::format("POST /api/v1/runs/{}/cancel HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                         "Authorization: Bearer not-the-token-at-all\r\n"
                         "Content-Type: application/json\r\n"
                         "Content-Length: 4194304\r\n\r\n",
                         fleet_.running_run)));
  const auto refused = c.Read(std::chrono::seconds(10));
  ASSERT_TRUE(refused) << "no answer before the body";
  EXPECT_EQ(refused->status, 403) << refused->body;
  EXPECT_NE(refused->body.find("wrong token"), std::string::npos) << refused->body;
}

TEST_F(Attack, UnknownResourcesAre404AndNameNoServerPath) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  httplib::Client c = s.Client();
  for (const char* path :
       {"/api/v1/runs/no-such-run", "/api/v1/runs/no-such-run/samples", "/api/v1/studies/nope",
        "/api/v1/studies/nope/curves", "/api/v1/nothing"}) {
    const auto r = c.Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, 404) << path << r->body;
    EXPECT_EQ(r->body.find(UserDataDir().string()), std::string::npos) << r->body;
    EXPECT_EQ(r->body.find(dir_.path().string()), std::string::npos) << r->body;
    const nlohmann::json doc = nlohmann::json::parse(r->body, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r->body;
    EXPECT_EQ(doc["error"]["status"], 404);
  }
  const auto post = c.Post("/api/v1/nothing", "", "text/plain");
  ASSERT_TRUE(post);
  EXPECT_EQ(post->status, 404);
  const auto file = c.Get("/no-such-file.js");
  ASSERT_TRUE(file);
  EXPECT_EQ(file->status, 404);
}

}  // namespace
}  // namespace frugal::server_test

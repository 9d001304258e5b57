// /metrics: the seeded fleet's figures in the Prometheus text format, checked by promtool's own
// parser and scraped by a real Prometheus started on loopback.

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "server_fixture.h"

namespace frugal::server_test {
namespace {

using frugal::testing::RunProgram;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

class Metrics : public ::testing::Test {
 protected:
  void SetUp() override {
    const Result<SeededFleet> seeded = SeedFleet(db_, ledger::Now());
    ASSERT_TRUE(seeded) << seeded.error().message;
    WriteTestFile(thresholds_, "budgets:\n  - {team: nlp, amount: 1000, period: month}\n");
  }
  server::ServerOptions Options() const {
    server::ServerOptions o;
    o.listen = {"127.0.0.1", 0};
    o.db = db_.string();
    o.thresholds = thresholds_;
    o.threads = 4;
    return o;
  }
  TempDir dir_;
  std::filesystem::path db_ = dir_ / "ledger.sqlite";
  std::filesystem::path thresholds_ = dir_ / "audit.yaml";
};

/// The value of the one sample `series` (name and labels exactly as exposed), or NaN.
double Sample(const std::string& exposition, const std::string& series) {
  const size_t at = exposition.find("\n" + series + " ");
  if (at == std::string::npos) return std::nan("");
  return std::stod(exposition.substr(at + series.size() + 2));
}

TEST_F(Metrics, ExposesTheFleetInPrometheusConventions) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const auto r = s.Client().Get("/metrics");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200);
  EXPECT_NE(r->get_header_value("Content-Type").find("version=0.0.4"), std::string::npos);
  const std::string& m = r->body;
  // nlp-pretrain: 3 h spot at $12.00/h, 2 h on demand at $32.77/h; vision: 5 h at $4.10/h.
  EXPECT_DOUBLE_EQ(
      Sample(m, R"(frugal_spend_dollars_total{team="nlp",project="assistant",tier="on_demand"})"),
      65.54);
  EXPECT_DOUBLE_EQ(
      Sample(m, R"(frugal_spend_dollars_total{team="vision",project="detector",tier="on_demand"})"),
      20.5);
  EXPECT_DOUBLE_EQ(
      Sample(m, R"(frugal_gpu_seconds_total{team="vision",project="detector",tier="on_demand"})"),
      5 * 3600.0);
  // nlp-live runs now on 8 spot H100s at $25.00/h.
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_burn_rate_dollars_per_hour{team="nlp",tier="spot"})"), 25.0);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_runs_running{tier="spot"})"), 1);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_gpus_running{tier="spot"})"), 8);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_preemptions_total{tier="spot"})"), 1);
  // Preempted at 3 h; the last checkpoint was at 2 h 20 min: 40 minutes lost.
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_lost_work_seconds_total{tier="spot"})"), 2400);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_budget_dollars{budget="team nlp",period="month"})"), 1000);
  const double used = Sample(m, R"(frugal_budget_used_ratio{budget="team nlp",period="month"})");
  EXPECT_GT(used, 0.0);
  EXPECT_LT(used, 1.0);
  EXPECT_DOUBLE_EQ(Sample(m, "frugal_checkpoint_commit_duration_seconds_count"), 2);
  EXPECT_DOUBLE_EQ(Sample(m, "frugal_checkpoint_commit_duration_seconds_sum"), 13.5);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_checkpoint_commit_duration_seconds_bucket{le="5"})"), 1);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_checkpoint_resume_duration_seconds_bucket{le="30"})"), 0);
  EXPECT_DOUBLE_EQ(Sample(m, R"(frugal_checkpoint_resume_duration_seconds_bucket{le="60"})"), 1);

  // promtool parses it and finds nothing against the conventions.
  const std::filesystem::path file = dir_ / "metrics.txt";
  WriteTestFile(file, m);
  const auto checked = RunProgram({"/bin/sh", "-c", "promtool check metrics < " + file.string()});
  if (checked.exit_code == 127) GTEST_SKIP() << "promtool is not installed (Debian prometheus)";
  EXPECT_EQ(checked.exit_code, 0) << checked.out << checked.err;
}

TEST_F(Metrics, AScrapeAfterTheLedgerChangedSeesTheChange) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const std::string before = s.Client().Get("/metrics")->body;
  EXPECT_DOUBLE_EQ(Sample(before, R"(frugal_runs_running{tier="spot"})"), 1);
  // The same history twice: the second scrape reuses the first's sums, and agrees.
  const std::string again = s.Client().Get("/metrics")->body;
  const std::string ended =
      R"(frugal_spend_dollars_total{team="vision",project="detector",tier="on_demand"})";
  EXPECT_DOUBLE_EQ(Sample(again, ended), Sample(before, ended));
  ASSERT_TRUE(FinishLive(db_, ledger::Now()));
  const std::string after = s.Client().Get("/metrics")->body;
  EXPECT_TRUE(std::isnan(Sample(after, R"(frugal_runs_running{tier="spot"})"))) << after;
  // Its 2 h on spot H100s at $25.00/h now count among the ended segments.
  EXPECT_GE(
      Sample(after, R"(frugal_spend_dollars_total{team="nlp",project="assistant",tier="spot"})"),
      36.0 + 50.0);
}

/// A Prometheus on loopback scraping `target` every second, with a fresh store; stopped and
/// reaped when destroyed.
class Prometheus {
 public:
  Prometheus(const std::filesystem::path& dir, int target) {
    port_ = frugal::testing::FreeLoopbackPort();
    WriteTestFile(dir / "prometheus.yml",
                  fmt::format("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: "
                              "frugal\n    static_configs:\n      - targets: [\"127.0.0.1:{}\"]\n",
                              target));
    const std::vector<std::string> argv = {"prometheus",
                                           "--config.file=" + (dir / "prometheus.yml").string(),
                                           "--storage.tsdb.path=" + (dir / "tsdb").string(),
                                           fmt::format("--web.listen-address=127.0.0.1:{}", port_)};
    const std::string log = (dir / "prometheus.log").string();
    pid_ = ::fork();
    if (pid_ == 0) {
      std::freopen(log.c_str(), "w", stderr);
      std::vector<char*> args;
      for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
      args.push_back(nullptr);
      ::execvp("prometheus", args.data());
      ::_exit(127);
    }
  }
  ~Prometheus() {
    if (pid_ > 0) {
      ::kill(pid_, SIGTERM);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  Prometheus(const Prometheus&) = delete;
  Prometheus& operator=(const Prometheus&) = delete;

  /// An instant query's result vector, or null when Prometheus does not answer.
  nlohmann::json Query(const std::string& promql) const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(5, 0);
    const auto r = c.Get("/api/v1/query", httplib::Params{{"query", promql}}, httplib::Headers{});
    if (!r || r->status != 200) return nullptr;
    const auto doc = nlohmann::json::parse(r->body, nullptr, false);
    return doc.is_discarded() ? nlohmann::json() : doc["data"]["result"];
  }
  /// Waits (up to `limit`) until `promql` returns at least one sample.
  nlohmann::json Await(const std::string& promql, std::chrono::seconds limit) const {
    const auto end = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < end) {
      nlohmann::json result = Query(promql);
      if (result.is_array() && !result.empty()) return result;
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    return nullptr;
  }

 private:
  int port_ = 0;
  pid_t pid_ = -1;
};

TEST_F(Metrics, ARealPrometheusScrapesThem) {
  if (RunProgram({"/bin/sh", "-c", "command -v prometheus"}).exit_code != 0) {
    GTEST_SKIP() << "prometheus is not installed (Debian prometheus)";
  }
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  Prometheus prometheus(dir_.path(), s.port());
  const nlohmann::json up = prometheus.Await(
      fmt::format("up{{instance=\"127.0.0.1:{}\"}} == 1", s.port()), std::chrono::seconds(60));
  ASSERT_FALSE(up.is_null()) << frugal::testing::ReadTestFile(dir_ / "prometheus.log");
  const nlohmann::json spend = prometheus.Await(
      R"(sum by (team) (frugal_spend_dollars_total{team="vision"}))", std::chrono::seconds(10));
  ASSERT_FALSE(spend.is_null());
  EXPECT_EQ(spend[0]["value"][1], "20.5");
  const nlohmann::json gpus =
      prometheus.Await(R"(frugal_gpus_running{tier="spot"})", std::chrono::seconds(10));
  ASSERT_FALSE(gpus.is_null());
  EXPECT_EQ(gpus[0]["value"][1], "8");
  const nlohmann::json p90 =
      prometheus.Await("histogram_quantile(0.9, frugal_checkpoint_commit_duration_seconds_bucket)",
                       std::chrono::seconds(10));
  ASSERT_FALSE(p90.is_null());
  const double seconds = std::stod(p90[0]["value"][1].get<std::string>());
  EXPECT_GT(seconds, 5.0);  // one of the two commits took 9 s
  EXPECT_LE(seconds, 10.0);
}

}  // namespace
}  // namespace frugal::server_test

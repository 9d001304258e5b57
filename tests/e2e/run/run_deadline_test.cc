// End-to-end: `frugal run --deadline --compute` asks the deadline policy after every
// preemption whether to wait for spot or move to on-demand, records the advice (journal and
// ledger) and states the tier to resume on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "frugal/run/run_journal.h"
#include "run_e2e_support.h"
#include "support/test_support.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using e2e::Concat;
using e2e::Counter;
using e2e::PythonPath;
using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using nlohmann::json;

std::vector<json> AdviceEvents(const fs::path& run_dir) {
  std::vector<json> out;
  for (const json& r : ReadJournal(run_dir / "journal.jsonl")) {
    if (r.value("record", "") == "event" && r.value("kind", "") == "spot_advice") out.push_back(r);
  }
  return out;
}

// Spare time at the start: deadline 17 s − compute 12 s − changeover 1 s = 4 s (the command
// does 8 s of work: it stops before the compute it was announced with), on a market
// believed to keep spot about 4 s and to give it back within about a second (the chaos source's
// time scale). Each preemption costs the run a restart, the work since its last checkpoint and
// the restart backoff (1 s, then 2 s: more than the spare time left by then, however fast the
// machine), so the policy first waits for spot and, once less than a step (1 s) is left, must
// move to on-demand.
TEST(RunDeadline, AdviceMovesToOnDemandWhenTheSlackRunsOut) {
  TempDir home;
  const fs::path run_dir = home.path() / "run";
  auto r = RunFrugal(Concat({"--json",
                             "run",
                             "--price",
                             "1/h",
                             "--tier",
                             "spot",
                             "--run-id",
                             "D1",
                             "--run-dir",
                             run_dir.string(),
                             "--restart",
                             "local",
                             "--max-restarts",
                             "3",
                             "--restart-backoff",
                             "1s",
                             "--chaos-preempt-every",
                             "2s",
                             "--chaos-max",
                             "3",
                             "--seed",
                             "3",
                             "--grace",
                             "5s",
                             "--deadline",
                             "17s",
                             "--compute",
                             "12s",
                             "--changeover",
                             "1s",
                             "--spot-lifetime",
                             "4s",
                             "--spot-outage",
                             "1s",
                             "--"},
                            Counter(160, 0.05, 4)),
                     home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json doc = json::parse(r.out);
  const std::vector<json> advice = AdviceEvents(run_dir);
  ASSERT_EQ(static_cast<int>(advice.size()), doc["preemptions"].get<int>()) << r.err;
  ASSERT_EQ(advice.size(), 3u) << r.err;
  const std::string first = advice.front()["detail"];
  const std::string last = advice.back()["detail"];
  EXPECT_EQ(first.rfind("wait_for_spot:", 0), 0u) << first;
  EXPECT_EQ(last.rfind("on_demand:", 0), 0u) << last << "\n" << r.err;
  // Once on-demand is advised, it stays advised: the spare time does not come back.
  bool on_demand = false;
  for (const json& e : advice) {
    const std::string detail = e["detail"];
    if (on_demand) {
      EXPECT_EQ(detail.rfind("on_demand:", 0), 0u) << detail;
    }
    on_demand = on_demand || detail.rfind("on_demand:", 0) == 0;
  }
  EXPECT_EQ(doc["recommended_tier"], "on_demand");
  EXPECT_NE(doc["advice"].get<std::string>().find("to spare"), std::string::npos);
  // The ledger has the advice too, as notes.
  auto shown = RunFrugal({"--json", "runs", "list"}, home.path());
  ASSERT_EQ(shown.exit_code, 0) << shown.err;
  const json list = json::parse(shown.out);
  ASSERT_EQ(list["runs"].size(), 1u);
  auto show =
      RunFrugal({"--json", "runs", "show", std::to_string(list["runs"][0]["id"].get<int64_t>())},
                home.path());
  ASSERT_EQ(show.exit_code, 0) << show.err;
  const json shown_run = json::parse(show.out);
  int notes = 0;
  for (const json& e : shown_run["events"]) {
    if (e["type"] == "note" && e["payload"]["kind"] == "spot_advice") ++notes;
  }
  EXPECT_EQ(notes, static_cast<int>(advice.size())) << show.out;
}

TEST(RunDeadline, RequeueStatesTheTierToResumeOn) {
  TempDir home;
  auto r = RunFrugal(Concat({"run", "--price", "1/h", "--tier", "spot", "--run-id", "D2",
                             "--chaos-preempt-every", "600ms", "--chaos-max", "1", "--grace", "5s",
                             "--deadline", "4h", "--compute", "10m", "--"},
                            Counter(200, 0.05, 5)),
                     home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 75) << r.err;  // requeue me
  // Hours to spare: wait for spot.
  EXPECT_NE(r.out.find("requeue to resume (run id D2) on spot"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("wait_for_spot"), std::string::npos) << r.out;
}

TEST(RunDeadline, BadDeadlineFlagsExitTwo) {
  TempDir home;
  auto one =
      RunFrugal({"run", "--price", "1/h", "--deadline", "10h", "--", "/bin/true"}, home.path());
  EXPECT_EQ(one.exit_code, 2);
  EXPECT_NE(one.err.find("--compute"), std::string::npos) << one.err;
  auto bad = RunFrugal(
      {"run", "--price", "1/h", "--deadline", "soon", "--compute", "1h", "--", "/bin/true"},
      home.path());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--deadline"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace frugal::run

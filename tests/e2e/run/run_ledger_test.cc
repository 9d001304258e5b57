// End-to-end: `frugal run` records into the ledger (SQLite by default, PostgreSQL with --db),
// and `frugal runs show` / `frugal report` read back the segments and the exact spend.

#include <gtest/gtest.h>
#include <signal.h>

#include <nlohmann/json.hpp>
#include <thread>

#include "frugal/core/money.h"
#include "frugal/ledger/ledger.h"
#include "frugal/ledger/types.h"
#include "frugal/run/child_process.h"
#include "frugal/run/run_journal.h"
#include "postgres_server.h"
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

/// `frugal --json ARGS` parsed; fails the test on a non-zero exit.
json JsonOf(const std::vector<std::string>& args, const fs::path& home) {
  auto r = RunFrugal(Concat({"--json"}, args), home);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  return doc;
}

/// The ledger's run recorded under `name`, as `runs show --json` prints it.
json ShowRun(const std::string& name, const fs::path& home,
             const std::vector<std::string>& db = {}) {
  const json list = JsonOf(Concat(db, {"runs", "list"}), home);
  for (const json& run : list["runs"]) {
    if (run["name"] == name)
      return JsonOf(Concat(db, {"runs", "show", std::to_string(run["id"].get<int64_t>())}), home);
  }
  ADD_FAILURE() << "no run named " << name << " in " << list.dump();
  return json::object();
}

/// Waits until the ledger has heard nothing of run `name` for longer than `stale`: past its last
/// heartbeat, the time `ledger sweep --stale` compares, so the sweep that follows finds it. A
/// fixed sleep would guess at when that heartbeat landed.
void WaitUntilSilent(const std::string& name, const fs::path& home, Duration stale) {
  const int64_t id = ShowRun(name, home)["id"].get<int64_t>();
  const Result<ledger::Run> run = [&]() -> Result<ledger::Run> {
    auto db = FRUGAL_TRY(ledger::Ledger::Open((home / "data" / "ledger.sqlite").string()));
    return db->GetRun(id);
  }();
  ASSERT_TRUE(run.has_value()) << run.error().message;
  ASSERT_TRUE(run->heartbeat.has_value()) << name << " never heartbeat";
  const ledger::Timestamp due = *run->heartbeat + stale + std::chrono::milliseconds(20);
  for (ledger::Timestamp now = ledger::Now(); now < due; now = ledger::Now()) {
    std::this_thread::sleep_for(due - now);
  }
}

ledger::Timestamp TimeOf(const json& j) {
  auto t = ledger::ParseTimestamp(j.get<std::string>());
  EXPECT_TRUE(t.has_value()) << j;
  return t.value_or(ledger::Timestamp{});
}

/// Waits (20 s at most) until the journal at `journal` holds a `kind` record (heartbeat, sample)
/// at least `span` after its first segment opened: the run has then provably gone on that long,
/// however long its start took on a loaded machine.
void WaitForJournalSpan(const fs::path& journal, const std::string& kind, Duration span) {
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  const auto reached = [&] {
    std::optional<ledger::Timestamp> opened;
    for (const json& r : ReadJournal(journal)) {
      if (!opened && r["record"] == "segment_opened") opened = TimeOf(r["at"]);
      if (opened && r["record"] == kind && TimeOf(r["at"]) - *opened >= span) return true;
    }
    return false;
  };
  while (!reached()) {
    ASSERT_LT(std::chrono::steady_clock::now(), give_up)
        << "no " << kind << " " << span.count() << " ms into " << journal;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

/// Sum over segments of price × (end − start), exact to the micro-dollar.
Money ExpectedSpend(const json& show) {
  Money total;
  for (const json& seg : show["segments"]) {
    const Rate price{Money::Parse(seg["price_per_hour_usd"].get<std::string>()).value()};
    const Duration length =
        std::chrono::duration_cast<Duration>(TimeOf(seg["end"]) - TimeOf(seg["start"]));
    EXPECT_GE(length.count(), 0);
    total += price.For(length);
  }
  return total;
}

std::vector<std::string> EventTypes(const json& show) {
  std::vector<std::string> types;
  for (const json& e : show["events"]) types.push_back(e["type"]);
  return types;
}

int Count(const std::vector<std::string>& v, const std::string& what) {
  return static_cast<int>(std::count(v.begin(), v.end(), what));
}

void ExpectFinishedRunWithExactSpend(const fs::path& home, const std::vector<std::string>& db) {
  auto r =
      RunFrugal(Concat(db, Concat({"run", "--price", "3.60/h", "--budget", "5", "--tag", "team=nlp",
                                   "--tag", "project=x", "--tag", "owner=ana", "--tag", "ticket=42",
                                   "--run-id", "L1", "--sample-interval", "100ms", "--"},
                                  Counter(8, 0.05, 4))),
                home, {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json show = ShowRun("L1", home, db);
  EXPECT_EQ(show["status"], "succeeded");
  EXPECT_EQ(show["tags"]["team"], "nlp");
  EXPECT_EQ(show["tags"]["owner"], "ana");
  EXPECT_EQ(show["tags"]["ticket"], "42");
  EXPECT_EQ(show["budget_usd"], "5");
  ASSERT_EQ(show["segments"].size(), 1u);
  const json& seg = show["segments"][0];
  EXPECT_EQ(seg["end_reason"], "finished");
  EXPECT_EQ(seg["cloud"], "custom");
  EXPECT_EQ(seg["tier"], "on_demand");
  EXPECT_EQ(seg["price_per_hour_usd"], "3.6");
  const Money spend = ExpectedSpend(show);
  EXPECT_GT(spend, Money());
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), spend.micros());
  EXPECT_EQ(Count(EventTypes(show), "checkpoint_committed"), 2) << show["events"].dump();
  EXPECT_GT(show["utilization"]["samples"].get<int64_t>(), 0);
  EXPECT_FALSE(show["utilization"]["cpu_util_percent"].is_null());

  const json report = JsonOf(Concat(db, {"report", "--by", "team"}), home);
  ASSERT_EQ(report["rows"].size(), 1u) << report.dump();
  EXPECT_EQ(report["rows"][0]["team"], "nlp");
  EXPECT_EQ(report["total"]["spend_micros"].get<int64_t>(), spend.micros());
  EXPECT_EQ(report["total"]["successful_runs"], 1);
}

TEST(RunLedger, FinishedRunHasItsSegmentTagsAndExactSpendInShowAndReport) {
  TempDir home;
  ExpectFinishedRunWithExactSpend(home.path(), {});
  EXPECT_TRUE(fs::exists(home / "data" / "ledger.sqlite"));  // the default ledger
  // The run id `frugal run` printed finds it too.
  EXPECT_EQ(JsonOf({"runs", "show", "L1"}, home.path())["name"], "L1");
}

TEST(RunLedger, RecordsIntoPostgresWithDb) {
  auto* server = ledger::testing::PostgresServer::Shared();
  if (server == nullptr) GTEST_SKIP() << ledger::testing::PostgresServer::why();
  TempDir home;
  ExpectFinishedRunWithExactSpend(home.path(), {"--db", server->NewDatabaseUrl()});
  EXPECT_FALSE(fs::exists(home / "data" / "ledger.sqlite"));
}

TEST(RunLedger, ARunInASharedPostgresLedgerIsRefusedToASecondHostUntilItsSupervisorDies) {
  auto* server = ledger::testing::PostgresServer::Shared();
  if (server == nullptr) GTEST_SKIP() << ledger::testing::PostgresServer::why();
  // Two hosts: each has its own FRUGAL_HOME (so its own FileLock), and they share the ledger.
  TempDir host_a;
  TempDir host_b;
  const std::string db = server->NewDatabaseUrl();
  const std::vector<std::string> args = {
      FRUGAL_BINARY, "-q",    "--db",     db,   "run",
      "--price",     "3.6/h", "--run-id", "S1", "--heartbeat-interval",
      "200ms",       "--",    "/bin/sh",  "-c", "exec sleep 30"};
  auto frugal =
      ChildProcess::Spawn({args, {{"FRUGAL_HOME", host_a.path().string()}}, ChildStdout::kInherit});
  ASSERT_TRUE(frugal.has_value());
  const auto running = [&] {
    auto list = RunFrugal({"--json", "--db", db, "runs", "list"}, host_b.path());
    return list.exit_code == 0 && list.out.find("\"S1\"") != std::string::npos;
  };
  for (int i = 0; i < 100 && !running(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(running());

  auto second = RunFrugal(
      {"--db", db, "run", "--price", "3.6/h", "--run-id", "S1", "--", "/bin/true"}, host_b.path());
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("run 'S1' is in use by another frugal process on postgresql://"),
            std::string::npos)
      << second.err;
  EXPECT_EQ(ShowRun("S1", host_b.path(), {"--db", db})["segments"].size(), 1u);

  // The claim dies with the supervisor's connection: the second host may now take the run over.
  (*frugal)->SignalGroup(SIGKILL);
  (*frugal)->WaitFor(std::chrono::seconds(10));
  auto again = RunFrugal(
      {"--db", db, "run", "--price", "3.6/h", "--run-id", "S1", "--", "/bin/true"}, host_b.path());
  for (int i = 0; i < 50 && again.exit_code == 2; ++i) {  // the server notices the drop
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    again = RunFrugal({"--db", db, "run", "--price", "3.6/h", "--run-id", "S1", "--", "/bin/true"},
                      host_b.path());
  }
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(ShowRun("S1", host_b.path(), {"--db", db})["status"], "succeeded");
}

TEST(RunLedger, CatalogOfferRecordsItsOnDemandTwin) {
  TempDir home;
  auto r = RunFrugal({"run", "--offer", "aws:g4dn.xlarge:us-east-1/use1-az2:spot", "--run-id", "L2",
                      "--", "/bin/sh", "-c", "sleep 0.3"},
                     home.path());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json show = ShowRun("L2", home.path());
  ASSERT_EQ(show["segments"].size(), 1u);
  const json& seg = show["segments"][0];
  EXPECT_EQ(seg["cloud"], "aws");
  EXPECT_EQ(seg["instance_type"], "g4dn.xlarge");
  EXPECT_EQ(seg["zone"], "use1-az2");
  EXPECT_EQ(seg["gpu"], "T4");
  EXPECT_EQ(seg["tier"], "spot");
  EXPECT_EQ(seg["price_per_hour_usd"], "0.2");
  EXPECT_EQ(seg["on_demand_price_per_hour_usd"], "0.526");
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
}

TEST(RunLedger, ChaosPreemptedLocalRestartsAreOneSegmentPerStretch) {
  TempDir home;
  auto r = RunFrugal(Concat({"run",   "--price",           "2/h",   "--tier",
                             "spot",  "--run-id",          "L3",    "--restart",
                             "local", "--restart-backoff", "100ms", "--chaos-preempt-every",
                             "700ms", "--chaos-max",       "2",     "--seed",
                             "7",     "--grace",           "5s",    "--"},
                            // Work enough that neither notice (at most 1.05 s after each
                            // first progress) comes after the last step, even under load.
                            Counter(60, 0.08, 10)),
                     home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json show = ShowRun("L3", home.path());
  EXPECT_EQ(show["status"], "succeeded");
  ASSERT_EQ(show["segments"].size(), 3u) << show.dump();
  EXPECT_EQ(show["segments"][0]["end_reason"], "preempted");
  EXPECT_EQ(show["segments"][1]["end_reason"], "preempted");
  EXPECT_EQ(show["segments"][2]["end_reason"], "finished");
  for (const json& seg : show["segments"]) EXPECT_EQ(seg["tier"], "spot");
  const auto types = EventTypes(show);
  EXPECT_EQ(Count(types, "preemption_notice"), 2);
  EXPECT_EQ(Count(types, "preempted"), 2);
  EXPECT_EQ(Count(types, "resumed"), 2);
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
}

TEST(RunLedger, LocalRestartsArePricedThroughTheBackoffAndTheSummarySpendIsTheLedgers) {
  TempDir home;
  // Backoffs of 300 ms and 600 ms: the capacity is held through both, so they are spend.
  auto r = RunFrugal(Concat({"--json", "run", "--price", "36/h", "--run-id", "L10", "--restart",
                             "local", "--restart-backoff", "300ms", "--chaos-preempt-every",
                             "600ms", "--chaos-max", "2", "--seed", "3", "--grace", "5s", "--"},
                            Counter(50, 0.08, 5)),
                     home.path(), {PythonPath()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const json summary = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(summary.is_discarded()) << r.out;
  const json show = ShowRun("L10", home.path());
  ASSERT_EQ(show["segments"].size(), 3u) << show.dump();
  // One held stretch: each restarted segment opens where the previous one closed.
  EXPECT_EQ(show["segments"][1]["start"], show["segments"][0]["end"]);
  EXPECT_EQ(show["segments"][2]["start"], show["segments"][1]["end"]);
  const auto held = TimeOf(show["segments"][2]["end"]) - TimeOf(show["segments"][0]["start"]);
  EXPECT_GE(held, std::chrono::milliseconds(900));
  const int64_t ledger_micros = show["cost_micros"].get<int64_t>();
  EXPECT_EQ(ledger_micros, ExpectedSpend(show).micros());
  // The summary's spend is the ledger's, to the micro-dollar; `report` agrees.
  EXPECT_EQ(Money::Parse(summary["spent"].get<std::string>())->micros(), ledger_micros);
  EXPECT_EQ(Money::Parse(summary["spent_all_attempts"].get<std::string>())->micros(),
            ledger_micros);
  EXPECT_EQ(JsonOf({"report"}, home.path())["total"]["spend_micros"].get<int64_t>(), ledger_micros);
  // The caps counted the supervisor's whole time: not less, and not much more.
  const int64_t counted_micros =
      Money::Parse(summary["caps_counted"]["spent"].get<std::string>())->micros();
  EXPECT_GE(counted_micros, ledger_micros);
  EXPECT_LE(counted_micros, ledger_micros + 5'000);  // half a second at $36/h
  // The journal's segment costs are the ledger's segments' costs.
  int64_t journal_micros = 0;
  for (const json& rec : run::ReadJournal(home.path() / "data" / "runs" / "L10" / "journal.jsonl"))
    if (rec["record"] == "segment_closed") journal_micros += rec["cost_micros"].get<int64_t>();
  EXPECT_EQ(journal_micros, ledger_micros);
}

TEST(RunLedger, BudgetStopRecordsTheEventAndTheSegmentEnd) {
  TempDir home;
  auto r = RunFrugal({"run", "--price", "36/h", "--budget", "0.005", "--accrual-interval", "100ms",
                      "--stop-grace", "200ms", "--run-id", "L4", "--", "/bin/sh", "-c", "sleep 30"},
                     home.path());
  ASSERT_EQ(r.exit_code, 3) << r.err;
  const json show = ShowRun("L4", home.path());
  EXPECT_EQ(show["status"], "budget_stopped");
  ASSERT_EQ(show["segments"].size(), 1u);
  EXPECT_EQ(show["segments"][0]["end_reason"], "budget_stop");
  const auto types = EventTypes(show);
  EXPECT_EQ(Count(types, "budget_stop"), 1);
  EXPECT_EQ(Count(types, "budget_warning"), 1);
  // 0.005 at 36/h is 0.5 s; the stop adds at most an accrual interval and the grace periods.
  EXPECT_GE(show["cost_micros"].get<int64_t>(), 4'000);
  EXPECT_LE(show["cost_micros"].get<int64_t>(), 5'000 + 10'000);
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
}

TEST(RunLedger, SigkilledSupervisorLeavesARunTheSweepMarksLostAtItsLastHeartbeat) {
  TempDir home;
  // `exec`: the sleep is the supervised child itself, which is told to go when its killed
  // supervisor dies. Under a shell it would be a grandchild, outlive the test and hold its
  // output open.
  const std::vector<std::string> args = {
      FRUGAL_BINARY,          "-q",    "run", "--price", "3.6/h", "--run-id",     "L5",
      "--heartbeat-interval", "200ms", "--",  "/bin/sh", "-c",    "exec sleep 30"};
  auto frugal =
      ChildProcess::Spawn({args, {{"FRUGAL_HOME", home.path().string()}}, ChildStdout::kInherit});
  ASSERT_TRUE(frugal.has_value());
  ASSERT_NO_FATAL_FAILURE(WaitForJournalSpan(home.path() / "data" / "runs" / "L5" / "journal.jsonl",
                                             "heartbeat", std::chrono::milliseconds(1000)));
  // A second supervisor of the same run is refused while the first lives, and writes nothing.
  auto second =
      RunFrugal({"run", "--price", "3.6/h", "--run-id", "L5", "--", "/bin/true"}, home.path());
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("run 'L5' is in use by another frugal process (pid " +
                            std::to_string((*frugal)->pid()) + ")"),
            std::string::npos)
      << second.err;
  // The last heartbeat is before the kill was sent; the reaping after it may take long on a
  // loaded machine, so the lower bound is taken from the sending.
  const auto kill_sent = ledger::Now();
  (*frugal)->SignalGroup(SIGKILL);
  (*frugal)->WaitFor(std::chrono::seconds(10));
  const auto killed_at = ledger::Now();
  EXPECT_EQ(ShowRun("L5", home.path())["segments"].size(), 1u);
  int attempts = 0;
  for (const json& r : run::ReadJournal(home.path() / "data" / "runs" / "L5" / "journal.jsonl"))
    attempts += r["record"] == "run_started" ? 1 : 0;
  EXPECT_EQ(attempts, 1);

  json show = ShowRun("L5", home.path());
  EXPECT_EQ(show["status"], "running");
  ASSERT_NO_FATAL_FAILURE(WaitUntilSilent("L5", home.path(), std::chrono::seconds(1)));
  const json swept = JsonOf({"ledger", "sweep", "--stale", "1s"}, home.path());
  ASSERT_EQ(swept["lost_runs"].size(), 1u) << swept.dump();
  show = ShowRun("L5", home.path());
  EXPECT_EQ(show["status"], "lost");
  ASSERT_EQ(show["segments"].size(), 1u);
  const json& seg = show["segments"][0];
  EXPECT_EQ(seg["end_reason"], "lost");
  // Costed to the last heartbeat: within a heartbeat interval (and some slack) of the kill.
  const auto end = TimeOf(seg["end"]);
  EXPECT_LE(end, killed_at);
  EXPECT_GE(end, kill_sent - std::chrono::milliseconds(1000));
  EXPECT_GE(end - TimeOf(seg["start"]), std::chrono::milliseconds(800));
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());

  // Started again with the same run id, the run continues under the same ledger run.
  auto again =
      RunFrugal({"run", "--price", "3.6/h", "--run-id", "L5", "--", "/bin/sh", "-c", "sleep 0.2"},
                home.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  show = ShowRun("L5", home.path());
  EXPECT_EQ(show["status"], "succeeded");
  ASSERT_EQ(show["segments"].size(), 2u);
  EXPECT_EQ(show["segments"][0]["end_reason"], "lost");
  EXPECT_EQ(show["segments"][1]["end_reason"], "finished");
}

/// Runs `frugal run` as run `id` with one heartbeat (at the start) and samples every 100 ms,
/// and SIGKILLs it a second into its segment: the journal's last record is well after the
/// ledger's last heartbeat.
void StartAndKillWithRareHeartbeats(const std::string& id, const TempDir& home) {
  const std::vector<std::string> args = {FRUGAL_BINARY,
                                         "-q",
                                         "run",
                                         "--price",
                                         "3.6/h",
                                         "--run-id",
                                         id,
                                         "--heartbeat-interval",
                                         "1h",
                                         "--sample-interval",
                                         "100ms",
                                         "--",
                                         "/bin/sh",
                                         "-c",
                                         "exec sleep 30"};
  auto frugal =
      ChildProcess::Spawn({args, {{"FRUGAL_HOME", home.path().string()}}, ChildStdout::kInherit});
  ASSERT_TRUE(frugal.has_value());
  // A second into the segment, however long the supervisor took to open it on a loaded machine.
  ASSERT_NO_FATAL_FAILURE(WaitForJournalSpan(home.path() / "data" / "runs" / id / "journal.jsonl",
                                             "sample", std::chrono::milliseconds(1000)));
  (*frugal)->SignalGroup(SIGKILL);
  (*frugal)->WaitFor(std::chrono::seconds(10));
}

/// When run `id`'s journal closed a lost segment.
std::optional<ledger::Timestamp> JournalLostEnd(const std::string& id, const TempDir& home) {
  std::optional<ledger::Timestamp> end;
  for (const json& r : run::ReadJournal(home.path() / "data" / "runs" / id / "journal.jsonl")) {
    if (r["record"] == "segment_closed" && r["end"] == "lost") end = TimeOf(r["at"]);
  }
  return end;
}

TEST(RunLedger, KilledAttemptIsClosedLostWhenTheRunIsStartedAgainBeforeAnySweep) {
  TempDir home;
  // Both must close the lost attempt at the journal's last record.
  ASSERT_NO_FATAL_FAILURE(StartAndKillWithRareHeartbeats("L6", home));
  auto again = RunFrugal(
      {"run", "--price", "3.6/h", "--run-id", "L6", "--", "/bin/sh", "-c", "exit 3"}, home.path());
  EXPECT_EQ(again.exit_code, 1) << again.err;
  const json show = ShowRun("L6", home.path());
  EXPECT_EQ(show["status"], "failed");
  ASSERT_EQ(show["segments"].size(), 2u);
  EXPECT_EQ(show["segments"][0]["end_reason"], "lost");
  EXPECT_EQ(show["segments"][1]["end_reason"], "failed");
  EXPECT_LT(TimeOf(show["segments"][0]["end"]), TimeOf(show["segments"][1]["start"]));
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
  // The journal and the ledger agree on when the lost attempt ended, to the millisecond, and
  // that is close to the kill (not the segment's start, where the only heartbeat was).
  const std::optional<ledger::Timestamp> journal_end = JournalLostEnd("L6", home);
  ASSERT_TRUE(journal_end.has_value());
  EXPECT_EQ(*journal_end, TimeOf(show["segments"][0]["end"]));
  EXPECT_GE(*journal_end - TimeOf(show["segments"][0]["start"]), std::chrono::milliseconds(500));
}

TEST(RunLedger, ASweptAttemptEndsAtTheJournalsLastRecordAndTheRunStartedAgainKeepsIt) {
  TempDir home;
  // The ledger's only heartbeat is at the start, long before the journal's last sample: the
  // sweep takes the journal's end (its journal is in the data dir), and the next start closes
  // the attempt in the journal at that same moment.
  ASSERT_NO_FATAL_FAILURE(StartAndKillWithRareHeartbeats("L8", home));
  ASSERT_NO_FATAL_FAILURE(WaitUntilSilent("L8", home.path(), std::chrono::seconds(1)));
  const json swept = JsonOf({"ledger", "sweep", "--stale", "1s"}, home.path());
  ASSERT_EQ(swept["lost_runs"].size(), 1u) << swept.dump();
  const auto swept_end = TimeOf(ShowRun("L8", home.path())["segments"][0]["end"]);

  auto again = RunFrugal(
      {"run", "--price", "3.6/h", "--run-id", "L8", "--", "/bin/sh", "-c", "exit 0"}, home.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  const json show = ShowRun("L8", home.path());
  EXPECT_EQ(show["status"], "succeeded");
  ASSERT_EQ(show["segments"].size(), 2u);
  EXPECT_EQ(show["segments"][0]["end_reason"], "lost");
  const std::optional<ledger::Timestamp> journal_end = JournalLostEnd("L8", home);
  ASSERT_TRUE(journal_end.has_value());
  EXPECT_EQ(*journal_end, TimeOf(show["segments"][0]["end"]));
  EXPECT_EQ(*journal_end, swept_end);
  EXPECT_GE(swept_end - TimeOf(show["segments"][0]["start"]), std::chrono::milliseconds(500));
  EXPECT_LT(TimeOf(show["segments"][0]["end"]), TimeOf(show["segments"][1]["start"]));
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
}

TEST(RunLedger, AKilledAttemptCountsAgainstTheCapsUpToTheLedgersEndForIt) {
  TempDir home;
  // Its only heartbeat is at the start: counted from it, the killed second of spend would be
  // free, and the next attempt could spend the whole budget again.
  ASSERT_NO_FATAL_FAILURE(StartAndKillWithRareHeartbeats("L9", home));
  auto again = RunFrugal(
      {"run", "--price", "3.6/h", "--budget", "0.0025", "--run-id", "L9", "--accrual-interval",
       "50ms", "--stop-grace", "200ms", "--", "/bin/sh", "-c", "exec sleep 30"},
      home.path());
  EXPECT_EQ(again.exit_code, 3) << again.err;
  const json show = ShowRun("L9", home.path());
  ASSERT_EQ(show["segments"].size(), 2u);
  ASSERT_EQ(show["segments"][0]["end_reason"], "lost");
  const int64_t lost_micros = ExpectedSpend({{"segments", {show["segments"][0]}}}).micros();
  EXPECT_GE(lost_micros, 500);  // half a second at $3.60/h: the kill came a second in
  int64_t counted_micros = -1;
  int64_t closed_micros = -1;
  for (const json& r : run::ReadJournal(home.path() / "data" / "runs" / "L9" / "journal.jsonl")) {
    if (r["record"] == "run_finished" && r["outcome"] == "lost") {
      counted_micros = r["usage"]["spent_micros"].get<int64_t>();
    }
    if (r["record"] == "segment_closed" && r["end"] == "lost") {
      closed_micros = r["cost_micros"].get<int64_t>();
    }
  }
  // The journal counts the lost attempt at least as far as the ledger prices it.
  EXPECT_GE(counted_micros, lost_micros);
  EXPECT_EQ(closed_micros, lost_micros);
  // And the ledger's total stays within the cap plus one accrual interval and the stop grace.
  EXPECT_LE(show["cost_micros"].get<int64_t>(), 2500 + 300) << show.dump();
}

/// Runs `frugal run` as run `id` (a command that fails after 2 s) with every file it writes
/// limited to 100 KiB (RLIMIT_FSIZE, with SIGXFSZ ignored so a write past it fails with EFBIG,
/// as on a full disk). The ledger file is already bigger, so once the ledger's write-ahead log
/// reaches the limit (within the first second: heartbeats and samples every 50 ms) every
/// ledger write fails; the journal stays well under it.
void RunWithTheLedgerFull(const std::string& id, const TempDir& home) {
  // A first run creates the ledger (128 KiB).
  ASSERT_EQ(RunFrugal({"run", "--price", "36/h", "--", "/bin/true"}, home.path()).exit_code, 0);
  ASSERT_GT(fs::file_size(home.path() / "data" / "ledger.sqlite"), 100u * 1024);
  const std::vector<std::string> args = {"/bin/sh",
                                         "-c",
                                         "trap '' XFSZ; ulimit -f 200; exec \"$@\"",
                                         "sh",
                                         FRUGAL_BINARY,
                                         "-q",
                                         "run",
                                         "--price",
                                         "36/h",
                                         "--run-id",
                                         id,
                                         "--heartbeat-interval",
                                         "50ms",
                                         "--sample-interval",
                                         "50ms",
                                         "--",
                                         "/bin/sh",
                                         "-c",
                                         "sleep 2; exit 3"};
  auto frugal =
      ChildProcess::Spawn({args, {{"FRUGAL_HOME", home.path().string()}}, ChildStdout::kInherit});
  ASSERT_TRUE(frugal.has_value());
  const std::optional<ExitStatus> exit = (*frugal)->WaitFor(std::chrono::seconds(30));
  ASSERT_TRUE(exit.has_value());
  EXPECT_EQ(exit->exit_code, 1);  // the command failed
  // The ledger missed the segment's end and the run's: it still charges the run as running.
  const json show = ShowRun(id, home.path());
  ASSERT_EQ(show["status"], "running") << show.dump();
  ASSERT_EQ(show["segments"].size(), 1u);
  ASSERT_TRUE(show["segments"][0]["end"].is_null()) << show.dump();
}

/// The journal's end of run `id`'s first segment, and its reason.
std::pair<ledger::Timestamp, std::string> JournalFirstClose(const std::string& id,
                                                            const TempDir& home) {
  for (const json& r : run::ReadJournal(home.path() / "data" / "runs" / id / "journal.jsonl")) {
    if (r["record"] == "segment_closed") return {TimeOf(r["at"]), r["end"]};
  }
  ADD_FAILURE() << "no segment_closed in " << id << "'s journal";
  return {};
}

/// Run `id` started again, after RunWithTheLedgerFull: the ledger agrees with the journal.
void ExpectCaughtUpWhenStartedAgain(const std::string& id, const TempDir& home) {
  const auto [closed_at, reason] = JournalFirstClose(id, home);
  EXPECT_EQ(reason, "failed");
  auto again = RunFrugal(
      {"run", "--price", "36/h", "--run-id", id, "--", "/bin/sh", "-c", "exit 0"}, home.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.err.find("from the journal"), std::string::npos) << again.err;
  const json show = ShowRun(id, home.path());
  EXPECT_EQ(show["status"], "succeeded");
  ASSERT_EQ(show["segments"].size(), 2u) << show.dump();
  EXPECT_EQ(show["segments"][0]["end_reason"], "failed");
  EXPECT_EQ(TimeOf(show["segments"][0]["end"]), closed_at);
  EXPECT_EQ(show["segments"][1]["end_reason"], "finished");
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
}

TEST(RunLedger, LedgerWritesThatFailedAreReplayedFromTheJournalWhenTheRunStartsAgain) {
  TempDir home;
  ASSERT_NO_FATAL_FAILURE(RunWithTheLedgerFull("F1", home));
  ExpectCaughtUpWhenStartedAgain("F1", home);
}

TEST(RunLedger, ASweepGivesARunWhoseWritesFailedTheJournalsEndAndReason) {
  TempDir home;
  ASSERT_NO_FATAL_FAILURE(RunWithTheLedgerFull("F2", home));
  const auto [closed_at, reason] = JournalFirstClose("F2", home);
  EXPECT_EQ(reason, "failed");
  ASSERT_NO_FATAL_FAILURE(WaitUntilSilent("F2", home.path(), std::chrono::seconds(1)));
  // The sweep finds it silent, and its journal (in the data dir) says how it really ended.
  const json swept = JsonOf({"ledger", "sweep", "--stale", "1s"}, home.path());
  ASSERT_EQ(swept["lost_runs"].size(), 1u) << swept.dump();
  ASSERT_EQ(swept["caught_up_from_journal"].size(), 1u) << swept.dump();
  EXPECT_EQ(swept["caught_up_from_journal"][0]["name"], "F2");
  const json show = ShowRun("F2", home.path());
  EXPECT_EQ(show["status"], "failed");
  ASSERT_EQ(show["segments"].size(), 1u);
  EXPECT_EQ(show["segments"][0]["end_reason"], "failed");
  EXPECT_EQ(TimeOf(show["segments"][0]["end"]), closed_at);
  EXPECT_EQ(show["cost_micros"].get<int64_t>(), ExpectedSpend(show).micros());
  // Started again, nothing is left to catch up.
  auto again = RunFrugal(
      {"run", "--price", "36/h", "--run-id", "F2", "--", "/bin/sh", "-c", "exit 0"}, home.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("from the journal"), std::string::npos) << again.err;
  EXPECT_EQ(ShowRun("F2", home.path())["status"], "succeeded");
}

TEST(RunLedger, RequeuedRunContinuesUnderOneLedgerRun) {
  TempDir home;
  const std::vector<std::string> base = {"run",      "--price", "1/h",     "--tier", "spot",
                                         "--run-id", "L7",      "--grace", "5s"};
  auto first =
      RunFrugal(Concat(base, Concat({"--chaos-preempt-every", "500ms", "--chaos-max", "1", "--"},
                                    Counter(40, 0.04, 5))),
                home.path(), {PythonPath()});
  ASSERT_EQ(first.exit_code, 75) << first.err;  // requeue me
  json show = ShowRun("L7", home.path());
  EXPECT_EQ(show["status"], "running");  // waiting for its requeue
  auto second =
      RunFrugal(Concat(base, Concat({"--"}, Counter(40, 0.01, 5))), home.path(), {PythonPath()});
  ASSERT_EQ(second.exit_code, 0) << second.err;
  show = ShowRun("L7", home.path());
  EXPECT_EQ(show["status"], "succeeded");
  ASSERT_EQ(show["segments"].size(), 2u);
  EXPECT_EQ(show["segments"][0]["end_reason"], "preempted");
  EXPECT_EQ(show["segments"][1]["end_reason"], "finished");
  EXPECT_EQ(Count(EventTypes(show), "resumed"), 1);
}

}  // namespace
}  // namespace frugal::run

// A tune trial's ledger run, end to end with real supervised trials: a ledger that missed what a
// trial's journal has is caught up by `tune resume` and by `ledger sweep`, and a trial's run
// ends with the status the tuner gave the trial.

#include <memory>

#include "frugal/ledger/ledger.h"
#include "tune_supervised_support.h"

namespace frugal::testing {
namespace {

using nlohmann::json;

class TuneTrialLedger : public TuneSupervised {
 protected:
  std::filesystem::path Db() const { return home_.path() / "data" / "ledger.sqlite"; }
  json Runs(const std::string& study) const {
    const CommandResult r =
        RunFrugal({"runs", "list", "--tag", "study=" + study, "--json"}, home_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false)["runs"];
  }
  json Show(const std::string& run) const {
    const CommandResult r = RunFrugal({"runs", "show", run, "--json"}, home_.path());
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return json::parse(r.out, nullptr, false);
  }
  /// What the ledger would hold had the writes of the run's last segment and end failed (a
  /// full disk, a dead server): the segment is gone, the run still `running` with its last
  /// heartbeat `heartbeat_age` ago.
  void ForgetLastSegment(const std::string& run, std::chrono::milliseconds heartbeat_age) const {
    auto db = ledger::Ledger::Open(Db().string());
    ASSERT_TRUE(db.has_value()) << db.error().message;
    ledger::Connection& c = (*db)->connection();
    const std::vector<ledger::Value> name = {run};
    auto rows = c.Query("SELECT id FROM runs WHERE name = ?", name);
    ASSERT_TRUE(rows.has_value() && rows->size() == 1u);
    const int64_t id = ledger::AsInt((*rows)[0][0]);
    const int64_t heartbeat = ledger::ToMillis(ledger::Now()) - heartbeat_age.count();
    ASSERT_TRUE(
        c.Query("DELETE FROM segments WHERE id = (SELECT MAX(id) FROM segments WHERE "
                "run_id = ?)",
                std::vector<ledger::Value>{id}));
    ASSERT_TRUE(
        c.Query("UPDATE runs SET status = 'running', end_ms = NULL, heartbeat_ms = ? "
                "WHERE id = ?",
                std::vector<ledger::Value>{heartbeat, id}));
  }
};

TEST_F(TuneTrialLedger, ResumeCatchesATrialsLedgerRunUpFromItsJournal) {
  const CommandResult study = RunFakeStudy("caught", "", "asha", 4, 3);
  ASSERT_EQ(study.exit_code, 0) << study.err;
  const json runs = Runs("caught");
  ASSERT_EQ(runs.size(), 3u) << runs.dump();
  const std::string run = runs[0]["name"].get<std::string>();
  const json whole = Show(run);
  ASSERT_GE(whole["segments"].size(), 1u);

  ForgetLastSegment(run, std::chrono::seconds(0));
  const json missed = Show(run);
  ASSERT_EQ(missed["status"], "running");
  ASSERT_EQ(missed["segments"].size(), whole["segments"].size() - 1);

  const CommandResult resumed = RunFrugal({"tune", "resume", "caught"}, home_.path(), Env());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("from its journal"), std::string::npos) << resumed.err;
  const json after = Show(run);
  EXPECT_EQ(after["status"], whole["status"]);
  EXPECT_EQ(after["segments"].size(), whole["segments"].size());
  EXPECT_EQ(after["cost_micros"], whole["cost_micros"]);
  EXPECT_EQ(after["end"], whole["end"]);
}

TEST_F(TuneTrialLedger, ATunerWhoseLedgerCannotGrowStopsNamingItAndItsResumeLosesNoTrial) {
  // A first run creates the ledger (over 100 KiB), then the study runs with every file it writes
  // limited to 100 KiB (RLIMIT_FSIZE, SIGXFSZ ignored so a write past it fails with EFBIG, as on
  // a full disk): once the ledger's write-ahead log reaches the limit every ledger write fails,
  // while journals and checkpoints stay well under it.
  ASSERT_EQ(RunFrugal({"run", "--price", "36/h", "--", "/bin/true"}, home_.path()).exit_code, 0);
  ASSERT_GT(std::filesystem::file_size(Db()), 100u * 1024);
  WriteTestFile(dir_ / "full.yaml", R"(name: full
trial: {command: [python3, trainer.py]}
space:
  x: {type: float, low: 0.0, high: 1.0}
objective: {metric: loss, direction: minimize}
fidelity: {name: epoch, min: 1, max: 9, reduction_factor: 3, cost_per_unit: 200ms}
scheduler: asha
sampler: random
seed: 4
resources: {gpus: 1, price_per_hour: 36, workers: 1}
gates: {budget_usd: 10, max_trials: 4}
)");
  std::vector<std::string> env = Env();
  env.push_back("FRUGAL_HOME=" + home_.path().string());
  const CommandResult full =
      RunProgram({"/bin/sh", "-c", "trap '' XFSZ; ulimit -f 200; exec \"$@\"", "sh", FRUGAL_BINARY,
                  "-q", "tune", (dir_ / "full.yaml").string()},
                 env);
  // The study's state lives in the ledger (the one study store), so a ledger that cannot grow
  // stops the tuner itself, naming the ledger, rather than leaving trial runs it never records.
  EXPECT_EQ(full.exit_code, 1) << full.err;
  EXPECT_NE(full.err.find("frugal: error: " + Db().string()), std::string::npos) << full.err;
  // Resumed once the ledger can grow, the study goes on from what it had saved, and the trial
  // run the ledger missed is caught up from the trial's journal: no trial and no second of
  // spend is lost.
  const CommandResult resumed = RunFrugal({"tune", "resume", "full"}, home_.path(), Env());
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  if (full.err.find("could not be written to the ledger") != std::string::npos) {
    EXPECT_NE(resumed.err.find("from its journal"), std::string::npos) << resumed.err;
  }
  const CommandResult status = RunFrugal({"tune", "status", "full", "--json"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json trials = json::parse(status.out, nullptr, false)["per_trial"];
  ASSERT_EQ(trials.size(), 4u);
  const json runs = Runs("full");
  ASSERT_EQ(runs.size(), trials.size()) << runs.dump();
  int64_t run_micros = 0;
  for (const json& r : runs) {
    const json& t = trials[static_cast<size_t>(std::stoi(r["tags"]["trial"].get<std::string>()))];
    EXPECT_EQ(r["status"], t["state"] == "completed" ? "succeeded" : t["state"].get<std::string>())
        << r.dump();
    run_micros += r["cost_micros"].get<int64_t>();
  }
  EXPECT_NEAR(static_cast<double>(run_micros) / 1e6,
              json::parse(status.out, nullptr, false)["spend_usd"].get<double>(), 1e-4);
}

TEST_F(TuneTrialLedger, SweepFindsATrialsJournalInItsStudyFolder) {
  const CommandResult study = RunFakeStudy("swept", "", "asha", 5, 2);
  ASSERT_EQ(study.exit_code, 0) << study.err;
  const json runs = Runs("swept");
  ASSERT_EQ(runs.size(), 2u) << runs.dump();
  const std::string run = runs[1]["name"].get<std::string>();
  const json whole = Show(run);

  // Silent for two minutes: younger than the sweep every command makes when it opens the
  // ledger, older than this one's --stale.
  ForgetLastSegment(run, std::chrono::minutes(2));
  const CommandResult swept =
      RunFrugal({"ledger", "sweep", "--stale", "1m", "--json"}, home_.path());
  ASSERT_EQ(swept.exit_code, 0) << swept.err;
  const json doc = json::parse(swept.out, nullptr, false);
  ASSERT_EQ(doc["caught_up_from_journal"].size(), 1u) << swept.out;
  EXPECT_EQ(doc["caught_up_from_journal"][0]["name"], run);
  const json after = Show(run);
  EXPECT_EQ(after["status"], whole["status"]);
  EXPECT_EQ(after["segments"].size(), whole["segments"].size());
  EXPECT_EQ(after["cost_micros"], whole["cost_micros"]);
}

TEST_F(TuneTrialLedger, ATrialsRunEndsWithTheStatusTheTunerGaveTheTrial) {
  const CommandResult study = RunFakeStudy("agree", "", "asha-stop", 6, 4);
  ASSERT_EQ(study.exit_code, 0) << study.err;
  const CommandResult status = RunFrugal({"tune", "status", "agree", "--json"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  const json trials = json::parse(status.out, nullptr, false)["per_trial"];
  std::map<std::string, json> runs;  // trial number → its run
  for (const json& r : Runs("agree")) runs[r["tags"]["trial"].get<std::string>()] = r;
  ASSERT_EQ(runs.size(), trials.size());
  const std::map<std::string, std::string> expected = {{"completed", "succeeded"},
                                                       {"paused", "paused"},
                                                       {"pruned", "pruned"},
                                                       {"failed", "failed"},
                                                       {"stopped_at_budget", "budget_stopped"},
                                                       {"stopped_at_wall", "budget_stopped"}};
  int not_completed = 0;
  int64_t run_micros = 0;
  for (const json& t : trials) {
    const std::string state = t["state"].get<std::string>();
    const json& run = runs[std::to_string(t["trial"].get<int64_t>())];
    EXPECT_EQ(run["status"], expected.at(state)) << "trial " << t["trial"] << " " << run.dump();
    if (state != "completed") ++not_completed;
    run_micros += run["cost_micros"].get<int64_t>();
  }
  EXPECT_GT(not_completed, 0) << "every trial completed: the statuses were not put to the test";
  // The statuses change nothing the ledger charges: the runs still sum to the study's spend.
  EXPECT_NEAR(static_cast<double>(run_micros) / 1e6,
              json::parse(status.out, nullptr, false)["spend_usd"].get<double>(), 1e-4);
  const CommandResult paused = RunFrugal(
      {"runs", "list", "--tag", "study=agree", "--status", "paused", "--json"}, home_.path());
  ASSERT_EQ(paused.exit_code, 0) << paused.err;
  int64_t paused_trials = 0;
  for (const json& t : trials) paused_trials += t["state"] == "paused" ? 1 : 0;
  EXPECT_EQ(static_cast<int64_t>(json::parse(paused.out, nullptr, false)["runs"].size()),
            paused_trials);
}

}  // namespace
}  // namespace frugal::testing

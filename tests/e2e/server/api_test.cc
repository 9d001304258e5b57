// The JSON API answers with the document the CLI prints for the same question (the real binary
// on the same ledger), refuses changes without the token, and reports a taken port.

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "frugal/core/atomic_file.h"
#include "frugal/tune/ledger_study_store.h"
#include "server_fixture.h"
#include "synthetic_table.h"

namespace frugal::server_test {
namespace {

using frugal::testing::RunFrugal;
using frugal::testing::TempDir;
using frugal::testing::WriteTestFile;

class Api : public ::testing::Test {
 protected:
  void SetUp() override {
    const Result<SeededFleet> seeded = SeedFleet(db_, ledger::Now());
    ASSERT_TRUE(seeded) << seeded.error().message;
    fleet_ = *seeded;
    WriteTestFile(token_file_, "0123456789abcdef-token\n");
    std::filesystem::permissions(token_file_, std::filesystem::perms::owner_read);
  }
  server::ServerOptions Options(bool with_token = true) const {
    server::ServerOptions o;
    o.listen = {"127.0.0.1", 0};
    o.db = db_.string();
    if (with_token) o.token = "0123456789abcdef-token";
    o.thresholds = thresholds_;
    o.threads = 8;
    return o;
  }
  /// The CLI's --json document for `args` over the same ledger and home.
  nlohmann::json Cli(std::vector<std::string> args) const {
    args.insert(args.end(), {"--db", db_.string(), "--json"});
    return JsonOf(RunFrugal(args, home_.path()));
  }

  TempDir dir_;
  TempDir home_;
  std::filesystem::path db_ = dir_ / "ledger.sqlite";
  std::filesystem::path token_file_ = dir_ / "token";
  std::filesystem::path thresholds_;
  SeededFleet fleet_;
};

TEST_F(Api, RunListIsTheDocumentRunsListPrints) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // Only ended runs: the running one's cost moves between the two reads.
  const nlohmann::json api = JsonOf(s.Client().Get("/api/v1/runs?status=succeeded&limit=0"));
  const nlohmann::json cli = Cli({"runs", "list", "--status", "succeeded"});
  EXPECT_EQ(api, cli);
  ASSERT_EQ(api["runs"].size(), 2U);
  // Filters by tag as the CLI does.
  const nlohmann::json nlp =
      JsonOf(s.Client().Get("/api/v1/runs?tag=team%3Dvision&status=succeeded"));
  EXPECT_EQ(nlp, Cli({"runs", "list", "--tag", "team=vision", "--status", "succeeded"}));
  ASSERT_EQ(nlp["runs"].size(), 1U);
  EXPECT_EQ(nlp["runs"][0]["cost_usd"], "20.5");  // 5 h × $4.10
}

TEST_F(Api, OneRunIsTheDocumentRunsShowPrints) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const std::string id = std::to_string(fleet_.finished_run);
  const nlohmann::json api = JsonOf(s.Client().Get("/api/v1/runs/" + id));
  EXPECT_EQ(api, Cli({"runs", "show", id}));
  // 3 h spot at $12.00 + 2 h on demand at $32.77.
  EXPECT_EQ(api["cost_usd"], "101.54");
  ASSERT_EQ(api["segments"].size(), 2U);
  EXPECT_EQ(api["segments"][0]["end_reason"], "preempted");
  // By the name `frugal run` printed, too.
  EXPECT_EQ(JsonOf(s.Client().Get("/api/v1/runs/nlp-pretrain"))["id"], fleet_.finished_run);
  // Its samples: 5 h every 10 minutes.
  const nlohmann::json samples = JsonOf(s.Client().Get("/api/v1/runs/" + id + "/samples"));
  EXPECT_EQ(samples["samples"].size(), 30U);
  const auto missing = s.Client().Get("/api/v1/runs/no-such-run");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
  EXPECT_NE(missing->body.find("no run named 'no-such-run'"), std::string::npos) << missing->body;
}

TEST_F(Api, ReportIsTheDocumentReportPrints) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // A window that ended before the running run started, so both reads agree to the micro.
  const std::string until = ledger::FormatTimestamp(ledger::Now() - std::chrono::hours(3));
  const std::string since = ledger::FormatTimestamp(ledger::Now() - std::chrono::hours(48));
  nlohmann::json api = JsonOf(
      s.Client().Get(fmt::format("/api/v1/report?by=team,tier&since={}&until={}", since, until)));
  nlohmann::json cli = Cli({"report", "--by", "team,tier", "--since", since, "--until", until});
  // The month to date and its forecast run to each reader's own now.
  for (nlohmann::json* doc : {&api, &cli}) {
    for (nlohmann::json* row : {&(*doc)["total"]}) {
      row->erase("month_forecast_usd");
      row->erase("month_to_date_usd");
    }
    for (auto& row : (*doc)["rows"]) {
      row.erase("month_forecast_usd");
      row.erase("month_to_date_usd");
    }
  }
  EXPECT_EQ(api, cli);
  EXPECT_EQ(api["total"]["spend_usd"], "122.04");
  const auto bad = s.Client().Get("/api/v1/report?by=teem");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("team"), std::string::npos) << bad->body;
}

TEST_F(Api, AReportsForecastBurnsOverTheThresholdsWindowInTheCliAndTheApi) {
  thresholds_ = dir_ / "audit.yaml";
  WriteTestFile(thresholds_, "budget_burn_days: 1\n");
  ASSERT_TRUE(FinishLive(db_, ledger::Now()));
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const nlohmann::json api = JsonOf(s.Client().Get("/api/v1/report?by=team"));
  const nlohmann::json cli = Cli({"report", "--by", "team", "--thresholds", thresholds_.string()});
  const nlohmann::json week = Cli({"report", "--by", "team"});  // the default: 7 days
  ASSERT_EQ(api["rows"].size(), cli["rows"].size());
  ASSERT_FALSE(cli["rows"].empty());
  bool burn_matters = false;
  for (size_t i = 0; i < cli["rows"].size(); ++i) {
    const auto usd = [](const nlohmann::json& row) {
      return std::stod(row["month_forecast_usd"].get<std::string>());
    };
    EXPECT_EQ(api["rows"][i]["month_to_date_usd"], cli["rows"][i]["month_to_date_usd"]);
    // The forecast runs to the end of the month from each reader's own now: cents apart at most.
    EXPECT_NEAR(usd(api["rows"][i]), usd(cli["rows"][i]), 0.01) << api["rows"][i].dump();
    burn_matters = burn_matters || std::abs(usd(cli["rows"][i]) - usd(week["rows"][i])) > 1.0;
  }
  EXPECT_TRUE(burn_matters) << "the burn window changed no forecast: " << cli.dump();
}

TEST_F(Api, AReportSinceInTheFutureNamesSinceInTheCliAndTheApi) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const std::string since = ledger::FormatTimestamp(ledger::Now() + std::chrono::hours(48));
  const auto api = s.Client().Get("/api/v1/report?since=" + since);
  ASSERT_TRUE(api);
  EXPECT_EQ(api->status, 400) << api->body;
  const std::string message = nlohmann::json::parse(api->body)["error"]["message"];
  EXPECT_TRUE(message.starts_with("since: '" + since + "' is not in the past")) << message;
  const auto cli = RunFrugal({"report", "--since", since, "--db", db_.string()}, home_.path());
  EXPECT_EQ(cli.exit_code, 2) << cli.err;
  // The CLI said "--until must be after --since" with no --until given.
  EXPECT_EQ(cli.err.find("--until"), std::string::npos) << cli.err;
  EXPECT_NE(cli.err.find("frugal: error: --" + message), std::string::npos) << cli.err;
}

TEST_F(Api, CatalogOffersAndPlanAreTheDocumentsTheCliPrints) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(JsonOf(s.Client().Get("/api/v1/catalog/offers?gpu=H100&tier=spot&limit=5")),
            Cli({"catalog", "offers", "--gpu", "H100", "--tier", "spot", "--limit", "5"}));
  const std::filesystem::path job =
      frugal::testing::SourceDir() / "examples/plan/llama-7b-finetune.yaml";
  const Result<std::string> text = ReadFile(job);
  ASSERT_TRUE(text);
  const auto planned = s.Client().Post("/api/v1/plan?top=3", *text, "application/yaml");
  const nlohmann::json api = JsonOf(planned);
  const nlohmann::json cli = Cli({"plan", job.string(), "--top", "3"});
  EXPECT_EQ(api, cli);
  EXPECT_EQ(api["options"].size(), 3U);
  // A spec naming files on the server is refused.
  const std::filesystem::path seed = frugal::testing::SourceDir() / "examples/seed/job.yaml";
  const auto files = s.Client().Post("/api/v1/plan", *ReadFile(seed), "application/yaml");
  ASSERT_TRUE(files);
  EXPECT_EQ(files->status, 400);
  EXPECT_NE(files->body.find("field 'catalog'"), std::string::npos) << files->body;
  // A misspelt key names the field, as the CLI would.
  const auto bad = s.Client().Post("/api/v1/plan", "apiVersion: frugal/v1\nkind: Job\nmodle: x\n",
                                   "application/yaml");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("job.yaml"), std::string::npos) << bad->body;
}

TEST_F(Api, APostedInferenceSpecGetsTheServingPlanTheCliPrints) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // `frugal plan` plans both kinds of spec; a posted one was read as a job ("unknown key").
  const std::filesystem::path spec =
      frugal::testing::SourceDir() / "examples/serving/llama-7b-int4.yaml";
  const Result<std::string> text = ReadFile(spec);
  ASSERT_TRUE(text);
  const nlohmann::json api =
      JsonOf(s.Client().Post("/api/v1/plan?top=3", *text, "application/yaml"));
  EXPECT_EQ(api, Cli({"plan", spec.string(), "--top", "3"}));
  EXPECT_FALSE(api["options"].empty()) << api.dump();
  const std::filesystem::path files =
      frugal::testing::SourceDir() / "examples/serving/t4-classifier.yaml";
  const auto refused = s.Client().Post("/api/v1/plan", *ReadFile(files), "application/yaml");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 400);
  EXPECT_NE(refused->body.find("field 'catalog'"), std::string::npos) << refused->body;
}

TEST_F(Api, AnInferenceSpecRefusesAJobsCapsWithTheCliMessage) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const std::filesystem::path spec =
      frugal::testing::SourceDir() / "examples/serving/llama-7b-int4.yaml";
  const Result<std::string> text = ReadFile(spec);
  ASSERT_TRUE(text);
  // The API ignored these; `frugal plan` refuses them, and so does the API now.
  for (const auto& [param, value] : std::vector<std::pair<std::string, std::string>>{
           {"deadline", "36h"}, {"budget", "500"}, {"objective", "time"}}) {
    const auto api =
        s.Client().Post(fmt::format("/api/v1/plan?{}={}", param, value), *text, "application/yaml");
    ASSERT_TRUE(api);
    EXPECT_EQ(api->status, 400) << api->body;
    const std::string message = nlohmann::json::parse(api->body)["error"]["message"];
    const auto cli = RunFrugal({"plan", spec.string(), "--" + param, value}, home_.path());
    EXPECT_EQ(cli.exit_code, 2) << cli.err;
    // The same message, each naming the fields as its user spells them (--deadline, deadline).
    const std::string prefix = "frugal: error: ";
    ASSERT_TRUE(cli.err.starts_with(prefix)) << cli.err;
    std::string unflagged = cli.err.substr(prefix.size());
    for (size_t at = unflagged.find("--"); at != std::string::npos; at = unflagged.find("--")) {
      unflagged.erase(at, 2);
    }
    EXPECT_EQ(unflagged, message + "\n");
    EXPECT_NE(message.find(param + ": an inference spec is planned by its workload"),
              std::string::npos)
        << message;
  }
}

TEST_F(Api, APostedPlanIsScreenedByThePolicyAsTheCliScreensIt) {
  const std::filesystem::path policy = dir_ / "policy.yaml";
  WriteTestFile(policy,
                "apiVersion: frugal/v1\nkind: Policy\nname: ml-platform\nversion: 4\n"
                "workload_classes:\n  training: [L4, A100-80GB]\nrequired_tags: [team, project]\n");
  server::ServerOptions options = Options();
  options.policy = policy.string();
  RunningServer s(options);
  ASSERT_TRUE(s.ok());
  const std::filesystem::path job =
      frugal::testing::SourceDir() / "examples/plan/llama-7b-finetune.yaml";
  const Result<std::string> text = ReadFile(job);
  ASSERT_TRUE(text);
  const nlohmann::json api =
      JsonOf(s.Client().Post("/api/v1/plan?top=3", *text, "application/yaml"));
  EXPECT_EQ(api, Cli({"plan", job.string(), "--top", "3", "--policy", policy.string()}));
  ASSERT_TRUE(api["policy"].is_object()) << api.dump();
  EXPECT_EQ(api["policy"]["version"], 4);
  EXPECT_GT(api["policy"]["refused_count"].get<int>(), 0);
  for (const auto& o : api["options"]) {
    EXPECT_TRUE(o["gpu"] == "L4" || o["gpu"] == "A100-80GB") << o.dump();
  }
  // A spec every option of which the policy refuses: refused as the CLI refuses it.
  std::string untagged = *text;
  const std::string tags = "tags: {team: nlp, project: assistant, owner: grace}";
  ASSERT_NE(untagged.find(tags), std::string::npos);
  untagged.replace(untagged.find(tags), tags.size(), "tags: {team: nlp, owner: grace}");
  const auto refused = s.Client().Post("/api/v1/plan", untagged, "application/yaml");
  ASSERT_TRUE(refused);
  EXPECT_EQ(refused->status, 409) << refused->body;
  const std::string message = nlohmann::json::parse(refused->body)["error"]["message"];
  EXPECT_TRUE(message.starts_with("refused by policy ml-platform v4: ")) << message;
  EXPECT_NE(message.find("required-tags"), std::string::npos) << message;
  WriteTestFile(dir_ / "untagged.yaml", untagged);
  const auto cli = RunFrugal({"plan", (dir_ / "untagged.yaml").string(), "--policy",
                              policy.string(), "--db", db_.string()},
                             home_.path());
  EXPECT_EQ(cli.exit_code, 3) << cli.err;
  EXPECT_NE(cli.err.find("frugal: error: " + message + "\n"), std::string::npos) << cli.err;
}

TEST_F(Api, StudyStatusIsTheDocumentTuneStatusPrints) {
  TempDir table;
  tune::testing::WriteSyntheticTable(table.path(), 40, 9);
  const auto tuned =
      RunFrugal({"tune", "--replay", table.path().string(), "--metric", "score", "--maximize",
                 "--fidelity", "epoch", "--cost-column", "elapsed_s", "--price-per-hour", "3.6",
                 "--budget", "10", "--name", "sweep", "--db", db_.string(), "--json"},
                home_.path());
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const nlohmann::json api = JsonOf(s.Client().Get("/api/v1/studies/sweep"));
  EXPECT_EQ(api, Cli({"tune", "status", "sweep"}));
  const nlohmann::json list = JsonOf(s.Client().Get("/api/v1/studies"));
  ASSERT_EQ(list["studies"].size(), 1U);
  EXPECT_EQ(list["studies"][0]["name"], "sweep");
  EXPECT_EQ(list["studies"][0]["status"], api["status"]);
  const nlohmann::json curves = JsonOf(s.Client().Get("/api/v1/studies/sweep/curves"));
  EXPECT_EQ(curves["direction"], "maximize");
  EXPECT_EQ(curves["trials"].size(), api["per_trial"].size());
  EXPECT_EQ(curves["rungs"].size(), api["rungs"].size());
}

/// `frugal tune` over the synthetic table, without pruning; `extra` adds flags.
frugal::testing::CommandResult TuneUnpruned(const std::filesystem::path& table,
                                            const std::string& name,
                                            const std::filesystem::path& home,
                                            std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"tune",          "--replay",   table.string(),     "--metric",
                                   "score",         "--maximize", "--fidelity",       "epoch",
                                   "--cost-column", "elapsed_s",  "--price-per-hour", "3.6",
                                   "--scheduler",   "none",       "--max-trials",     "6",
                                   "--budget",      "1000",       "--name",           name,
                                   "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  return RunFrugal(args, home);
}

TEST_F(Api, AStudyTunedWithTheDefaultSetupReachesTuneStatusTheAuditAndTheApi) {
  TempDir table;
  tune::testing::WriteSyntheticTable(table.path(), 40, 9);
  // No --db: the study went to a JSON file the audit never read.
  const auto tuned = TuneUnpruned(table.path(), "plain", home_.path());
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const auto status = RunFrugal({"tune", "status", "plain", "--json"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  // Six trials run to the end and none pruned: the audit's study-pruned-nothing finding.
  const auto audited = RunFrugal({"audit", "--format", "json"}, home_.path());
  ASSERT_EQ(audited.exit_code, 0) << audited.err;
  bool found = false;
  const nlohmann::json audit_doc = JsonOf(audited);
  for (const auto& f : audit_doc["findings"]) {
    found = found || (f["rule"] == "study-pruned-nothing" && f["subject"] == "study plain");
  }
  EXPECT_TRUE(found) << audited.out;
  // The dashboard's API over the same (default) ledger lists it, with the same status.
  server::ServerOptions options = Options();
  options.db = (home_ / "data" / "ledger.sqlite").string();
  RunningServer s(options);
  ASSERT_TRUE(s.ok());
  const nlohmann::json list = JsonOf(s.Client().Get("/api/v1/studies"));
  ASSERT_EQ(list["studies"].size(), 1U) << list.dump();
  EXPECT_EQ(list["studies"][0]["name"], "plain");
  const auto listed = RunFrugal({"tune", "list", "--json"}, home_.path());
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  EXPECT_EQ(list, JsonOf(listed));
  EXPECT_EQ(JsonOf(s.Client().Get("/api/v1/studies/plain")), JsonOf(status));
  // And the audit over it is the document `frugal audit` printed, but for its window's ends
  // (each reader's own now).
  nlohmann::json api_audit = JsonOf(s.Client().Get("/api/v1/audit"));
  nlohmann::json cli_audit = JsonOf(audited);
  for (nlohmann::json* doc : {&api_audit, &cli_audit}) {
    doc->erase("since");
    doc->erase("until");
    doc->erase("thresholds");
  }
  EXPECT_EQ(api_audit, cli_audit);
}

TEST_F(Api, AStudyFileOfAnEarlierVersionIsImportedIntoTheLedgerNotLost) {
  TempDir table;
  tune::testing::WriteSyntheticTable(table.path(), 40, 9);
  // A study's state as earlier versions saved it without --db: <data dir>/studies/NAME.json.
  const auto tuned = TuneUnpruned(table.path(), "legacy", home_.path(), {"--db", db_.string()});
  ASSERT_EQ(tuned.exit_code, 0) << tuned.err;
  const nlohmann::json before = Cli({"tune", "status", "legacy"});
  {
    auto db = ledger::OpenForCommand(db_.string(), ledger::CreateMode::kMustExist);
    ASSERT_TRUE(db) << db.error().message;
    const Result<nlohmann::json> state = tune::LedgerStudyStore(**db).Load("legacy");
    ASSERT_TRUE(state) << state.error().message;
    WriteTestFile(home_ / "data" / "studies" / "legacy.json", state->dump());
  }
  const auto status = RunFrugal({"tune", "status", "legacy", "--json"}, home_.path());
  ASSERT_EQ(status.exit_code, 0) << status.err;
  EXPECT_NE(status.err.find("imported 1 study"), std::string::npos) << status.err;
  EXPECT_EQ(JsonOf(status), before);
  EXPECT_FALSE(std::filesystem::exists(home_ / "data" / "studies" / "legacy.json"));
  EXPECT_TRUE(std::filesystem::exists(home_ / "data" / "studies" / "legacy.json.imported"));
  // Read from the default ledger from now on, by the audit too.
  const auto again = RunFrugal({"tune", "status", "legacy", "--json"}, home_.path());
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.err.find("imported"), std::string::npos) << again.err;
  const auto audited = RunFrugal({"audit", "--format", "json"}, home_.path());
  EXPECT_NE(audited.out.find("study legacy"), std::string::npos) << audited.out;
}

TEST_F(Api, AuditAndBudgetsAreTheDocumentsTheAuditPrints) {
  thresholds_ = dir_ / "audit.yaml";
  WriteTestFile(thresholds_, "budgets:\n  - {team: nlp, amount: 1000, period: month}\n");
  // Ended runs only: a running run's cost moves between the two reads.
  ASSERT_TRUE(FinishLive(db_, ledger::Now()));
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  nlohmann::json api = JsonOf(s.Client().Get("/api/v1/audit"));
  nlohmann::json cli = Cli({"audit", "--thresholds", thresholds_.string()});
  ASSERT_FALSE(cli["findings"].empty()) << cli.dump();
  // The window ends at each reader's own now, and a budget's burn and forecast run to it.
  for (nlohmann::json* doc : {&api, &cli}) {
    doc->erase("since");
    doc->erase("until");
    for (auto& b : (*doc)["budgets"]) {
      b.erase("burn_per_day");
      b.erase("forecast");
    }
  }
  EXPECT_EQ(api, cli);
  const nlohmann::json budgets = JsonOf(s.Client().Get("/api/v1/budgets"));
  ASSERT_EQ(budgets["budgets"].size(), 1U);
  EXPECT_EQ(budgets["budgets"][0]["team"], "nlp");
  EXPECT_EQ(budgets["budgets"][0]["amount"], "1000");
  EXPECT_EQ(budgets["budgets"][0]["spent"], cli["budgets"][0]["spent"]);
}

TEST_F(Api, QueueListAndShowAreTheDocumentsTheQueuePrints) {
  const std::filesystem::path cap = dir_ / "capacity.yaml";
  WriteTestFile(cap,
                "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
                "  - {name: box, tier: owned, gpu: T4, gpus_per_node: 2, changeover: 1s}\n");
  const std::filesystem::path spec = dir_ / "train.yaml";
  WriteTestFile(spec,
                "apiVersion: frugal/v1\nkind: QueueJob\nname: train\ngpus: 1\n"
                "runtime: 1h\ndeadline: 30d\n");
  // The command after `--` is the job's: the global flags go first.
  const nlohmann::json submitted =
      JsonOf(RunFrugal({"--db", db_.string(), "--json", "queue", "submit", spec.string(),
                        "--capacity", cap.string(), "--", "true"},
                       home_.path()));
  ASSERT_TRUE(submitted.contains("id")) << submitted.dump();
  const std::string id = std::to_string(submitted["id"].get<int64_t>());
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // The ETA and the slack are at each reader's second: compare reads the CLI saw in one second.
  bool compared = false;
  for (int attempt = 0; attempt < 5 && !compared; ++attempt) {
    const nlohmann::json before = Cli({"queue", "list"});
    const nlohmann::json api = JsonOf(s.Client().Get("/api/v1/queue"));
    const nlohmann::json shown = JsonOf(s.Client().Get("/api/v1/queue/" + id));
    const nlohmann::json show = Cli({"queue", "show", id});
    if (before != Cli({"queue", "list"}) || show != Cli({"queue", "show", id})) continue;
    ASSERT_EQ(before["jobs"].size(), 1U) << before.dump();
    EXPECT_EQ(api, before);
    EXPECT_EQ(shown, show);
    EXPECT_FALSE(show["decisions"].empty()) << show.dump();
    compared = true;
  }
  ASSERT_TRUE(compared) << "no two CLI reads agreed";
  EXPECT_EQ(JsonOf(s.Client().Get("/api/v1/queue?state=waiting")),
            Cli({"queue", "list", "--state", "waiting"}));
  const auto bad = s.Client().Get("/api/v1/queue?state=sleeping");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);
  EXPECT_NE(bad->body.find("state"), std::string::npos) << bad->body;
  const auto missing = s.Client().Get("/api/v1/queue/999");
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, 404);
}

TEST_F(Api, StateChangingRequestsNeedTheToken) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  const std::string cancel = fmt::format("/api/v1/runs/{}/cancel", fleet_.running_run);
  const auto none = s.Client().Post(cancel);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->status, 401);
  httplib::Headers wrong = {{"Authorization", "Bearer not-the-token-at-all"}};
  const auto bad = s.Client().Post(cancel, wrong, "", "text/plain");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 403);
  const auto pause = s.Client().Post("/api/v1/studies/sweep/pause");
  ASSERT_TRUE(pause);
  EXPECT_EQ(pause->status, 401);
  // With the token, the request goes through to the run: no supervisor holds it here.
  httplib::Headers right = {{"Authorization", "Bearer 0123456789abcdef-token"}};
  const auto told = s.Client().Post(cancel, right, "", "text/plain");
  ASSERT_TRUE(told);
  EXPECT_EQ(told->status, 400);
  EXPECT_NE(told->body.find("no supervisor of run 'nlp-live'"), std::string::npos) << told->body;
  // The run is untouched by the refused requests.
  EXPECT_EQ(JsonOf(s.Client().Get(fmt::format("/api/v1/runs/{}", fleet_.running_run)))["status"],
            "running");
  // Reading needs no token on loopback.
  EXPECT_EQ(s.Client().Get("/api/v1/runs")->status, 200);
}

TEST_F(Api, AServerWithoutATokenChangesNothing) {
  RunningServer s(Options(/*with_token=*/false));
  ASSERT_TRUE(s.ok());
  const auto r = s.Client().Post(fmt::format("/api/v1/runs/{}/cancel", fleet_.running_run));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 403);
  EXPECT_NE(r->body.find("--token-file"), std::string::npos) << r->body;
}

TEST_F(Api, NonLoopbackNeedsATokenAndThenEveryRequestDoes) {
  server::ServerOptions o = Options(false);
  o.listen = {"0.0.0.0", 0};
  const auto refused = server::Server::Start(o);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().code, ErrorCode::kBadInput);
  EXPECT_NE(refused.error().message.find("--token-file"), std::string::npos);
  o.token = "0123456789abcdef-token";
  RunningServer s(o);
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.Client().Get("/api/v1/runs")->status, 401);
  EXPECT_EQ(s.Client().Get("/metrics")->status, 401);
  httplib::Client c = s.Client();
  c.set_bearer_token_auth("0123456789abcdef-token");
  EXPECT_EQ(c.Get("/api/v1/runs")->status, 200);
}

TEST_F(Api, ATakenPortIsUnavailableNamingTheAddress) {
  RunningServer first(Options());
  ASSERT_TRUE(first.ok());
  server::ServerOptions o = Options();
  o.listen.port = first.port();
  const auto second = server::Server::Start(o);
  ASSERT_FALSE(second);
  EXPECT_EQ(second.error().code, ErrorCode::kUnavailable);
  EXPECT_NE(second.error().message.find(fmt::format("127.0.0.1:{}", first.port())),
            std::string::npos)
      << second.error().message;
}

TEST_F(Api, UnknownResourcesAndBadParametersAreClientErrors) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s.Client().Get("/api/v1/nothing")->status, 404);
  EXPECT_EQ(s.Client().Get("/api/v1/runs?limit=-1")->status, 400);
  EXPECT_EQ(s.Client().Get("/api/v1/runs?status=sleeping")->status, 400);
  EXPECT_EQ(s.Client().Get("/api/v1/runs?since=yesterdayish")->status, 400);
  EXPECT_EQ(s.Client().Get("/api/v1/catalog/offers?tier=cheap")->status, 400);
  EXPECT_EQ(s.Client().Get("/api/v1/spend/daily?by=team,tier")->status, 400);
}

TEST_F(Api, BytesThatAreNotUtf8AreABadRequestNamingTheParameter) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // %FF decodes to a byte that is not UTF-8: a client error with a JSON body, never a 500
  // with none (the error document could not be written).
  for (const char* path :
       {"/api/v1/runs?since=%FF", "/api/v1/report?by=%FF", "/api/v1/catalog/offers?gpu=%FF",
        "/api/v1/runs/%FF", "/api/v1/runs/%FF/samples", "/api/v1/studies/%FF", "/api/v1/%FF"}) {
    const auto r = s.Client().Get(path);
    ASSERT_TRUE(r) << path;
    EXPECT_EQ(r->status, std::string(path) == "/api/v1/%FF" ? 404 : 400) << path;
    const nlohmann::json body = nlohmann::json::parse(r->body, nullptr, false);
    ASSERT_FALSE(body.is_discarded()) << path << ": " << r->body;
    EXPECT_EQ(body["error"]["status"], r->status) << path;
  }
  const auto named = s.Client().Get("/api/v1/runs?since=%FF");
  ASSERT_TRUE(named);
  EXPECT_NE(named->body.find("since"), std::string::npos) << named->body;
  EXPECT_NE(named->body.find("UTF-8"), std::string::npos) << named->body;
}

TEST_F(Api, ABodyPastTheLimitGetsAJsonError) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // httplib answered 413 itself, with an empty body where a client expects the error document.
  const auto r = s.Client().Post("/api/v1/plan", std::string(2 << 20, 'x'), "application/yaml");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 413);
  const nlohmann::json body = nlohmann::json::parse(r->body, nullptr, false);
  ASSERT_FALSE(body.is_discarded()) << r->body;
  EXPECT_EQ(body["error"]["status"], 413);
  EXPECT_NE(body["error"]["message"].get<std::string>().find("larger than 1 MiB"),
            std::string::npos)
      << r->body;
}

TEST_F(Api, DailySpendSplitsSegmentsAcrossDays) {
  RunningServer s(Options());
  ASSERT_TRUE(s.ok());
  // Every UTC day from the one `since` falls on to the one `until` falls on: four, or three
  // when the test runs in the first three hours of a UTC day.
  const ledger::Timestamp now = ledger::Now();
  const ledger::Timestamp since = now - std::chrono::hours(72);
  const ledger::Timestamp until = now - std::chrono::hours(3);
  const nlohmann::json daily =
      JsonOf(s.Client().Get("/api/v1/spend/daily?by=team&since=" + ledger::FormatTimestamp(since) +
                            "&until=" + ledger::FormatTimestamp(until)));
  const auto days =
      std::chrono::floor<std::chrono::days>(until) - std::chrono::floor<std::chrono::days>(since);
  EXPECT_EQ(daily["days"].size(), static_cast<size_t>(days.count() + 1));
  std::map<std::string, std::string> totals;
  for (const auto& series : daily["series"]) {
    totals[series["key"].get<std::string>()] = series["total_usd"].get<std::string>();
  }
  EXPECT_EQ(totals["nlp"], "101.54");
  EXPECT_EQ(totals["vision"], "20.5");
}

}  // namespace
}  // namespace frugal::server_test

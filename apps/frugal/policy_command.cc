// frugal policy: `check` a job or study spec against the team's GPU policy (exit 3 on
// violations); `overrides` lists the times plan, run or tune went ahead against it.

#include <fmt/format.h>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/table.h"
#include "frugal/ledger/ledger.h"
#include "frugal/policy/policy.h"
#include "policy_gate.h"

namespace frugal::cli {
namespace {

struct PolicyCommandOptions {
  std::vector<std::string> specs;
  std::string since = "90d";
};

Result<policy::ConfiguredPolicy> RequirePolicy(const GlobalOptions& global,
                                               const catalog::Catalog& catalog) {
  std::optional<policy::ConfiguredPolicy> p = FRUGAL_TRY(PolicyInEffect(global, catalog));
  if (!p) {
    return Fail(ErrorCode::kBadInput,
                "no policy configured: give --policy FILE, set FRUGAL_POLICY, or create "
                "policy.yaml in the config directory (docs/policy.md)");
  }
  return std::move(*p);
}

Result<void> RunPolicyCheck(const PolicyCommandOptions& o, const GlobalOptions& global,
                            Streams& s) {
  const catalog::Catalog catalog = FRUGAL_TRY(LoadCatalog(global));
  const policy::ConfiguredPolicy configured = FRUGAL_TRY(RequirePolicy(global, catalog));
  const policy::Policy& p = configured.policy;
  nlohmann::json results = nlohmann::json::array();
  size_t violations = 0;
  for (const std::string& file : o.specs) {
    const policy::Subject subject = FRUGAL_TRY(policy::LoadSubject(file, catalog));
    const std::vector<policy::Violation> found = policy::Check(p, subject);
    violations += found.size();
    if (!global.json) {
      if (found.empty()) {
        s.out << fmt::format("{}: complies with policy {}\n", file, p.Label());
      } else {
        s.out << fmt::format("{}: {} violation(s) of policy {}:\n", file, found.size(), p.Label());
        for (const policy::Violation& v : found) PrintViolation(s.out, v);
      }
    }
    results.push_back(
        {{"file", file}, {"kind", subject.kind}, {"violations", ViolationsJson(found)}});
  }
  if (global.json) {
    WriteJson(s, {{"policy", p.name},
                  {"policy_version", p.version},
                  {"policy_file", configured.location.path.string()},
                  {"results", results}});
  }
  if (violations > 0) {
    return Fail(ErrorCode::kBudget,
                fmt::format("{} violation(s) of policy {}", violations, p.Label()));
  }
  return {};
}

std::string Linked(const ledger::NewOverride& o) {
  if (o.run_id) return fmt::format("run {}", *o.run_id);
  if (o.study_id) return fmt::format("study {}", *o.study_id);
  return "-";
}

Result<void> RunPolicyOverrides(const PolicyCommandOptions& o, const GlobalOptions& global,
                                Streams& s) {
  const ledger::Timestamp now = ledger::Now();
  const ledger::Timestamp since = FRUGAL_TRY(
      ledger::ParseTimeOrAgo(o.since, now).map_error([](Error e) { return e.Wrap("--since"); }));
  auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const std::vector<ledger::PolicyOverride> rows = FRUGAL_TRY(db->ListOverrides({since, now}));
  nlohmann::json list = nlohmann::json::array();
  Table t({{"WHEN"},
           {"USER"},
           {"COMMAND"},
           {"SUBJECT"},
           {"RULES"},
           {"SPEND", Align::kRight},
           {"LINKED"},
           {"REASON"}});
  for (const ledger::PolicyOverride& row : rows) {
    const ledger::NewOverride& r = row.record;
    const std::optional<Money> spend = FRUGAL_TRY(db->SpendOf(row, now));
    const std::string rules = fmt::format("{}", fmt::join(r.rules, ","));
    list.push_back(
        {{"id", row.id},
         {"time", ledger::FormatTimestamp(r.time)},
         {"user", r.user_name},
         {"team", r.team},
         {"project", r.project},
         {"command", r.command},
         {"subject", r.subject},
         {"rules", r.rules},
         {"reason", r.reason},
         {"policy", r.policy_source},
         {"run_id", r.run_id ? nlohmann::json(*r.run_id) : nlohmann::json()},
         {"study_id", r.study_id ? nlohmann::json(*r.study_id) : nlohmann::json()},
         {"spend_usd", spend ? nlohmann::json(spend->ToPlainString()) : nlohmann::json()}});
    t.AddRow({ledger::FormatTimestamp(r.time), r.user_name, r.command, r.subject, rules,
              spend ? spend->ToString() : "-", Linked(r), r.reason});
  }
  if (global.json) {
    WriteJson(s, {{"since", ledger::FormatTimestamp(since)}, {"overrides", list}});
  } else if (rows.empty()) {
    s.out << fmt::format("No policy overrides since {}.\n", ledger::FormatTimestamp(since));
  } else {
    t.Render(s.out);
  }
  return {};
}

}  // namespace

void RegisterPolicy(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<PolicyCommandOptions>();
  CLI::App* cmd =
      app.add_subcommand("policy", "The team's GPU policy: check specs, list overrides");
  cmd->require_subcommand(1);
  CLI::App* check =
      cmd->add_subcommand("check", "List every violation with its fix; exit 3 if any");
  check->add_option("--policy", global.policy,
                    "The policy YAML file (default: FRUGAL_POLICY, then the config dir's)");
  check->add_option("specs", opts->specs, "JOB.yaml or STUDY.yaml files")->required();
  check->callback([&, opts] {
    action = [&global, opts](Streams& s) { return RunPolicyCheck(*opts, global, s); };
  });
  CLI::App* overrides = cmd->add_subcommand(
      "overrides", "Who went ahead against the policy, when, why, at what spend");
  overrides->add_option("--since", opts->since, "A duration back (90d) or a date (default 90d)");
  overrides->callback([&, opts] {
    action = [&global, opts](Streams& s) { return RunPolicyOverrides(*opts, global, s); };
  });
}

}  // namespace frugal::cli

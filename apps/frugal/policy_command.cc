// frugal policy check: a job or study spec against the team's GPU policy; exit 3 on violations.

#include <fmt/format.h>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/policy/policy.h"

namespace frugal::cli {
namespace {

struct PolicyCommandOptions {
  std::string policy;
  std::vector<std::string> specs;
};

Result<void> RunPolicyCheck(const PolicyCommandOptions& o, const GlobalOptions& global,
                            Streams& s) {
  std::vector<std::filesystem::path> custom;
  if (!global.catalog.empty()) custom.emplace_back(global.catalog);
  const catalog::Catalog catalog = FRUGAL_TRY(catalog::Catalog::LoadDefault(custom));
  const policy::Policy p = FRUGAL_TRY(policy::LoadPolicy(o.policy, catalog));
  nlohmann::json results = nlohmann::json::array();
  size_t violations = 0;
  for (const std::string& file : o.specs) {
    const policy::Subject subject = FRUGAL_TRY(policy::LoadSubject(file, catalog));
    const std::vector<policy::Violation> found = policy::Check(p, subject);
    violations += found.size();
    nlohmann::json list = nlohmann::json::array();
    for (const policy::Violation& v : found) {
      list.push_back({{"rule", v.rule}, {"message", v.message}});
      if (!global.json) s.out << fmt::format("{}: {}: {}\n", file, v.rule, v.message);
    }
    if (!global.json && found.empty()) {
      s.out << fmt::format("{}: complies with policy {} v{}\n", file, p.name, p.version);
    }
    results.push_back({{"file", file}, {"kind", subject.kind}, {"violations", list}});
  }
  if (global.json) {
    WriteJson(s, {{"policy", p.name}, {"policy_version", p.version}, {"results", results}});
  }
  if (violations > 0) {
    return Fail(ErrorCode::kBudget,
                fmt::format("{} violation(s) of policy {} v{}", violations, p.name, p.version));
  }
  return {};
}

}  // namespace

void RegisterPolicy(CLI::App& app, GlobalOptions& global, Action& action) {
  auto opts = std::make_shared<PolicyCommandOptions>();
  CLI::App* cmd = app.add_subcommand("policy", "Check specs against the team's GPU policy");
  cmd->require_subcommand(1);
  CLI::App* check = cmd->add_subcommand("check", "List every violation; exit 3 if any");
  check->add_option("--policy", opts->policy, "The policy YAML file")->required();
  check->add_option("specs", opts->specs, "JOB.yaml or STUDY.yaml files")->required();
  check->callback(
      [&, opts] { action = [&global, opts](Streams& s) { return RunPolicyCheck(*opts, global, s); }; });
}

}  // namespace frugal::cli

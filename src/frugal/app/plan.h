#pragma once
// Plan a job or a deployment: the one operation `frugal plan` and `POST /api/v1/plan` both
// call. A job spec is ranked by the planner with its caps (deadline, budget, objective), what
// the ledger recorded of earlier runs, and the team's GPU policy; an inference spec gets the
// serving plan and refuses the caps a job takes. The result carries the document both front
// ends print, so `frugal plan --json` and the API answer the same one.

#include <filesystem>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "frugal/app/enforcement.h"
#include "frugal/app/recorded.h"
#include "frugal/catalog/catalog.h"
#include "frugal/ledger/ledger.h"
#include "frugal/plan/job_spec.h"
#include "frugal/plan/planner.h"
#include "frugal/policy/configured.h"
#include "frugal/serving/inference_spec.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::app {

/// How the front end names a request's fields in its messages: `--deadline` on the command
/// line, `deadline` as a query parameter. The rest of each message is the same.
enum class Spelling { kFlag, kParameter };

/// "--name" or "name".
[[nodiscard]] std::string FieldName(Spelling spelling, std::string_view name);

/// What to plan, as the user gave it.
struct PlanInput {
  std::filesystem::path spec_path;    ///< a spec file; its `catalog:` files are read
  std::optional<std::string> posted;  ///< or the spec's text, which may not name files
  std::string deadline;               ///< "36h"; "" = not given
  std::string budget;                 ///< "$500"; "" = not given
  std::string objective;              ///< cost or time; "" = not given (cost)
  std::string memory_headroom;        ///< share of usable GPU memory kept free; "" = the spec's
  size_t top = 10;
  std::optional<std::string> override_reason;  ///< go ahead despite the policy, recorded
  Spelling spelling = Spelling::kFlag;
};

/// What the front end wires in.
struct PlanContext {
  const catalog::Catalog* catalog = nullptr;  ///< the catalog in effect; must outlive the result
  /// The catalog in effect plus a spec file's `catalog:` files; unset: such specs are refused.
  /// It may consume `catalog` (Catalog::WithCustomFiles &&): the plan reads only the catalog it
  /// returns from then on.
  std::function<Result<catalog::Catalog>(const std::vector<std::filesystem::path>&)> catalog_with;
  WithLedger ledger;
  std::string policy_flag;  ///< --policy ("" = $FRUGAL_POLICY or the config dir's policy.yaml)
};

/// The policy's verdict on a job plan: the options it refused (out of the ranking) or, with
/// an override, the shown options that violate it.
struct PolicyVerdict {
  std::optional<policy::ConfiguredPolicy> policy;  ///< nullopt: no policy configured
  std::optional<std::string> override_reason;
  std::optional<ledger::OverrideId> override_id;
  struct Entry {
    size_t rank = 0;
    const plan::Option* option = nullptr;  ///< into the plan's options or refused list
    std::vector<policy::Violation> violations;
  };
  std::vector<Entry> entries;
};

struct JobPlan {
  plan::JobSpec spec;
  plan::Plan plan;
  PolicyVerdict policy;
};

struct DeploymentPlan {
  serving::InferenceSpec spec;
  serving::ServingPlan plan;
};

/// Every option the policy allows is gone: the front end shows `lead` and the violations (or
/// `document`, for JSON) and fails with `error` (kBudget).
struct PlanRefusal {
  std::string lead;  ///< "every one of the 12 ranked options violates policy p v1; the best:"
  Enforcement enforcement;
  Error error;
};

// Every member moves without throwing (checked by std::is_nothrow_move_constructible with g++);
// clang-tidy 14 misreads the variant's move.
// NOLINTNEXTLINE(bugprone-exception-escape)
struct PlanResult {
  std::unique_ptr<catalog::Catalog> own_catalog;  ///< the spec's, when it named files
  std::variant<JobPlan, DeploymentPlan> planned;
  nlohmann::json document;  ///< `plan --json` and the API's response (the refusal's, if refused)
  std::vector<std::string> warnings;  ///< what went wrong without stopping the plan
  std::optional<PlanRefusal> refusal;
};

/// Plans the spec. kBadInput naming the field (in `input.spelling`) or the spec's file, line
/// and field; caps given with an inference spec are refused, never ignored. A ledger that
/// cannot be read is a warning: the plan goes on from the spec alone.
[[nodiscard]] Result<PlanResult> Plan(const PlanInput& input, const PlanContext& context);

/// The run label of an option as the plan table shows it: on_demand, spot, spot+fallback,
/// reserved_1y (est.).
[[nodiscard]] std::string RunLabel(const plan::Option& o);

}  // namespace frugal::app

#include "frugal/app/plan.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/plan/plan_json.h"
#include "frugal/policy/policy.h"
#include "frugal/serving/serving_json.h"

namespace frugal::app {
namespace {

using plan::Option;
using plan::RunKind;

/// True when the spec's `kind` is Inference; a spec that cannot be read is planned as a job,
/// whose reader names what is wrong with it.
bool IsInference(const PlanInput& input) {
  if (!input.posted) {
    const Result<bool> inference = serving::IsInferenceSpec(input.spec_path);
    return inference && *inference;
  }
  const Result<YamlDoc> doc = YamlDoc::Parse(*input.posted, "job.yaml");
  if (!doc) return false;
  const YAML::Node kind = doc->root().IsMap() ? doc->root()["kind"] : YAML::Node();
  return kind.IsDefined() && kind.IsScalar() && kind.Scalar() == "Inference";
}

Error PostedFiles(const std::string& source) {
  return Error{ErrorCode::kBadInput,
               source + ": field 'catalog': a posted spec cannot name files on the server"};
}

/// A job's deadline, budget and objective mean nothing to a serving plan: refused rather than
/// ignored, so a cap the user asked for is never silently dropped.
Result<void> RefuseJobCaps(const PlanInput& in) {
  const std::pair<const char*, bool> caps[] = {
      {"deadline", !in.deadline.empty()},
      {"budget", !in.budget.empty()},
      {"memory-headroom", !in.memory_headroom.empty()},
      {"objective", !in.objective.empty() && in.objective != "cost"}};
  for (const auto& [name, given] : caps) {
    if (!given) continue;
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: an inference spec is planned by its workload, latency and "
                            "lifetime; only {} applies (a job's {} does not)",
                            FieldName(in.spelling, name), FieldName(in.spelling, "top"), name));
  }
  return {};
}

Result<plan::PlanRequest> RequestFrom(const PlanInput& in) {
  plan::PlanRequest r;
  const std::string deadline = FieldName(in.spelling, "deadline");
  const std::string budget = FieldName(in.spelling, "budget");
  const std::string objective = FieldName(in.spelling, "objective");
  if (!in.deadline.empty()) {
    const Duration d = FRUGAL_TRY(
        ParseDuration(in.deadline).map_error([&](const Error& e) { return e.Wrap(deadline); }));
    if (d.count() <= 0) return Fail(ErrorCode::kBadInput, deadline + ": must be positive");
    r.deadline_hours = ToHours(d);
  }
  if (!in.budget.empty()) {
    r.budget = FRUGAL_TRY(
        Money::Parse(in.budget).map_error([&](const Error& e) { return e.Wrap(budget); }));
    if (*r.budget <= Money()) return Fail(ErrorCode::kBadInput, budget + ": must be positive");
  }
  if (!in.memory_headroom.empty()) {
    const auto share = ParseDouble(in.memory_headroom);
    if (!share || !(*share >= 0 && *share < 0.5)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: '{}' is not a share of usable GPU memory in [0, 0.5), e.g. 0.1",
                              FieldName(in.spelling, "memory-headroom"), in.memory_headroom));
    }
    r.memory_headroom = *share;
  }
  if (!in.objective.empty() && in.objective != "cost" && in.objective != "time") {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: expected cost or time, got '{}'", objective, in.objective));
  }
  r.objective = in.objective == "time" ? plan::Objective::kTime : plan::Objective::kCost;
  if (in.top == 0) {
    return Fail(ErrorCode::kBadInput, FieldName(in.spelling, "top") + ": must be at least 1");
  }
  r.top = in.top;
  return r;
}

/// The catalog a spec's `catalog:` files call for: kept in `result`, or the context's.
Result<const catalog::Catalog*> CatalogFor(const std::vector<std::filesystem::path>& files,
                                           const std::string& source, const PlanInput& in,
                                           const PlanContext& ctx, PlanResult& result) {
  if (files.empty()) return ctx.catalog;
  if (in.posted || !ctx.catalog_with) return tl::unexpected(PostedFiles(source));
  result.own_catalog = std::make_unique<catalog::Catalog>(FRUGAL_TRY(ctx.catalog_with(files)));
  return result.own_catalog.get();
}

Result<void> PlanDeployment(const PlanInput& in, const PlanContext& ctx, PlanResult& result) {
  FRUGAL_TRY(RefuseJobCaps(in));
  const std::vector<std::string> gpu_names = ctx.catalog->gpu_names();
  serving::InferenceSpec spec =
      in.posted ? FRUGAL_TRY(serving::ParseInferenceSpec(*in.posted, "inference.yaml",
                                                         UserDataDir(), gpu_names))
                : FRUGAL_TRY(serving::LoadInferenceSpec(in.spec_path, gpu_names));
  const catalog::Catalog* c =
      FRUGAL_TRY(CatalogFor(spec.catalog_files, spec.source, in, ctx, result));
  serving::ServingPlan p = FRUGAL_TRY(serving::PlanServing(spec, *c, {in.top}));
  result.document = serving::ServingPlanJson(spec, p);
  result.planned = DeploymentPlan{std::move(spec), std::move(p)};
  return {};
}

std::vector<policy::Violation> Check(const PolicyVerdict& v, const policy::Subject& job,
                                     const Option& o) {
  return policy::Check(v.policy->policy, policy::ForOption(job, o));
}

nlohmann::json PolicyJson(const plan::Plan& p, const PolicyVerdict& v) {
  if (!v.policy) return nullptr;
  nlohmann::json entries = nlohmann::json::array();
  for (const PolicyVerdict::Entry& e : v.entries) {
    entries.push_back({{"rank", e.rank},
                       {"offer", e.option->offer->Id()},
                       {"run", plan::RunKindName(e.option->kind)},
                       {"gpu", e.option->offer->gpu},
                       {"gpu_count", e.option->gpus},
                       {"expected_cost_usd", e.option->expected_cost.dollars()},
                       {"violations", ViolationsJson(e.violations)}});
  }
  nlohmann::json doc = {{"name", v.policy->policy.name},
                        {"version", v.policy->policy.version},
                        {"file", v.policy->location.path.string()},
                        {"refused_count", p.refused_count}};
  if (v.override_reason) {
    doc["override"] = {{"reason", *v.override_reason},
                       {"id", v.override_id ? nlohmann::json(*v.override_id) : nlohmann::json()}};
    doc["violating_options"] = entries;
  } else {
    doc["override"] = nullptr;
    doc["refused"] = entries;
  }
  return doc;
}

/// After planning: a refusal when every ranked option is refused (unless overridden); with
/// an override, the shown options that violate, and the override recorded.
Result<void> ApplyPolicy(JobPlan& job, const policy::Subject& subject, const PlanContext& ctx,
                         PlanResult& result) {
  PolicyVerdict& v = job.policy;
  const plan::Plan& p = job.plan;
  Enforcement e{"plan", "job " + job.spec.name, subject.tags, {}, v.override_reason};
  if (!v.override_reason) {
    for (const plan::RefusedOption& r : p.refused) {
      v.entries.push_back({r.rank, &r.option, Check(v, subject, r.option)});
    }
    if (!p.options.empty() || v.entries.empty()) return {};
    // Nothing the policy allows: refused with the violations of the best option.
    const PolicyVerdict::Entry& best = v.entries.front();
    e.subject_label = fmt::format("job {} on {} {}", job.spec.name, best.option->offer->Id(),
                                  RunLabel(*best.option));
    e.violations = best.violations;
    const Error error = RefusalError(e, *v.policy);
    result.refusal =
        PlanRefusal{fmt::format("every one of the {} ranked options violates policy {}; the best:",
                                p.refused_count, v.policy->policy.Label()),
                    e, error};
    return {};
  }
  for (size_t i = 0; i < p.options.size(); ++i) {
    std::vector<policy::Violation> found = Check(v, subject, p.options[i]);
    if (found.empty()) continue;
    for (const policy::Violation& x : found) {
      const bool seen = std::any_of(e.violations.begin(), e.violations.end(), [&](const auto& y) {
        return y.rule == x.rule && y.message == x.message;
      });
      if (!seen) e.violations.push_back(x);
    }
    v.entries.push_back({i + 1, &p.options[i], std::move(found)});
  }
  if (e.violations.empty()) return {};
  result.warnings.push_back(OverrideWarning(e, *v.policy));
  if (!ctx.ledger)
    return Fail(ErrorCode::kBadInput, "an override needs a ledger to be recorded in");
  ledger::OverrideId id{};
  const LedgerUse record = [&](ledger::Ledger& db) -> Result<void> {
    id = FRUGAL_TRY(RecordOverride(db, e, *v.policy));
    return {};
  };
  FRUGAL_TRY(ctx.ledger(ledger::CreateMode::kCreateIfMissing, record));
  v.override_id = id;
  return {};
}

Result<policy::Subject> SubjectOf(const PlanInput& in, const catalog::Catalog& c) {
  if (in.posted) return policy::JobSubjectFromText(*in.posted, "job.yaml", c);
  return policy::LoadSubject(in.spec_path, c);
}

Result<void> PlanJob(const PlanInput& in, const PlanContext& ctx, PlanResult& result) {
  plan::PlanRequest request = FRUGAL_TRY(RequestFrom(in));
  const std::filesystem::path drills = UserDataDir() / "drills";
  const std::vector<std::string> gpu_names = ctx.catalog->gpu_names();
  plan::JobSpec spec =
      in.posted ? FRUGAL_TRY(plan::ParseJobSpec(*in.posted, "job.yaml", {}, gpu_names, drills))
                : FRUGAL_TRY(plan::LoadJobSpec(in.spec_path, gpu_names, drills));
  const catalog::Catalog* c =
      FRUGAL_TRY(CatalogFor(spec.catalog_files, spec.source, in, ctx, result));
  if (std::optional<std::string> warning = AddRecordedMeasurements(spec, *c, ctx.ledger))
    result.warnings.push_back(std::move(*warning));
  PolicyVerdict verdict;
  verdict.policy = FRUGAL_TRY(policy::LoadConfiguredPolicy(ctx.policy_flag, *c));
  policy::Subject subject;
  if (verdict.policy) {
    subject = FRUGAL_TRY(SubjectOf(in, *c));
    verdict.override_reason = in.override_reason;
    if (!in.override_reason) {
      request.refuse = [&verdict, &subject](const Option& option) {
        return !Check(verdict, subject, option).empty();
      };
    }
  }
  plan::Plan p = FRUGAL_TRY(plan::MakePlan(spec, *c, request));
  // In place before the verdict points into its options.
  JobPlan& job =
      result.planned.emplace<JobPlan>(JobPlan{std::move(spec), std::move(p), std::move(verdict)});
  if (job.policy.policy) FRUGAL_TRY(ApplyPolicy(job, subject, ctx, result));
  if (result.refusal) {
    result.document = RefusalJson(result.refusal->enforcement, *job.policy.policy);
    return {};
  }
  result.document =
      plan::PlanJson(job.spec, job.plan, in.objective.empty() ? "cost" : in.objective);
  result.document["policy"] = PolicyJson(job.plan, job.policy);
  return {};
}

}  // namespace

std::string FieldName(Spelling spelling, std::string_view name) {
  return spelling == Spelling::kFlag ? fmt::format("--{}", name) : std::string(name);
}

std::string RunLabel(const Option& o) {
  switch (o.kind) {
    case RunKind::kPlain:
      return std::string(CapacityTierName(o.offer->tier));
    case RunKind::kSpot:
      return "spot";
    case RunKind::kFallback:
      return "spot+fallback";
    case RunKind::kReserved:
      return std::string(CapacityTierName(o.offer->tier)) + " (est.)";
  }
  return "?";
}

Result<PlanResult> Plan(const PlanInput& input, const PlanContext& context) {
  FRUGAL_TRY(CheckOverrideReason(input.override_reason));
  PlanResult result;
  if (IsInference(input)) {
    FRUGAL_TRY(PlanDeployment(input, context, result));
  } else {
    FRUGAL_TRY(PlanJob(input, context, result));
  }
  return result;
}

}  // namespace frugal::app

// Reading what a Job or Study spec asks for. Jobs go through the planner's parser, so a spec
// the planner rejects is rejected here with the same error; studies (whose parser lives in
// tune, above this layer) are read for the fields the policy judges only.

#include <fmt/format.h>

#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/plan/job_spec.h"
#include "frugal/policy/policy.h"

namespace frugal::policy {
namespace {

// resources.offer: the offer's GPU, and the tier its text names unless resources.tier did.
Result<void> ReadStudyOffer(const YamlDoc& doc, const YAML::Node& r, const std::string& offer,
                            const catalog::Catalog& catalog, Subject& s) {
  // The tuner's offer text: an instance type, or "cloud:instance[:region[:tier]] [tier]".
  std::string instance = offer.substr(0, offer.find(' '));
  if (const size_t colon = instance.find(':'); colon != std::string::npos) {
    instance = instance.substr(colon + 1);
    instance = instance.substr(0, instance.find(':'));
  }
  for (const catalog::Offer& o : catalog.offers()) {
    if ((o.instance_type == instance || o.Id() == offer) && !o.gpu.empty()) {
      s.gpus = {o.gpu};
      break;
    }
  }
  if (s.gpus.empty()) {
    return tl::unexpected(doc.ErrorAt(r["offer"], "resources.offer",
                                      fmt::format("no GPU offer '{}' in the catalog", offer)));
  }
  // The tier written in the offer text (" spot", or the id's last ':' part) when
  // resources.tier does not say it.
  const size_t space = offer.find(' ');
  const std::string tier_text = space != std::string::npos
                                    ? std::string(Trim(offer.substr(space + 1)))
                                    : offer.substr(offer.rfind(':') + 1);
  if (const auto tier = ParseRentedTier(tier_text); s.tiers.empty() && tier) {
    s.tiers = {*tier};
  }
  return {};
}

Result<void> ReadStudyResources(const YamlDoc& doc, const YAML::Node& r,
                                const catalog::Catalog& catalog, Subject& s) {
  if (auto tier = FRUGAL_TRY(doc.OptionalString(r, "tier"))) {
    const Result<CapacityTier> parsed = ParseRentedTier(*tier);
    if (!parsed) {
      return tl::unexpected(doc.ErrorAt(r["tier"], "resources.tier", parsed.error().message));
    }
    s.tiers = {*parsed};
  }
  if (auto gpu = FRUGAL_TRY(doc.OptionalString(r, "gpu"))) {
    const catalog::GpuSpec* spec = catalog.FindGpu(*gpu);
    if (spec == nullptr) {
      return tl::unexpected(
          doc.ErrorAt(r["gpu"], "resources.gpu", fmt::format("unknown GPU '{}'", *gpu)));
    }
    s.gpus = {spec->name};
  }
  if (auto offer = FRUGAL_TRY(doc.OptionalString(r, "offer"))) {
    FRUGAL_TRY(ReadStudyOffer(doc, r, *offer, catalog, s));
  }
  if (const YAML::Node ci = r["checkpoint_interval"]) {
    s.fault_tolerant = true;
    s.checkpoint_interval = FRUGAL_TRY(doc.OptionalDuration(ci, "max"));
  }
  return {};
}

Result<Subject> StudySubject(const YamlDoc& doc, const catalog::Catalog& catalog) {
  const YAML::Node& root = doc.root();
  Subject s;
  s.kind = "Study";
  s.name = FRUGAL_TRY(doc.RequiredString(root, "name"));
  s.tags = FRUGAL_TRY(doc.StringMap(root, "tags"));
  if (const YAML::Node r = root["resources"]) FRUGAL_TRY(ReadStudyResources(doc, r, catalog, s));
  if (const YAML::Node g = root["gates"]) {
    if (auto usd = FRUGAL_TRY(doc.OptionalDouble(g, "budget_usd"))) {
      Result<Money> budget = Money::FromDollarsChecked(*usd);
      if (!budget) {
        return tl::unexpected(
            doc.ErrorAt(g["budget_usd"], "gates.budget_usd", budget.error().message));
      }
      s.budget = *budget;
    }
  }
  return s;
}

/// A Job subject: what the planner's reading of the spec asks for.
Subject JobSubject(const YamlDoc& doc, const plan::JobSpec& spec) {
  Subject s;
  s.kind = "Job";
  s.name = spec.name;
  s.tags = spec.tags;
  s.gpus = spec.constraints.gpus;
  s.tiers = spec.constraints.tiers;
  s.fault_tolerant =
      static_cast<bool>(doc.root()["fault_tolerance"]) || !spec.fault_tolerance.drill.empty();
  // On notice only when the save fits in the notice: else the planner checkpoints periodically
  // and the policy's interval applies.
  const plan::FaultTolerance& ft = spec.fault_tolerance;
  s.checkpoint_on_notice = s.fault_tolerant && plan::SavesOnNotice(ft);
  if (s.fault_tolerant && ft.checkpoint_on_notice && !s.checkpoint_on_notice) {
    s.notice_too_short = fmt::format("its checkpoint write ({}) does not fit in the {} notice",
                                     FormatDuration(FromHours(ft.checkpoint_write_hours)),
                                     FormatDuration(FromHours(ft.notice_hours)));
  }
  s.budget = spec.constraints.budget;
  return s;
}

}  // namespace

Result<Subject> LoadSubject(const std::filesystem::path& path, const catalog::Catalog& catalog) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  const std::string kind = FRUGAL_TRY(doc.OptionalString(doc.root(), "kind")).value_or("Job");
  if (kind == "Study") return StudySubject(doc, catalog);
  if (kind != "Job") {
    return tl::unexpected(doc.ErrorAt(doc.root()["kind"], "kind", "must be Job or Study"));
  }
  // With the drill records, so the fault tolerance judged is the one plan and run use.
  return JobSubject(
      doc, FRUGAL_TRY(plan::LoadJobSpec(path, catalog.gpu_names(), UserDataDir() / "drills")));
}

Result<Subject> JobSubjectFromText(std::string_view yaml, const std::string& source,
                                   const catalog::Catalog& catalog) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(yaml, source));
  return JobSubject(doc, FRUGAL_TRY(plan::ParseJobSpec(yaml, source, {}, catalog.gpu_names(),
                                                       UserDataDir() / "drills")));
}

Result<Subject> StudySubjectFromText(std::string_view yaml, std::string source,
                                     const catalog::Catalog& catalog) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(yaml, std::move(source)));
  return StudySubject(doc, catalog);
}

Subject ForOption(const Subject& job, const plan::Option& option) {
  Subject s = job;
  s.gpus.clear();
  s.no_gpu = option.offer->gpu.empty();
  if (!s.no_gpu) s.gpus.push_back(option.offer->gpu);
  const bool spot = option.kind == plan::RunKind::kSpot || option.kind == plan::RunKind::kFallback;
  if (option.kind == plan::RunKind::kFallback) {
    s.tiers = {CapacityTier::kSpot, option.fallback_offer->tier};
    const std::string& gpu = option.fallback_offer->gpu;
    if (!gpu.empty() && gpu != option.offer->gpu) s.gpus.push_back(gpu);
  } else {
    s.tiers = {spot ? CapacityTier::kSpot : option.offer->tier};
  }
  // What the option does on spot, not what the spec wishes: a save that does not fit in the
  // notice is planned as periodic checkpoints, which the policy's interval judges.
  if (spot && option.spot.strategy == plan::CheckpointStrategy::kOnNotice) {
    s.checkpoint_on_notice = true;
  } else if (spot && option.spot.strategy == plan::CheckpointStrategy::kPeriodic) {
    s.checkpoint_on_notice = false;
    s.checkpoint_interval = FromHours(option.spot.interval_hours);
  }
  return s;
}

}  // namespace frugal::policy

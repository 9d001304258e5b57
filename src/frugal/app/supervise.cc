#include "frugal/app/supervise.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <random>

#include "frugal/catalog/twin.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/log.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/core/tier.h"
#include "frugal/run/metadata_notice.h"
#include "frugal/run/run_control.h"
#include "frugal/run/run_text.h"
#include "frugal/run/spec_gate.h"

namespace frugal::app {
namespace {

namespace fs = std::filesystem;

Result<Duration> ParseOptionDuration(const std::string& option, const std::string& text) {
  Result<Duration> d = ParseDuration(text);
  if (!d)
    return Fail(ErrorCode::kBadInput, fmt::format("option {}: {}", option, d.error().message));
  return d;
}

std::string DefaultRunId() {
  if (const char* job = std::getenv("SLURM_JOB_ID"); job != nullptr && *job != '\0') {
    return std::string("slurm-") + job;  // a requeued Slurm job keeps its id: it resumes
  }
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  std::random_device rd;
  return fmt::format("r-{:04}{:02}{:02}-{:02}{:02}{:02}-{:04x}", tm.tm_year + 1900, tm.tm_mon + 1,
                     tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rd() & 0xffff);
}

struct Pricing {
  Rate rate;
  int gpus = 1;
  std::string offer;
  std::optional<CapacityTier> tier;  ///< unset: --price without --tier
  ledger::SegmentOffer record;       ///< what the ledger's segments say the run ran on
};

Pricing PriceOf(const catalog::Catalog& c, const catalog::Offer& offer, int instances) {
  Pricing p;
  p.rate = Rate{offer.price.per_hour * instances};
  p.gpus = std::max(offer.gpu_count * instances, 1);
  p.offer = offer.Id();
  p.tier = offer.tier;
  p.record.cloud = offer.cloud;
  p.record.instance_type = offer.instance_type;
  p.record.region = offer.region;
  p.record.zone = offer.zone;
  p.record.gpu = offer.gpu;
  p.record.gpu_count = offer.gpu_count * instances;
  p.record.tier = offer.tier;
  p.record.price = p.rate;
  if (std::optional<Rate> twin = catalog::OnDemandTwinPrice(c, offer))
    p.record.on_demand_price = Rate{twin->per_hour * instances};
  return p;
}

Result<Pricing> PriceOnly(const SuperviseRequest& o) {
  Pricing p;
  Result<Rate> rate = Rate::Parse(o.price);
  if (!rate) return Fail(ErrorCode::kBadInput, "option --price: " + rate.error().message);
  p.rate = *rate;
  p.gpus = o.gpus > 0 ? o.gpus : 1;
  if (!o.tier.empty()) {
    // Capacity priced by hand may be owned (on-prem, a queue's owned pool): a tier of its own.
    Result<CapacityTier> tier = ParseCapacityTier(o.tier);
    if (!tier) return Fail(ErrorCode::kBadInput, "option --tier: " + tier.error().message);
    p.tier = *tier;
    p.record.tier = *tier;
  }
  p.record.cloud = "custom";
  p.record.gpu = o.gpu;  // with --price, --gpu names the model recorded, not an offer to pick
  p.record.gpu_count = p.gpus;
  p.record.price = p.rate;
  return p;
}

Result<const catalog::Offer*> ChooseOffer(const SuperviseRequest& o, const catalog::Catalog& c) {
  if (!o.offer.empty()) {
    for (const catalog::Offer& offer : c.offers()) {
      if (ToLower(offer.Id()) == ToLower(o.offer)) return &offer;
    }
    return Fail(ErrorCode::kBadInput,
                fmt::format("option --offer: no offer '{}' in the catalog (see "
                            "`frugal catalog offers`; ids are CLOUD:INSTANCE:REGION:TIER)",
                            o.offer));
  }
  catalog::OfferQuery q;
  q.gpu = o.gpu;
  q.min_gpus = o.gpus > 0 ? o.gpus : 1;
  const Result<CapacityTier> tier =
      o.tier.empty() ? Result<CapacityTier>(CapacityTier::kSpot) : ParseRentedTier(o.tier);
  if (!tier) return Fail(ErrorCode::kBadInput, "option --tier: " + tier.error().message);
  q.tier = *tier;
  q.limit = 1;
  const auto offers = FRUGAL_TRY(c.Query(q));
  if (offers.empty()) {
    return Fail(ErrorCode::kBadInput, fmt::format("no {} offer with at least {} x {}",
                                                  CapacityTierName(*tier), q.min_gpus, o.gpu));
  }
  return offers.front();
}

/// The job spec `--spec` names, with the catalog its custom offers extend.
struct LoadedSpec {
  plan::JobSpec spec;
  std::string text;
  catalog::Catalog catalog;
};

Result<LoadedSpec> LoadSpec(const SuperviseRequest& o, const SuperviseContext& ctx) {
  const std::vector<std::string> gpu_names = FRUGAL_TRY(catalog::Catalog::LoadDefaultGpuNames());
  plan::JobSpec spec = FRUGAL_TRY(plan::LoadJobSpec(o.spec, gpu_names, UserDataDir() / "drills"));
  catalog::Catalog c = FRUGAL_TRY(ctx.catalog(spec.catalog_files));
  if (std::optional<std::string> warning = AddRecordedMeasurements(spec, c, ctx.ledger))
    log::Warning("{}", *warning);
  std::string text = FRUGAL_TRY(ReadFile(o.spec));
  return LoadedSpec{std::move(spec), std::move(text), std::move(c)};
}

/// Pricing for a run from a spec: the offer given (--offer/--gpu), or the planner's best; the
/// estimate on it gated against the budget. `caps` are the run's (flags over the spec).
Result<Pricing> PriceSpecRun(const SuperviseRequest& o, const LoadedSpec& loaded,
                             const run::BudgetCaps& caps) {
  std::string offer_id;
  if (!o.offer.empty() || !o.gpu.empty())
    offer_id = FRUGAL_TRY(ChooseOffer(o, loaded.catalog))->Id();
  const std::optional<run::SpecEstimate> estimate =
      FRUGAL_TRY(run::EstimateSpecRun(loaded.spec, loaded.catalog, offer_id));
  const bool unmeasured = !loaded.spec.modelled && loaded.spec.measured.empty();
  if (!estimate && unmeasured) {
    if (offer_id.empty()) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format(
              "{}: a job of the {} family is planned from measurements and none is recorded "
              "yet: give its first run --offer, --gpu or --price; that run "
              "measures it for the next plan",
              o.spec, estimate::ModelFamilyName(loaded.spec.family)));
    }
    log::Info(
        "{}: nothing measured of this job yet: running on {} unestimated; this run "
        "measures it for the next plan",
        o.spec, offer_id);
    return PriceOf(loaded.catalog, *FRUGAL_TRY(ChooseOffer(o, loaded.catalog)), 1);
  }
  if (!estimate) {
    if (offer_id.empty()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: the planner finds no offer this job can run on (see "
                              "`frugal plan {}`)",
                              o.spec, o.spec));
    }
    log::Warning(
        "{}: the planner ranks no option on {} (it does not fit or misses the deadline; see "
        "`frugal "
        "plan`), so the budget cannot be checked against an estimate",
        o.spec, offer_id);
    const catalog::Offer* offer = FRUGAL_TRY(ChooseOffer(o, loaded.catalog));
    return PriceOf(loaded.catalog, *offer, 1);
  }
  const std::string warning = FRUGAL_TRY(
      run::GateOnEstimate(*estimate, caps.dollars, caps.gpu_hours,
                          o.allow_overrun ? run::Overrun::kAllow : run::Overrun::kRefuse));
  if (!warning.empty()) log::Warning("{}", warning);
  log::Info("{}: running on {}{} ({}), estimated {} over {}", o.spec, estimate->offer->Id(),
            estimate->instances > 1 ? fmt::format(" x{}", estimate->instances) : std::string(),
            estimate->price.ToString(), estimate->expected_cost.ToString(),
            FormatDuration(FromHours(estimate->wall_hours)));
  return PriceOf(loaded.catalog, *estimate->offer, estimate->instances);
}

Result<Pricing> ResolvePricing(const SuperviseRequest& o, const SuperviseContext& ctx) {
  // --gpu prices the run at an offer, or with --price only names the GPU model recorded.
  const int given = (o.price.empty() ? 0 : 1) + (o.offer.empty() ? 0 : 1) +
                    (o.gpu.empty() || !o.price.empty() ? 0 : 1);
  if (given != 1) {
    return Fail(ErrorCode::kBadInput,
                "say what the run is priced at: exactly one of --price 3.06/h [--gpu MODEL "
                "--gpus N --tier T recorded], --offer CLOUD:INSTANCE:REGION:TIER, "
                "--gpu MODEL [--gpus N --tier T], or a job spec (--spec JOB.yaml)");
  }
  if (!o.price.empty()) return PriceOnly(o);
  const catalog::Catalog c = FRUGAL_TRY(ctx.catalog({}));
  const catalog::Offer* chosen = FRUGAL_TRY(ChooseOffer(o, c));
  return PriceOf(c, *chosen, 1);
}

/// Flags are the user's words, quoted back in messages and kept in the journal: UTF-8 text.
/// (--run-dir is a path, the command the user's business: both are written escaped.)
Result<void> CheckSuperviseFlagTexts(const SuperviseRequest& o) {
  for (const auto& [flag, value] : {std::pair<const char*, const std::string&>{"--price", o.price},
                                    {"--offer", o.offer},
                                    {"--gpu", o.gpu},
                                    {"--tier", o.tier},
                                    {"--budget", o.budget},
                                    {"--max-wall", o.max_wall},
                                    {"--spec", o.spec},
                                    {"--grace", o.grace},
                                    {"--stop-grace", o.stop_grace},
                                    {"--accrual-interval", o.accrual},
                                    {"--heartbeat-interval", o.heartbeat},
                                    {"--sample-interval", o.sample},
                                    {"--metadata", o.metadata},
                                    {"--metadata-endpoint", o.metadata_endpoint},
                                    {"--metadata-interval", o.metadata_interval}}) {
    FRUGAL_TRY(run::CheckFlagText(flag, value));
  }
  return {};
}

/// --budget, --max-gpu-hours, --max-wall and each --tag, over what the spec said.
Result<void> ApplyCapsAndTags(const SuperviseRequest& o, run::SupervisorConfig& c) {
  if (!o.budget.empty()) {
    Result<Money> budget = Money::Parse(o.budget);
    if (!budget || *budget <= Money()) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("option --budget: '{}' is not a positive amount", o.budget));
    }
    c.caps.dollars = *budget;
  }
  if (o.max_gpu_hours) {
    if (!(*o.max_gpu_hours > 0))
      return Fail(ErrorCode::kBadInput, "option --max-gpu-hours: must be positive");
    c.caps.gpu_hours = *o.max_gpu_hours;
  }
  if (!o.max_wall.empty()) {
    c.caps.wall = FRUGAL_TRY(ParseOptionDuration("--max-wall", o.max_wall));
    if (c.caps.wall->count() <= 0)
      return Fail(ErrorCode::kBadInput, "option --max-wall: must be positive");
  }
  for (const std::string& text : o.tags) {
    // Checked as UTF-8 before the message below quotes it.
    const size_t eq = text.find('=');
    FRUGAL_TRY(run::CheckTagText(text.substr(0, std::min(eq, text.size())),
                                 eq == std::string::npos ? "" : text.substr(eq + 1), "--tag"));
    const ledger::Tag tag = FRUGAL_TRY(
        ledger::ParseTag(text).map_error([](const Error& e) { return e.Wrap("option --tag"); }));
    c.tags[tag.key] = tag.value;
  }
  return {};
}

/// What the run is priced at: the planner's pick for a spec without --price, else the flags'.
Result<Pricing> PriceRun(const SuperviseRequest& o, const std::optional<LoadedSpec>& loaded,
                         const run::BudgetCaps& caps, const SuperviseContext& ctx) {
  if (loaded && o.price.empty()) {
    if (!o.offer.empty() && !o.gpu.empty())
      return Fail(ErrorCode::kBadInput, "give --offer or --gpu, not both");
    return PriceSpecRun(o, *loaded, caps);
  }
  if (loaded)
    log::Warning(
        "--price names capacity the planner does not know: no estimate to check the budget");
  return ResolvePricing(o, ctx);
}

/// The grace periods, intervals and checkpoints kept.
Result<void> ApplyIntervals(const SuperviseRequest& o, run::SupervisorConfig& c) {
  c.checkpoint_grace = FRUGAL_TRY(ParseOptionDuration("--grace", o.grace));
  c.stop_grace = FRUGAL_TRY(ParseOptionDuration("--stop-grace", o.stop_grace));
  c.accrual_interval = FRUGAL_TRY(ParseOptionDuration("--accrual-interval", o.accrual));
  c.heartbeat_interval = FRUGAL_TRY(ParseOptionDuration("--heartbeat-interval", o.heartbeat));
  c.sample_interval = FRUGAL_TRY(ParseOptionDuration("--sample-interval", o.sample));
  if (c.accrual_interval.count() <= 0)
    return Fail(ErrorCode::kBadInput, "option --accrual-interval: must be positive");
  if (o.keep_checkpoints < 1)
    return Fail(ErrorCode::kBadInput, "option --keep-checkpoints: must be at least 1");
  c.keep_checkpoints = o.keep_checkpoints;
  return {};
}

}  // namespace

Result<SuperviseSetup> SetUpSupervisedRun(const SuperviseRequest& o, const SuperviseContext& ctx) {
  FRUGAL_TRY(CheckSuperviseFlagTexts(o));
  SuperviseSetup setup;
  run::SupervisorConfig& c = setup.config;
  std::optional<LoadedSpec> loaded;
  if (!o.spec.empty()) {
    loaded = FRUGAL_TRY(LoadSpec(o, ctx));
    // The spec's tags and caps; the flags below override them one by one.
    for (const auto& [key, value] : loaded->spec.tags) c.tags[key] = value;
    c.caps.dollars = loaded->spec.constraints.budget;
    c.caps.gpu_hours = loaded->spec.constraints.max_gpu_hours;
    setup.spec_text = loaded->text;
    setup.job_name = loaded->spec.measurement_name;
  } else if (o.allow_overrun) {
    return Fail(ErrorCode::kBadInput,
                "option --allow-overrun: only with --spec (it lifts the estimate gate)");
  }
  FRUGAL_TRY(ApplyCapsAndTags(o, c));
  const Pricing p = FRUGAL_TRY(PriceRun(o, loaded, c.caps, ctx));
  setup.offer = p.record;
  c.price = p.rate;
  c.gpus = p.gpus;
  c.offer = p.offer;
  c.tier = p.tier;
  FRUGAL_TRY(ApplyIntervals(o, c));
  c.command = o.command;
  c.run_id = o.run_id.empty() ? DefaultRunId() : o.run_id;
  FRUGAL_TRY(run::CheckRunId(c.run_id, "--run-id"));
  c.run_dir = o.run_dir.empty() ? run::DefaultRunDir(c.run_id) : fs::path(o.run_dir);
  c.child_stdout = ctx.json ? run::ChildStdout::kToStderr : run::ChildStdout::kInherit;
  return setup;
}

Result<std::unique_ptr<run::PreemptionSource>> MetadataSource(const SuperviseRequest& o) {
  if (o.metadata.empty()) {
    if (!o.metadata_endpoint.empty())
      return Fail(ErrorCode::kBadInput, "option --metadata-endpoint needs --metadata");
    return std::unique_ptr<run::PreemptionSource>();
  }
  Result<run::MetadataKind> kind = run::ParseMetadataKind(o.metadata);
  if (!kind) return Fail(ErrorCode::kBadInput, "option --metadata: " + kind.error().message);
  const Duration interval =
      FRUGAL_TRY(ParseOptionDuration("--metadata-interval", o.metadata_interval));
  const std::string endpoint =
      o.metadata_endpoint.empty() ? run::DefaultMetadataEndpoint(*kind) : o.metadata_endpoint;
  std::unique_ptr<run::MetadataPreemptions> poller =
      FRUGAL_TRY(run::MetadataPreemptions::Start(*kind, endpoint, interval));
  return std::unique_ptr<run::PreemptionSource>(std::move(poller));
}

}  // namespace frugal::app

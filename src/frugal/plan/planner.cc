#include "frugal/plan/planner.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "frugal/catalog/gpu_fractions.h"
#include "frugal/core/text.h"
#include "frugal/estimate/network.h"
#include "frugal/plan/advice.h"
#include "frugal/plan/knob_search.h"
#include "frugal/plan/measured_transfer.h"
#include "frugal/plan/plan_checks.h"

namespace frugal::plan {

std::string_view RunKindName(RunKind k) {
  switch (k) {
    case RunKind::kPlain:
      return "plain";
    case RunKind::kSpot:
      return "spot";
    case RunKind::kFallback:
      return "spot_with_on_demand_fallback";
    case RunKind::kReserved:
      return "reserved_estimate";
  }
  return "?";
}

namespace {

namespace est = estimate;

/// Options that would run longer are excluded rather than priced.
constexpr double kMaxPlannedHours = 1e6;
using catalog::Offer;

/// Below this spot deadline risk a fallback changes nothing worth listing.
constexpr double kMinFallbackRisk = 0.005;

struct Context {
  const JobSpec& spec;
  const catalog::Catalog& catalog;
  const PlanRequest& request;
  Plan& plan;
  std::map<std::pair<std::string, int>, KnobResult> knobs;
  std::map<std::string, size_t> excluded;
  std::vector<Option> candidates;
  std::vector<BaselineCost> baselines;
  /// Inter-node network figures per cloud and instance (data/catalog/network.csv).
  std::vector<est::NetworkFigure> network;
  /// Transfer prices (data/transfer/), loaded when the spec says where its data lives.
  std::optional<catalog::TransferPrices> transfer;
};

void Exclude(Context& ctx, const std::string& reason) { ++ctx.excluded[reason]; }

/// Why a constraint filters this offer out; empty when it passes.
std::string ConstraintReason(const Offer& o, const Constraints& c) {
  const auto in = [](const std::vector<std::string>& list, const std::string& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  if (!in(c.clouds, o.cloud)) return "cloud not in constraints.clouds";
  if (!in(c.regions, o.region)) return "region not in constraints.regions";
  if (!c.tiers.empty() && std::find(c.tiers.begin(), c.tiers.end(), o.tier) == c.tiers.end()) {
    return "tier not in constraints.tiers";
  }
  if (!c.gpus.empty() && !in(c.gpus, o.gpu)) return "GPU not in constraints.gpus";
  return "";
}

const MeasuredProfile* FindProfile(const JobSpec& spec, const Offer& o, int total) {
  for (const MeasuredProfile& p : spec.measured) {
    if (!p.runtime_hours && !p.tokens_per_second && !p.samples_per_second) continue;
    // Carried to CPU offers by their vCPUs (CarryToCpuOffer), except to the offer it names.
    if (p.cpu_vcpus && p.offer.empty()) continue;
    if (!p.offer.empty()) {
      if (o.NamedBy(p.offer) && total == o.gpu_count) return &p;
    } else if (p.gpu == o.gpu && (p.gpus == total || (p.gpus == 0 && total == o.gpu_count))) {
      return &p;
    }
  }
  return nullptr;
}

const KnobResult& Knobs(Context& ctx, const catalog::GpuSpec& gpu, int total) {
  const auto key = std::make_pair(gpu.name, total);
  auto it = ctx.knobs.find(key);
  if (it == ctx.knobs.end()) {
    // Jobs past one node run over a training cluster's network: the best the table lists
    // for the GPU, unless the spec names one.
    const double network = est::BestNetworkGbps(ctx.network, gpu.name).value_or(0.0);
    it = ctx.knobs
             .emplace(key, SearchKnobs(ctx.spec, gpu, total, ctx.plan.tokens, network,
                                       ctx.plan.memory_headroom))
             .first;
    ctx.plan.evaluated += it->second.evaluated;
  }
  return it->second;
}

/// A spot option's wall time and cost, with capacity waits and the preemptions the checkpoint
/// model expects; false (the option excluded) when the job cannot run on spot.
bool PriceSpot(Context& ctx, Option& opt, const LaunchCosts& launch, const Rate& rate) {
  const Offer& o = *opt.offer;
  const auto deadline = ctx.plan.deadline_hours;
  if (const auto& why = ctx.spec.fault_tolerance.not_spot_ready) {
    Exclude(ctx, fmt::format("spot: drill '{}' found the job not spot-ready ({})",
                             ctx.spec.fault_tolerance.drill, *why));
    return false;
  }
  opt.kind = RunKind::kSpot;
  // Capacity may be out at the start (the share of the time it is, for its mean outage),
  // and is out after every preemption until it comes back.
  const catalog::SpotRisk& risk = o.spot_risk;
  opt.capacity_wait_hours = (1.0 - risk.available_share) * risk.mean_outage_hours;
  opt.launch_hours += opt.capacity_wait_hours;
  // Each restart waits for capacity (no instance, nothing billed) and stages the dataset
  // again on the new instance.
  FaultTolerance ft = ctx.spec.fault_tolerance;
  ft.restart_hours += StagingHours(launch, ctx.plan.data.gb);
  opt.spot =
      ModelSpotRun(opt.work_hours, o.preemptions_per_hour * opt.instances, ft,
                   deadline ? std::optional<double>(*deadline - opt.launch_hours) : std::nullopt,
                   risk.mean_outage_hours);
  if (!opt.spot.viable) {
    Exclude(ctx, opt.spot.strategy == CheckpointStrategy::kFromScratch
                     ? "spot: the job does not resume from checkpoints and a preemption "
                       "comes long before a run from scratch could end"
                     : "spot: preempted faster than it can restart");
    return false;
  }
  opt.wall_hours = opt.launch_hours + opt.spot.expected_wall_hours;
  opt.billed_hours =
      BilledHours(launch, opt.wall_hours - opt.capacity_wait_hours - opt.spot.capacity_wait_hours);
  opt.expected_cost = rate.ForHours(opt.billed_hours);
  opt.deadline_miss_probability = opt.spot.deadline_miss_probability;
  return true;
}

/// The option's wall time, billed hours and compute cost on its offer's tier; false (the
/// option excluded) when the tier cannot be priced for this job.
bool PriceByTier(Context& ctx, Option& opt, const LaunchCosts& launch, const Rate& rate) {
  switch (opt.offer->tier) {
    case CapacityTier::kOnDemand:
      opt.wall_hours = opt.launch_hours + opt.work_hours;
      opt.billed_hours = BilledHours(launch, opt.wall_hours);
      opt.expected_cost = rate.ForHours(opt.billed_hours);
      return true;
    case CapacityTier::kSpot:
      return PriceSpot(ctx, opt, launch, rate);
    case CapacityTier::kReserved1y:
    case CapacityTier::kReserved3y: {
      const auto utilization = ctx.spec.constraints.reserved_utilization;
      if (!utilization) {
        Exclude(ctx, "reserved tiers: shown only with constraints.reserved_utilization");
        return false;
      }
      opt.kind = RunKind::kReserved;
      opt.estimated_price = true;
      opt.wall_hours = opt.launch_hours + opt.work_hours;
      opt.billed_hours = opt.wall_hours;
      opt.expected_cost = rate.ForHours(opt.wall_hours / *utilization);
      return true;
    }
    case CapacityTier::kOwned:  // never an offer's tier (catalog/offer.h)
      return false;
  }
  return true;
}

/// Prices an option whose undisturbed wall time is known, by its offer's tier.
bool Price(Context& ctx, Option& opt) {
  // Far past any deadline, and past what durations and money can hold: 1e30 tokens priced
  // a T4 at "-$9,202,132,660,692.13", which then ranked first under the budget.
  if (!(opt.work_hours <= kMaxPlannedHours)) {
    Exclude(ctx, "runs over a million hours (more than a century)");
    return false;
  }
  const Offer& o = *opt.offer;
  // A spot price far below its peers' is planned at theirs (catalog/spot_prices.h).
  const Rate rate{o.PlannedRate().per_hour * opt.instances};
  const auto deadline = ctx.plan.deadline_hours;
  opt.estimated_price = o.price_estimated;
  // Boot, setup and data staging before the work; the cloud's billing increment after it.
  const LaunchCosts launch = LaunchCostsFor(o, ctx.spec.launch);
  const DataSource& data = ctx.plan.data;
  opt.launch_hours = LaunchHours(launch, o, data.gb) + data.preprocess_hours;
  if (!PriceByTier(ctx, opt, launch, rate)) return false;
  // Egress (or a copy's share) for every read of the data; spot restarts read it again.
  const double restarts = opt.kind == RunKind::kSpot ? opt.spot.expected_preemptions : 0;
  const auto data_cost =
      PriceData(data, ctx.transfer ? &*ctx.transfer : nullptr, o, launch, restarts);
  if (!data_cost) {
    Exclude(ctx, fmt::format("data in {}: no transfer prices from {} (data/transfer/)",
                             data.from.Label(), data.from.cloud));
    return false;
  }
  opt.data = *data_cost;
  opt.expected_cost += opt.data.cost;
  // GPU-hours an instance runs: waits for spot capacity hold none.
  const double waits =
      opt.kind == RunKind::kSpot ? opt.capacity_wait_hours + opt.spot.capacity_wait_hours : 0.0;
  opt.gpu_hours = (opt.wall_hours - waits) * std::max(opt.gpus, 1);
  opt.meets_deadline =
      !deadline || (opt.kind == RunKind::kSpot ? opt.deadline_miss_probability <= kMaxDeadlineRisk
                                               : opt.wall_hours <= *deadline);
  return true;
}

void AddMeasured(Context& ctx, const Offer& o, int instances, int total, const MeasuredProfile& p,
                 const catalog::GpuSpec* gpu) {
  Option opt;
  opt.offer = &o;
  opt.instances = instances;
  opt.gpus = total;
  opt.measured = true;
  opt.knobs = ctx.spec.baseline;
  opt.knobs.gpus = std::max(total, 1);
  if (p.runtime_hours) {
    opt.work_hours = *p.runtime_hours;
  } else if (p.samples_per_second) {
    const est::Work& w = ctx.spec.work;
    opt.work_hours = w.samples.value_or(0) * w.epochs / *p.samples_per_second / 3600.0;
  } else {
    opt.work_hours = ctx.plan.tokens / *p.tokens_per_second / 3600.0;
  }
  opt.predicted_from = p.predicted_from.empty() ? p.source : p.predicted_from;
  if (gpu != nullptr) {
    const KnobResult& k = Knobs(ctx, *gpu, total);
    opt.capacity_gib = gpu->UsableMemoryGib();
    opt.nameplate_gib = gpu->memory_gib;
    if (k.baseline) {
      opt.peak_gib = k.baseline->memory.Total() * k.memory_correction / est::kBytesPerGib;
      opt.reported_peak_gib =
          est::MemoryInBasis(k.baseline->memory, k.baseline->training.memory_basis) *
          k.memory_correction / est::kBytesPerGib;
    } else if (p.peak_memory_gib) {
      opt.peak_gib = *p.peak_memory_gib;
      opt.reported_peak_gib = opt.peak_gib;
    }
    opt.peak_known = k.baseline.has_value() || p.peak_memory_gib.has_value();
    opt.inside_headroom =
        opt.peak_known && opt.peak_gib > opt.capacity_gib * (1.0 - ctx.plan.memory_headroom);
    if (opt.peak_known && opt.peak_gib > opt.capacity_gib) {
      Exclude(ctx,
              fmt::format("{} x{}: does not fit, needs {:.1f} GiB of {:.1f} GiB usable with the "
                          "measured knobs",
                          gpu->name, total, opt.peak_gib, opt.capacity_gib));
      return;
    }
  }
  if (Price(ctx, opt)) ctx.candidates.push_back(opt);
}

void AddModelled(Context& ctx, const Offer& o, int instances, int total,
                 const catalog::GpuSpec& gpu) {
  const KnobResult& k = Knobs(ctx, gpu, total);
  if (!k.unsupported.empty()) {
    Exclude(ctx, k.unsupported);
    return;
  }
  const est::Training& layout = ctx.spec.baseline;
  if (!k.best && k.evaluated == 0 && total % layout.ModelParallel() != 0) {
    // The layout, not the batch: TP8 x PP16 holds one copy of the model on 128 GPUs.
    Exclude(ctx, fmt::format("{} x{}: tensor_parallel {} x pipeline_parallel {} needs a multiple "
                             "of {} GPUs",
                             gpu.name, total, layout.tensor_parallel, layout.pipeline_parallel,
                             layout.ModelParallel()));
    return;
  }
  if (!k.best && k.evaluated == 0) {
    // Not a memory problem: the knobs leave nothing to estimate at this GPU count.
    Exclude(ctx, fmt::format("{} x{}: no knob combination applies at {} (each micro_batch "
                             "must divide the global batch per GPU; ZeRO needs 2 or more GPUs)",
                             gpu.name, total, Counted(total, "GPU")));
    return;
  }
  if (!k.best) {
    Exclude(ctx, fmt::format("{} x{}: does not fit, needs {:.1f} GiB of {:.1f} GiB usable with the "
                             "lightest knobs",
                             gpu.name, total, k.min_peak_bytes / est::kBytesPerGib,
                             gpu.UsableMemoryGib()));
    return;
  }
  Option opt;
  opt.offer = &o;
  opt.instances = instances;
  opt.gpus = total;
  opt.knobs = k.best->training;
  opt.peak_gib = k.best->memory.Total() * k.memory_correction / est::kBytesPerGib;
  opt.reported_peak_gib = est::MemoryInBasis(k.best->memory, k.best->training.memory_basis) *
                          k.memory_correction / est::kBytesPerGib;
  opt.capacity_gib = gpu.UsableMemoryGib();
  opt.nameplate_gib = gpu.memory_gib;
  opt.peak_known = true;
  opt.inside_headroom = k.best_inside_headroom;
  opt.work_hours = k.best->WallHours();
  if (!Price(ctx, opt)) return;
  ctx.candidates.push_back(opt);
  if (k.baseline && k.baseline->fits && o.tier == CapacityTier::kOnDemand &&
      k.baseline->WallHours() <= kMaxPlannedHours) {
    const double hours = k.baseline->WallHours();
    // The same offer reads the same data: its data cost is the baseline's too.
    ctx.baselines.push_back(
        {&o, total, Rate{o.price.per_hour * instances}.For(FromHours(hours)) + opt.data.cost, hours,
         !ctx.plan.deadline_hours || hours <= *ctx.plan.deadline_hours});
  }
}

void AddOffer(Context& ctx, const Offer& o) {
  if (const std::string why = ConstraintReason(o, ctx.spec.constraints); !why.empty()) {
    Exclude(ctx, why);
    return;
  }
  const int max_gpus = ctx.spec.constraints.max_gpus;
  if (o.gpu.empty()) {
    if (const MeasuredProfile* p = FindProfile(ctx.spec, o, 0)) {
      if (const std::string why = HostRamShortfall(ctx.spec, o, p); !why.empty()) {
        Exclude(ctx, why);
        return;
      }
      AddMeasured(ctx, o, 1, 0, *p, nullptr);
    } else if (const auto carried = CarryToCpuOffer(ctx.spec, o)) {
      if (const std::string why = HostRamShortfall(ctx.spec, o, &*carried); !why.empty()) {
        Exclude(ctx, why);
        return;
      }
      AddMeasured(ctx, o, 1, 0, *carried, nullptr);
    } else {
      Exclude(ctx, "CPU offers: CPU runtime is not modelled; add a measured profile for the offer");
    }
    return;
  }
  if (o.IsGpuShare()) {
    // A partition has a share of the GPU's memory and time slices of its compute, under a
    // graphics driver: nobody trains on one (data/catalog/gpu_fractions.csv).
    Exclude(ctx, fmt::format("{} of one {} (a GPU partition): not planned for training, which "
                             "needs whole GPUs",
                             catalog::ShareLabel(o.gpu_fraction), o.gpu));
    return;
  }
  if (const std::string why = HostRamShortfall(ctx.spec, o, nullptr); !why.empty()) {
    Exclude(ctx, why);
    return;
  }
  const catalog::GpuSpec* gpu = ctx.catalog.FindGpu(o.gpu);
  if (gpu == nullptr) {
    Exclude(ctx, fmt::format("{}: not in the GPU table", o.gpu));
    return;
  }
  if (o.gpu_count > max_gpus) {
    Exclude(ctx, fmt::format("more than constraints.max_gpus ({}) GPUs per instance", max_gpus));
    return;
  }
  for (const int instances : InstanceCounts(o, max_gpus)) {
    const int total = instances * o.gpu_count;
    if (const MeasuredProfile* p = FindProfile(ctx.spec, o, total)) {
      AddMeasured(ctx, o, instances, total, *p, gpu);
    } else if (const auto carried = CarryProfiles(ctx.spec, ctx.catalog, *gpu, total)) {
      AddMeasured(ctx, o, instances, total, *carried, gpu);
    } else if (ctx.spec.modelled) {
      AddModelled(ctx, o, instances, total, *gpu);
    } else {
      Exclude(ctx, fmt::format("{} job: no measured profile applies to {} (the {} family is "
                               "planned from measurements only)",
                               est::ModelFamilyName(ctx.spec.family), gpu->name,
                               est::ModelFamilyName(ctx.spec.family)));
    }
  }
}

void AddFallbacks(Context& ctx) {
  if (!ctx.plan.deadline_hours) return;
  std::map<std::tuple<std::string, std::string, int>, const Option*> on_demand;
  for (const Option& opt : ctx.candidates) {
    if (opt.offer->tier != CapacityTier::kOnDemand) continue;
    const auto key = std::make_tuple(opt.offer->cloud, opt.offer->gpu, opt.gpus);
    auto [it, inserted] = on_demand.emplace(key, &opt);
    if (!inserted && opt.expected_cost < it->second->expected_cost) it->second = &opt;
  }
  std::vector<Option> added;
  for (const Option& spot : ctx.candidates) {
    if (spot.kind != RunKind::kSpot || spot.deadline_miss_probability < kMinFallbackRisk) continue;
    const auto it = on_demand.find(std::make_tuple(spot.offer->cloud, spot.offer->gpu, spot.gpus));
    if (it == on_demand.end() || it->second->work_hours > *ctx.plan.deadline_hours) continue;
    const Option& od = *it->second;
    const FallbackPrices prices{spot.offer->PlannedRate().per_hour.dollars() * spot.instances,
                                od.offer->price.per_hour.dollars() * od.instances, od.work_hours};
    const std::optional<FallbackRun> fallback =
        ModelFallback(spot.work_hours, spot.spot, spot.offer->preemptions_per_hour * spot.instances,
                      ctx.spec.fault_tolerance, prices, *ctx.plan.deadline_hours);
    // No switch could still make the deadline: the fallback would only add cost.
    if (!fallback) continue;
    Option f = spot;
    f.kind = RunKind::kFallback;
    f.fallback_offer = od.offer;
    f.fallback = *fallback;
    // The data as spot reads it (restarts after the switch read it on the on-demand offer).
    f.expected_cost = Money::FromDollars(f.fallback.expected_cost_dollars) + spot.data.cost;
    f.wall_hours = f.fallback.expected_wall_hours;
    f.gpu_hours = (f.wall_hours - f.fallback.unbilled_wait_hours) * f.gpus;
    // The switch rule leaves the restart and the rest of the work on on-demand before the
    // deadline, so in the model no run misses it.
    f.deadline_miss_probability = 0;
    f.meets_deadline = true;
    added.push_back(f);
  }
  ctx.candidates.insert(ctx.candidates.end(), added.begin(), added.end());
}

/// Drops options over the budget or GPU-hour cap, counting them.
void ApplyCaps(Context& ctx) {
  const auto& caps = ctx.spec.constraints;
  std::vector<Option> kept;
  for (Option& opt : ctx.candidates) {
    if (ctx.plan.budget && opt.expected_cost > *ctx.plan.budget) {
      Exclude(ctx, fmt::format("over the {} budget", ctx.plan.budget->ToString()));
    } else if (caps.max_gpu_hours && opt.gpu_hours > *caps.max_gpu_hours) {
      Exclude(ctx, fmt::format("over constraints.max_gpu_hours ({:g})", *caps.max_gpu_hours));
    } else {
      kept.push_back(std::move(opt));
    }
  }
  ctx.candidates = std::move(kept);
}

/// By cost, the options that meet the deadline within plan.fewer_gpus_within of the cheapest
/// rank by GPU count (cost order kept among equal counts); the note when that changed #1.
std::optional<std::string> PreferFewerGpus(Context& ctx) {
  auto& c = ctx.candidates;
  const double band = ctx.plan.fewer_gpus_within;
  if (ctx.request.objective != Objective::kCost || band <= 0 || c.size() < 2 ||
      !c.front().meets_deadline) {
    return std::nullopt;
  }
  const double limit = c.front().expected_cost.dollars() * (1.0 + band);
  const auto end = std::find_if(c.begin(), c.end(), [&](const Option& o) {
    return !o.meets_deadline || o.expected_cost.dollars() > limit;
  });
  const Money cheapest_cost = c.front().expected_cost;
  const int cheapest_gpus = c.front().gpus;
  std::stable_sort(c.begin(), end,
                   [](const Option& a, const Option& b) { return a.gpus < b.gpus; });
  if (c.front().gpus >= cheapest_gpus) return std::nullopt;
  return fmt::format(
      "#1 takes {} GPU{} where the cheapest option takes {} for {} less ({:.1f}%): within "
      "constraints.fewer_gpus_within ({:g}%) fewer GPUs rank first; set it to 0 to rank by "
      "cost alone",
      c.front().gpus, c.front().gpus == 1 ? "" : "s", cheapest_gpus,
      (c.front().expected_cost - cheapest_cost).ToString(),
      100.0 * (c.front().expected_cost.RatioTo(cheapest_cost) - 1.0), 100.0 * band);
}

/// Ranks the candidates; the note of PreferFewerGpus when it changed #1.
std::optional<std::string> Rank(Context& ctx) {
  const bool by_cost = ctx.request.objective == Objective::kCost;
  std::sort(ctx.candidates.begin(), ctx.candidates.end(), [&](const Option& a, const Option& b) {
    const auto key = [&](const Option& o) {
      const double cost = o.expected_cost.dollars();
      return std::make_tuple(!o.meets_deadline, by_cost ? cost : o.wall_hours,
                             by_cost ? o.wall_hours : cost, static_cast<int>(o.kind));
    };
    const auto ka = key(a);
    const auto kb = key(b);
    if (ka != kb) return ka < kb;
    const auto id = [](const Offer& o) {
      return std::tie(o.cloud, o.instance_type, o.region, o.zone, o.tier);
    };
    return id(*a.offer) < id(*b.offer);
  });
  return PreferFewerGpus(ctx);
}

/// The options past `top`, grouped by GPU and tier with their distance from the best. When the
/// best meets the deadline, the distance is over the group's options that meet it too (those
/// that miss it lost on the deadline, however cheap), and the misses are counted.
void GroupLosers(Context& ctx) {
  if (ctx.candidates.size() <= ctx.request.top) return;
  const Option& best = ctx.candidates.front();
  const bool by_cost = ctx.request.objective == Objective::kCost;
  struct Group {
    double min_ratio = INFINITY;
    size_t count = 0;
    size_t misses = 0;
  };
  // Keyed by GPU and run label without formatting per option (thousands of them).
  std::map<std::pair<std::string_view, std::string_view>, Group> groups;
  for (size_t i = ctx.request.top; i < ctx.candidates.size(); ++i) {
    const Option& o = ctx.candidates[i];
    const std::pair<std::string_view, std::string_view> name{
        o.offer->gpu.empty() ? std::string_view("CPU") : std::string_view(o.offer->gpu),
        o.kind == RunKind::kFallback ? std::string_view("spot+fallback")
                                     : CapacityTierName(o.offer->tier)};
    Group& g = groups[name];
    ++g.count;
    if (best.meets_deadline && !o.meets_deadline) {
      ++g.misses;
      continue;
    }
    const double ratio =
        by_cost ? o.expected_cost.RatioTo(best.expected_cost) : o.wall_hours / best.wall_hours;
    g.min_ratio = std::min(g.min_ratio, ratio);
  }
  for (const auto& [name, g] : groups) {
    std::string why = g.misses == g.count ? "misses the deadline"
                                          : fmt::format("{:.1f}x the {} of the best option",
                                                        g.min_ratio, by_cost ? "cost" : "time");
    if (g.misses > 0 && g.misses < g.count) {
      why += g.misses == 1 ? std::string("; one of them misses the deadline")
                           : fmt::format("; {} of them miss the deadline", g.misses);
    }
    ctx.plan.excluded.push_back({fmt::format("{} {}: {}", name.first, name.second, why), g.count});
  }
  ctx.candidates.resize(ctx.request.top);
}

/// Takes the options the request refuses out of the ranking, keeping those that ranked above
/// the last allowed option shown (at most `top`) for the output.
void Screen(Context& ctx) {
  if (!ctx.request.refuse) return;
  std::vector<Option> allowed;
  size_t rank = 0;
  for (Option& o : ctx.candidates) {
    ++rank;
    if (!ctx.request.refuse(o)) {
      allowed.push_back(std::move(o));
      continue;
    }
    ++ctx.plan.refused_count;
    if (allowed.size() < ctx.request.top && ctx.plan.refused.size() < ctx.request.top) {
      ctx.plan.refused.push_back({std::move(o), rank});
    }
  }
  ctx.candidates = std::move(allowed);
}

}  // namespace

Result<Plan> MakePlan(const JobSpec& given, const catalog::Catalog& c, const PlanRequest& request) {
  // A runtime measured on one CPU offer is carried to the others by their vCPUs.
  JobSpec spec = given;
  ResolveCpuOfferMeasurements(spec, c);
  Plan plan;
  plan.deadline_hours =
      request.deadline_hours ? request.deadline_hours : spec.constraints.deadline_hours;
  plan.budget = request.budget ? request.budget : spec.constraints.budget;
  plan.prices_as_of = c.info().snapshot_date;
  plan.memory_headroom =
      request.memory_headroom.value_or(spec.memory_headroom.value_or(est::kDefaultMemoryHeadroom));
  plan.fewer_gpus_within = spec.constraints.fewer_gpus_within.value_or(kDefaultFewerGpusWithin);
  est::Training base = spec.baseline;
  plan.tokens = spec.modelled ? FRUGAL_TRY(est::WorkTokens(spec.work, spec.model, base))
                              : spec.work.tokens.value_or(0);
  FRUGAL_TRY(CheckMeasuredFamily(spec));
  FRUGAL_TRY(CheckProfileOffers(spec, c));
  FRUGAL_TRY(CheckProfileGpus(spec, c));
  FRUGAL_TRY(CheckClouds(spec, c));
  std::vector<est::NetworkFigure> network = FRUGAL_TRY(est::LoadShippedNetworkTable());
  std::optional<catalog::TransferPrices> transfer;
  if (spec.data.region.empty() && !spec.data.cache_location.declared()) {
    plan.data = FRUGAL_TRY(ResolveData(spec.data, c, nullptr));
  } else {
    transfer = FRUGAL_TRY(catalog::LoadShippedTransferPrices());
    plan.data = FRUGAL_TRY(ResolveData(spec.data, c, &*transfer));
  }
  Context ctx{spec, c, request, plan, {}, {}, {}, {}, std::move(network), std::move(transfer)};
  for (const Offer& o : c.offers()) AddOffer(ctx, o);
  AddFallbacks(ctx);
  ApplyCaps(ctx);
  const std::optional<std::string> ranking_note = Rank(ctx);
  Screen(ctx);
  plan.ranked = ctx.candidates.size();
  plan.advice = Advise(spec, plan, ctx.candidates, ctx.baselines, ctx.excluded);
  if (ranking_note) plan.advice.push_back(*ranking_note);
  if (auto why = FitAdvice(spec, c, ctx.candidates.size())) plan.advice.push_back(*why);
  if (auto why = LaunchOverheadAdvice(ctx.candidates)) plan.advice.push_back(*why);
  if (auto why = DataAdvice(plan.data, ctx.candidates)) plan.advice.push_back(*why);
  std::vector<Exclusion> grouped;
  for (const auto& [reason, count] : ctx.excluded) grouped.push_back({reason, count});
  std::stable_sort(grouped.begin(), grouped.end(),
                   [](const Exclusion& a, const Exclusion& b) { return a.offers > b.offers; });
  GroupLosers(ctx);
  plan.excluded.insert(plan.excluded.begin(), grouped.begin(), grouped.end());
  plan.options = std::move(ctx.candidates);
  return plan;
}

}  // namespace frugal::plan

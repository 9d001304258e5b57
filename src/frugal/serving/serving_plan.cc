#include "frugal/serving/serving_plan.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "frugal/catalog/twin.h"
#include "frugal/core/numbers.h"
#include "frugal/core/text.h"

namespace frugal::serving {
namespace {

using catalog::Offer;

constexpr double kHoursPerMonth = 730;
/// More replicas than this is not a deployment this planner sizes (and keeps costs in range).
constexpr double kMaxReplicas = 100'000;

/// One replica shape: a GPU model and count, or a CPU instance type, with the offers that can
/// host it (already filtered by the constraints).
struct Config {
  std::string gpu;  ///< canonical name or "cpu"
  int gpus = 0;
  std::string cpu_instance;  ///< "cloud:instance_type" for a CPU instance
  ReplicaHardware hw;
  std::vector<const Offer*> offers;
  ReplicaPerformance perf;
  std::optional<int> replicas_per_instance;  ///< stated (constraints.replicas_per_instance)
};

bool Allowed(const Offer& o, const ServingConstraints& c) {
  auto has = [](const auto& list, const auto& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  const std::string gpu = o.gpu.empty() ? "cpu" : o.gpu;
  return has(c.clouds, o.cloud) && has(c.regions, o.region) && has(c.tiers, o.tier) &&
         has(c.gpus, gpu);
}

int ReplicasFor(double rps, double replica_rps, double headroom) {
  if (rps <= 0) return 0;
  const double need = rps * (1 + headroom) / replica_rps;
  return std::max(1, static_cast<int>(std::ceil(need - 1e-9)));
}

int PerInstance(const Config& cfg, const Offer& o) {
  if (cfg.replicas_per_instance) return *cfg.replicas_per_instance;
  return cfg.gpus == 0 ? 1 : std::max(1, o.gpu_count / cfg.gpus);
}

int InstancesFor(int replicas, int per_instance) {
  return (replicas + per_instance - 1) / per_instance;
}

/// The load in each of the 24 hours of a serving day: the shape, or flat at the peak.
std::vector<double> HourlyLoad(const Workload& w) {
  if (!w.daily_shape.empty()) return w.daily_shape;
  return std::vector<double>(24, w.peak_rps);
}

struct Pricing {
  const InferenceSpec& spec;
  double replica_rps = 0;
  int peak_replicas = 0;
  std::vector<int> hourly_replicas;  ///< per hour of the shape
};

/// a + b, saturating at ±9 trillion dollars as Money's other conversions do (exact below).
Money Sum(Money a, Money b) { return Money::FromDollars(a.dollars() + b.dollars()); }

Money StaticMonthly(const Offer& o, int instances, double hours) {
  return o.price.ForHours(hours).Scaled(D(instances));
}

/// On demand following the shape: instances per hour, each hour 1/24 of the serving hours.
Money AutoscaledMonthly(const Pricing& p, const Config& cfg, const Offer& o, int base_replicas) {
  const int per = PerInstance(cfg, o);
  int64_t instance_hours_24 = 0;
  for (int r : p.hourly_replicas)
    instance_hours_24 += InstancesFor(std::max(0, r - base_replicas), per);
  return o.price.ForHours(p.spec.schedule.hours_per_month / 24.0 *
                          D(static_cast<int>(instance_hours_24)));
}

Money LifetimeOf(Money monthly, int lifetime_months, int commitment_months) {
  return monthly.Scaled(D(std::max(lifetime_months, commitment_months)));
}

/// The on-demand price the same instance lists (for a commitment's break-even), if any.
std::optional<Money> OnDemandPrice(const catalog::Catalog& c, const Offer& o) {
  const Offer* twin = catalog::TwinOffer(c, catalog::PlaceOf(o), CapacityTier::kOnDemand);
  return twin != nullptr ? std::optional<Money>(twin->price.per_hour) : std::nullopt;
}

void Finish(ServingOption& opt, const Pricing& p, const ServingPlan& plan) {
  const double requests = plan.requests_per_month;
  if (requests > 0) {
    opt.usd_per_million_requests = opt.monthly.dollars() / (requests / 1e6);
    opt.usd_per_million_units = opt.monthly.dollars() / (requests * plan.units_per_request / 1e6);
  }
  const double capacity = D(opt.replicas) * p.replica_rps;
  opt.utilization = capacity > 0 ? p.spec.workload.mean_rps / capacity : 0;
}

/// The cheapest offer of `tier` for the config under `cost`, or nullopt.
template <typename Cost>
std::optional<std::pair<const Offer*, Money>> Cheapest(const Config& cfg, CapacityTier tier,
                                                       Cost cost) {
  std::optional<std::pair<const Offer*, Money>> best;
  for (const Offer* o : cfg.offers) {
    if (o->tier != tier) continue;
    const Money m = cost(*o);
    if (!best || m < best->second || (m == best->second && o->Id() < best->first->Id()))
      best = std::make_pair(o, m);
  }
  return best;
}

ServingOption BaseOption(const Config& cfg, const Pricing& p, const Offer& o) {
  ServingOption opt;
  opt.offer = &o;
  opt.gpu = cfg.gpu;
  opt.gpus_per_replica = cfg.gpus;
  opt.replicas = p.peak_replicas;
  opt.instances = InstancesFor(p.peak_replicas, PerInstance(cfg, o));
  opt.replicas_per_instance = PerInstance(cfg, o);
  opt.perf = cfg.perf;
  opt.tier = std::string(CapacityTierName(o.tier));
  opt.estimated_price = o.price_estimated;
  return opt;
}

/// Every priced option of one config: one per tier (the cheapest offer), autoscaled on demand
/// and a committed base with an on-demand peak when the load varies.
/// A committed base for the quietest hour of the shape, on demand for the rest of the day.
std::optional<ServingOption> PriceMix(const Config& cfg, const Pricing& p, const ServingPlan& plan,
                                      const ServingOption& committed, CapacityTier t) {
  const int lifetime = p.spec.schedule.lifetime_months;
  const int base = *std::min_element(p.hourly_replicas.begin(), p.hourly_replicas.end());
  const Offer& co = *committed.offer;
  const int base_instances = InstancesFor(std::max(base, 1), PerInstance(cfg, co));
  const int base_replicas = base_instances * PerInstance(cfg, co);
  auto peak_cost = [&](const Offer& o) { return AutoscaledMonthly(p, cfg, o, base_replicas); };
  auto od = Cheapest(cfg, CapacityTier::kOnDemand, peak_cost);
  if (!od) return std::nullopt;
  ServingOption mix = BaseOption(cfg, p, co);
  mix.peak_offer = od->first;
  mix.tier = fmt::format("{}+on_demand", CapacityTierName(t));
  mix.base_replicas = base_replicas;
  mix.paid_hours_per_month = kHoursPerMonth;
  const Money base_monthly = StaticMonthly(co, base_instances, kHoursPerMonth);
  mix.monthly = Sum(base_monthly, od->second);
  mix.lifetime =
      Sum(LifetimeOf(base_monthly, lifetime, CommitmentMonths(t)), od->second.Scaled(D(lifetime)));
  mix.break_even_utilization = committed.break_even_utilization;
  Finish(mix, p, plan);
  return mix;
}

/// The commitments (1 and 3 years, all month, used or not) and, when the load varies, each
/// with an on-demand peak.
void PriceCommitted(const Config& cfg, const Pricing& p, const catalog::Catalog& c,
                    const ServingPlan& plan, bool varies, std::vector<ServingOption>& out) {
  for (CapacityTier t : {CapacityTier::kReserved1y, CapacityTier::kReserved3y}) {
    auto committed = Cheapest(cfg, t, [&](const Offer& o) {
      return StaticMonthly(o, InstancesFor(p.peak_replicas, PerInstance(cfg, o)), kHoursPerMonth);
    });
    if (!committed) continue;
    ServingOption opt = BaseOption(cfg, p, *committed->first);
    opt.paid_hours_per_month = kHoursPerMonth;
    opt.monthly = committed->second;
    opt.lifetime = LifetimeOf(opt.monthly, p.spec.schedule.lifetime_months, CommitmentMonths(t));
    if (auto od = OnDemandPrice(c, *committed->first); od && od->micros() > 0) {
      opt.break_even_utilization = committed->first->price.per_hour.RatioTo(*od);
    }
    Finish(opt, p, plan);
    out.push_back(opt);
    if (!varies) continue;
    if (auto mix = PriceMix(cfg, p, plan, opt, t)) out.push_back(*mix);
  }
}

/// An option paying `monthly` for hours a month that are not committed.
ServingOption Uncommitted(const Config& cfg, const Pricing& p, const ServingPlan& plan,
                          const std::pair<const Offer*, Money>& cheapest, bool autoscaled) {
  ServingOption opt = BaseOption(cfg, p, *cheapest.first);
  opt.autoscaled = autoscaled;
  opt.paid_hours_per_month = p.spec.schedule.hours_per_month;
  opt.monthly = cheapest.second;
  opt.lifetime = LifetimeOf(opt.monthly, p.spec.schedule.lifetime_months, 0);
  Finish(opt, p, plan);
  return opt;
}

/// Every priced option of one config: one per tier (the cheapest offer), autoscaled on demand
/// and a committed base with an on-demand peak when the load varies.
void PriceConfig(const Config& cfg, const Pricing& p, const catalog::Catalog& c, ServingPlan& plan,
                 std::vector<ServingOption>& out, size_t& spot_refused) {
  const ServingSchedule& s = p.spec.schedule;
  auto static_cost = [&](const Offer& o) {
    return StaticMonthly(o, InstancesFor(p.peak_replicas, PerInstance(cfg, o)), s.hours_per_month);
  };
  if (auto od = Cheapest(cfg, CapacityTier::kOnDemand, static_cost))
    out.push_back(Uncommitted(cfg, p, plan, *od, false));
  const bool varies =
      !p.spec.workload.daily_shape.empty() &&
      *std::min_element(p.hourly_replicas.begin(), p.hourly_replicas.end()) < p.peak_replicas;
  if (varies) {
    auto autoscaled = [&](const Offer& o) { return AutoscaledMonthly(p, cfg, o, 0); };
    if (auto od = Cheapest(cfg, CapacityTier::kOnDemand, autoscaled))
      out.push_back(Uncommitted(cfg, p, plan, *od, true));
  }
  PriceCommitted(cfg, p, c, plan, varies, out);
  // Spot: a preempted replica is replaced; its replacement's boot and load is paid again.
  auto spot_cost = [&](const Offer& o) {
    const double hours = s.hours_per_month * (1 + o.preemptions_per_hour * s.restart_hours);
    return StaticMonthly(o, InstancesFor(p.peak_replicas, PerInstance(cfg, o)), hours);
  };
  if (auto spot = Cheapest(cfg, CapacityTier::kSpot, spot_cost)) {
    if (!s.interruptible) {
      ++spot_refused;
      return;
    }
    out.push_back(Uncommitted(cfg, p, plan, *spot, false));
  }
}

/// Whether a measured profile describes this config.
bool Matches(const MeasuredServing& m, const Config& cfg) {
  if (!m.gpu.empty()) return m.gpu == cfg.gpu && (m.gpus == 0 || m.gpus == cfg.gpus);
  for (const Offer* o : cfg.offers) {
    if (!o->NamedBy(m.offer)) continue;
    if (cfg.gpus == 0) return true;
    return m.gpus == 0 ? o->gpu_count == cfg.gpus : m.gpus == cfg.gpus;
  }
  return false;
}

/// Sets a measured config's performance: the measured throughput, the measured latencies
/// where given, the model's (calibrated) elsewhere. Returns the calibration factor.
double ApplyMeasured(const MeasuredServing& m, const InferenceSpec& spec, Config& cfg) {
  const Workload& w = spec.workload;
  const int batch = m.concurrency.value_or(cfg.perf.batch);
  const ReplicaPerformance model = PerformanceAt(spec.model, w, spec.latency, cfg.hw, batch);
  const double k = m.per_second / model.per_second;
  ReplicaPerformance p = PerformanceAt(spec.model, w, spec.latency, cfg.hw, batch, k);
  p.per_second = m.per_second;
  const double units =
      spec.model.architecture == Architecture::kDecoder ? D(w.output_tokens) : w.items_per_request;
  p.requests_per_second = m.per_second / units;
  const LatencyObjective& ml = m.latency;
  auto take = [](std::optional<double>& into, const std::optional<double>& from) {
    if (from) into = from;
  };
  take(p.latency.ttft_p50, ml.ttft_p50);
  take(p.latency.ttft_p95, ml.ttft_p95);
  take(p.latency.tpot_p50, ml.tpot_p50);
  take(p.latency.tpot_p95, ml.tpot_p95);
  take(p.latency.request_p50, ml.request_p50);
  take(p.latency.request_p95, ml.request_p95);
  p.latency_miss = LatencyMiss(spec.latency, p.latency);
  p.meets_latency = p.latency_miss.empty();
  p.measured = true;
  cfg.perf = p;
  return k;
}

std::string Gib(double bytes) { return fmt::format("{:.1f}", bytes / kGib); }

std::string ConfigName(const Config& cfg) {
  return cfg.gpus == 0 ? "cpu " + cfg.cpu_instance : fmt::format("{} x{}", cfg.gpu, cfg.gpus);
}

/// The replica shapes of one GPU model: 1, 2, 4, 8... GPUs up to the largest instance and
/// max_gpus_per_replica, each that fits; the losers go to `why`.
void AddGpuConfigs(const InferenceSpec& spec, const catalog::Catalog& c, const std::string& name,
                   const std::vector<const Offer*>& offers, std::map<std::string, size_t>& why,
                   std::vector<Config>& out) {
  const catalog::GpuSpec* gpu = c.FindGpu(name);
  if (gpu) {
    if (std::string lacks = KernelSupport(spec.model.weights, *gpu); !lacks.empty()) {
      why[name + ": " + lacks] += offers.size();
      return;
    }
  }
  int most = 0;
  for (const Offer* o : offers) most = std::max(most, o->gpu_count);
  const ServingConstraints& limits = spec.constraints;
  most = std::min(most, limits.max_gpus_per_replica);
  const int per_instance = limits.replicas_per_instance.value_or(1);
  std::string no_fit;
  bool any_fit = false;
  for (int g = limits.gpus_per_replica.value_or(1); g <= most;
       g = limits.gpus_per_replica ? most + 1 : 2 * g) {
    auto hw = gpu ? GpuReplica(*gpu, g, spec.model.weights)
                  : Result<ReplicaHardware>(Fail(ErrorCode::kBadInput, name + ": unknown GPU"));
    if (!hw) {
      why[hw.error().message] += offers.size();
      return;
    }
    Config cfg{name, g, "", *hw, {}, {}, limits.replicas_per_instance};
    for (const Offer* o : offers) {
      if (o->gpu_count >= g * per_instance) cfg.offers.push_back(o);
    }
    if (cfg.offers.empty()) {
      no_fit = fmt::format("{}: no instance holds {} replicas of {} GPU{}", name, per_instance, g,
                           g == 1 ? "" : "s");
      continue;
    }
    auto perf = SizeReplica(spec.model, spec.workload, spec.latency, cfg.hw);
    if (!perf) {
      const MemoryFit f = Memory(spec.model, spec.workload, cfg.hw, 1);
      no_fit = fmt::format(
          "{}: does not fit on up to {} GPU{} per replica: needs {} GiB of {} GiB per GPU "
          "(weights {} GiB)",
          name, g, g == 1 ? "" : "s", Gib(f.total()), Gib(f.capacity), Gib(f.weights));
      continue;
    }
    cfg.perf = *perf;
    any_fit = true;
    out.push_back(std::move(cfg));
  }
  if (!any_fit) {
    why[no_fit.empty() ? name + ": no offer within max_gpus_per_replica" : no_fit] += offers.size();
  }
}

/// Builds every config the catalog allows; the losers go to `why` (reason → offers).
std::vector<Config> BuildConfigs(const InferenceSpec& spec, const catalog::Catalog& c,
                                 std::map<std::string, size_t>& why) {
  std::map<std::string, std::vector<const Offer*>> by_gpu;
  std::map<std::string, std::vector<const Offer*>> by_cpu;
  for (const Offer& o : c.offers()) {
    if (!Allowed(o, spec.constraints)) {
      ++why["outside the constraints (clouds, regions, tiers, gpus)"];
      continue;
    }
    if (!spec.schedule.interruptible && c.IsMarketplace(o.cloud) &&
        std::find(spec.constraints.clouds.begin(), spec.constraints.clouds.end(), o.cloud) ==
            spec.constraints.clouds.end()) {
      // A marketplace host may go offline with no notice and no commitment (providers.csv);
      // naming the cloud in constraints.clouds takes that risk knowingly.
      ++why[fmt::format(
          "{}: marketplace hosts carry no uptime commitment; serving that does not "
          "tolerate interruption goes there only when constraints.clouds names it",
          o.cloud)];
      continue;
    }
    if (o.IsGpuShare()) {
      // A share of one GPU (data/catalog/gpu_fractions.csv) is not a GPU a replica is sized on.
      ++why["GPU partitions (a share of one GPU): not sized for serving"];
      continue;
    }
    if (o.gpu.empty()) {
      by_cpu[o.cloud + ":" + o.instance_type].push_back(&o);
    } else {
      by_gpu[o.gpu].push_back(&o);
    }
  }
  std::vector<Config> out;
  for (const auto& [name, offers] : by_gpu) AddGpuConfigs(spec, c, name, offers, why, out);
  for (const auto& [key, offers] : by_cpu) {
    const Offer& first = *offers.front();
    if (!(first.vcpus > 0)) {
      why["CPU instances without a vCPU count in the catalog"] += offers.size();
      continue;
    }
    Config cfg{"cpu", 0, key, CpuReplica(first.vcpus, first.ram_gib), offers, {}, {}};
    auto perf = SizeReplica(spec.model, spec.workload, spec.latency, cfg.hw);
    if (!perf) {
      const MemoryFit f = Memory(spec.model, spec.workload, cfg.hw, 1);
      why[fmt::format("cpu {}: does not fit: needs {} GiB of {} GiB", first.instance_type,
                      Gib(f.total()), Gib(f.capacity))] += offers.size();
      continue;
    }
    cfg.perf = *perf;
    out.push_back(std::move(cfg));
  }
  return out;
}

/// Applies measured profiles: the matched configs take the measurement; the others of the
/// same kind (GPU or CPU) are re-sized with the geometric mean of the calibration factors.
Result<double> Calibrate(const InferenceSpec& spec, std::vector<Config>& configs) {
  std::set<size_t> measured;
  double log_gpu = 0, log_cpu = 0;
  int n_gpu = 0, n_cpu = 0;
  for (const MeasuredServing& m : spec.measured) {
    bool matched = false;
    for (size_t i = 0; i < configs.size(); ++i) {
      if (!Matches(m, configs[i])) continue;
      matched = true;
      const double k = ApplyMeasured(m, spec, configs[i]);
      measured.insert(i);
      (configs[i].gpus == 0 ? log_cpu : log_gpu) += std::log(k);
      ++(configs[i].gpus == 0 ? n_cpu : n_gpu);
    }
    if (!matched) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("{}: measured profile matches no serving option ({} {}): check "
                      "the name, gpus, and the constraints",
                      m.where, m.gpu.empty() ? "offer" : "gpu", m.gpu.empty() ? m.offer : m.gpu));
    }
  }
  const double k_gpu = n_gpu > 0 ? std::exp(log_gpu / n_gpu) : 1.0;
  const double k_cpu = n_cpu > 0 ? std::exp(log_cpu / n_cpu) : 1.0;
  for (size_t i = 0; i < configs.size(); ++i) {
    if (measured.count(i) != 0) continue;
    const double k = configs[i].gpus == 0 ? k_cpu : k_gpu;
    if (k == 1.0) continue;
    if (auto p = SizeReplica(spec.model, spec.workload, spec.latency, configs[i].hw, k))
      configs[i].perf = *p;
  }
  return n_gpu > 0 ? k_gpu : k_cpu;
}

void Rank(std::vector<ServingOption>& options, int lifetime_months) {
  std::stable_sort(options.begin(), options.end(), [](const auto& a, const auto& b) {
    if (a.perf.meets_latency != b.perf.meets_latency) return a.perf.meets_latency;
    if (a.lifetime != b.lifetime) return a.lifetime < b.lifetime;
    if (a.monthly != b.monthly) return a.monthly < b.monthly;
    return a.offer->Id() < b.offer->Id();
  });
  if (options.empty()) return;
  const ServingOption& best = options.front();
  for (size_t i = 1; i < options.size(); ++i) {
    ServingOption& o = options[i];
    if (!o.perf.meets_latency) {
      o.lost_because = "misses the latency objective: " + o.perf.latency_miss;
      continue;
    }
    o.lost_because = fmt::format("{} more over {} months than #1",
                                 (o.lifetime - best.lifetime).ToString(), lifetime_months);
    const int term = o.committed() ? CommitmentMonths(o.offer->tier) : 0;
    if (term > lifetime_months) {
      o.lost_because +=
          fmt::format(" (the {}-month commitment outlasts the model's {})", term, lifetime_months);
    } else if (o.utilization > 0 && o.utilization < 0.5 && !o.autoscaled) {
      o.lost_because += fmt::format(" ({:.0f}% utilized at the mean load)", 100 * o.utilization);
    }
  }
}

}  // namespace

int CommitmentMonths(CapacityTier t) {
  switch (t) {
    case CapacityTier::kReserved1y:
      return 12;
    case CapacityTier::kReserved3y:
      return 36;
    default:
      return 0;
  }
}

Result<ServingPlan> PlanServing(const InferenceSpec& spec, const catalog::Catalog& c,
                                const ServingRequest& request) {
  ServingPlan plan;
  const Workload& w = spec.workload;
  const bool decoder = spec.model.architecture == Architecture::kDecoder;
  plan.unit = decoder ? "output tokens" : "items";
  plan.units_per_request = decoder ? D(w.output_tokens) : w.items_per_request;
  plan.requests_per_month = w.mean_rps * 3600.0 * spec.schedule.hours_per_month;

  std::map<std::string, size_t> why;
  std::vector<Config> configs = BuildConfigs(spec, c, why);
  plan.scale = FRUGAL_TRY(Calibrate(spec, configs));

  std::vector<ServingOption> options;
  size_t spot_refused = 0;
  const std::vector<double> load = HourlyLoad(w);
  for (const Config& cfg : configs) {
    if (w.peak_rps * (1 + spec.schedule.headroom) / cfg.perf.requests_per_second > kMaxReplicas) {
      why[fmt::format("{}: needs more than {:.0f} replicas for the peak", ConfigName(cfg),
                      kMaxReplicas)] += cfg.offers.size();
      continue;
    }
    Pricing p{spec, cfg.perf.requests_per_second, 0, {}};
    p.peak_replicas = ReplicasFor(w.peak_rps, p.replica_rps, spec.schedule.headroom);
    for (double rps : load)
      p.hourly_replicas.push_back(ReplicasFor(rps, p.replica_rps, spec.schedule.headroom));
    PriceConfig(cfg, p, c, plan, options, spot_refused);
  }
  if (spot_refused > 0) {
    why["spot: the spec does not tolerate interruption (serving.interruptible: false)"] +=
        spot_refused;
  }
  plan.ranked = options.size();
  Rank(options, spec.schedule.lifetime_months);
  if (options.size() > request.top) options.resize(request.top);
  plan.options = std::move(options);
  for (const auto& [reason, n] : why) plan.excluded.push_back({reason, n});
  std::stable_sort(plan.excluded.begin(), plan.excluded.end(),
                   [](const auto& a, const auto& b) { return a.offers > b.offers; });
  return plan;
}

}  // namespace frugal::serving

#include "frugal/serving/lifetime.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "frugal/plan/planner.h"

namespace frugal::serving {
namespace {

constexpr size_t kAll = std::numeric_limits<size_t>::max();

bool OnDemandStatic(const ServingOption& o) {
  return o.OnTier(CapacityTier::kOnDemand) && !o.autoscaled && o.perf.meets_latency;
}

const ServingOption* First(const ServingPlan& p, auto pred) {
  for (const ServingOption& o : p.options) {
    if (pred(o)) return &o;
  }
  return nullptr;
}

/// The deployment the spec says runs today, priced like the planner would price it (the
/// cheapest matching offer within the spec's clouds and regions).
std::optional<ServingOption> PriceDeployment(const InferenceSpec& spec, const catalog::Catalog& c,
                                             const Deployment& d) {
  const catalog::Offer* best = nullptr;
  int best_instances = 0;
  Money best_monthly;
  const bool committed = CommitmentMonths(d.tier) > 0;
  const double hours = committed ? 730.0 : spec.schedule.hours_per_month;
  auto within = [](const std::vector<std::string>& list, const std::string& v) {
    return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
  };
  for (const catalog::Offer& o : c.offers()) {
    if (o.tier != d.tier || !within(spec.constraints.clouds, o.cloud) ||
        !within(spec.constraints.regions, o.region)) {
      continue;
    }
    if (!d.offer.empty() && o.instance_type != d.offer) continue;
    if (d.offer.empty() && (d.gpu == "cpu" ? !o.gpu.empty() : o.gpu != d.gpu)) continue;
    const int per = o.gpu.empty() ? 1 : o.gpu_count / d.gpus_per_replica;
    if (per < 1) continue;
    const int instances = (d.replicas + per - 1) / per;
    const Money monthly = o.price.ForHours(hours).Scaled(static_cast<double>(instances));
    if (best == nullptr || monthly < best_monthly) {
      best = &o;
      best_instances = instances;
      best_monthly = monthly;
    }
  }
  if (best == nullptr) return std::nullopt;
  ServingOption opt;
  opt.offer = best;
  opt.gpu = best->gpu.empty() ? "cpu" : best->gpu;
  opt.gpus_per_replica = best->gpu.empty() ? 0 : d.gpus_per_replica;
  opt.replicas = d.replicas;
  opt.instances = best_instances;
  opt.tier = std::string(CapacityTierName(d.tier));
  opt.paid_hours_per_month = hours;
  opt.monthly = best_monthly;
  opt.lifetime = best_monthly.Scaled(
      static_cast<double>(std::max(spec.schedule.lifetime_months, CommitmentMonths(d.tier))));
  opt.perf.meets_latency = true;
  return opt;
}

/// The most powerful GPU that meets the latency, on demand, sized for the peak: the habit
/// the levers are measured against when the spec names no deployment.
const ServingOption* Habit(const ServingPlan& p, const catalog::Catalog& c) {
  const ServingOption* habit = nullptr;
  double most = -1;
  for (const ServingOption& o : p.options) {
    if (!OnDemandStatic(o) || o.gpu == "cpu") continue;
    const catalog::GpuSpec* g = c.FindGpu(o.gpu);
    // Per GPU: the ranking lists the GPU's cheapest replica shape first, which is kept.
    const double peak = g && g->bf16_tflops ? *g->bf16_tflops : 0;
    if (peak > most) {
      most = peak;
      habit = &o;
    }
  }
  return habit;
}

Lever Saving(std::string name, std::string detail, Money from_lifetime, Money to_lifetime,
             int months) {
  Lever l{std::move(name), std::move(detail), true, {}, from_lifetime - to_lifetime};
  l.monthly_saving = Money::FromMicros(l.lifetime_saving.micros() / months);
  return l;
}

Lever Unavailable(std::string name, std::string why) {
  return Lever{std::move(name), std::move(why), false, {}, {}};
}

/// Whether `o` runs the baseline's hardware: the same GPU model and replica shape (or the same
/// CPU instance), which is what every lever but "smaller GPU" keeps.
bool SameHardware(const ServingOption& o, const ServingOption& baseline) {
  if (o.gpu != baseline.gpu) return false;
  if (o.gpu == "cpu") return o.offer->instance_type == baseline.offer->instance_type;
  return o.gpus_per_replica == baseline.gpus_per_replica;
}

Result<Lever> QuantizationLever(const InferenceSpec& spec, const catalog::Catalog& c,
                                const ServingOption& baseline, int months) {
  const WeightFormat target =
      spec.model.architecture == Architecture::kDecoder ? WeightFormat::kInt4 : WeightFormat::kW8A8;
  if (WeightBytes(spec.model.weights) <= WeightBytes(target)) {
    return Unavailable("quantization",
                       fmt::format("weights are already {}", WeightFormatName(spec.model.weights)));
  }
  InferenceSpec q = spec;
  q.model.weights = target;
  q.measured.clear();  // a measurement of the wider weights does not describe these
  const ServingPlan p = FRUGAL_TRY(PlanServing(q, c, {kAll}));
  // The baseline's GPU with the narrower weights (fewer replicas, or a smaller shape of it):
  // a move to another GPU is the "smaller GPU" lever's.
  const ServingOption* best =
      First(p, [&](const ServingOption& o) { return OnDemandStatic(o) && o.gpu == baseline.gpu; });
  if (best == nullptr) {
    return Unavailable("quantization", fmt::format("no option on {} meets the latency with {} "
                                                   "weights",
                                                   baseline.gpu, WeightFormatName(target)));
  }
  if (DescribeOption(*best) == DescribeOption(baseline)) {
    return Unavailable("quantization",
                       fmt::format("{} weights still need {}: nothing to save",
                                   WeightFormatName(target), DescribeOption(baseline)));
  }
  return Saving("quantization",
                fmt::format("{} weights: {} instead of {}", WeightFormatName(target),
                            DescribeOption(*best), DescribeOption(baseline)),
                baseline.lifetime, best->lifetime, months);
}

std::vector<Lever> OtherLevers(const InferenceSpec& spec, const ServingPlan& p,
                               const ServingOption& od, const ServingOption& baseline, int months) {
  std::vector<Lever> out;
  if (baseline.offer != od.offer || baseline.replicas != od.replicas) {
    out.push_back(
        Saving("smaller GPU",
               fmt::format("{} instead of {}", DescribeOption(od), DescribeOption(baseline)),
               baseline.lifetime, od.lifetime, months));
  } else {
    out.push_back(Unavailable("smaller GPU", "the baseline is already the cheapest GPU"));
  }
  // Every lever but "smaller GPU" keeps the baseline's hardware and changes how it is paid for
  // or scaled.
  auto same_config = [&](const ServingOption& o) {
    return SameHardware(o, baseline) && o.perf.meets_latency;
  };
  const ServingOption* committed =
      First(p, [&](const ServingOption& o) { return same_config(o) && o.committed() && !o.mix(); });
  if (committed != nullptr) {
    out.push_back(
        Saving("commitment",
               fmt::format("{} (break-even at {:.0f}% of the hours)", DescribeOption(*committed),
                           100 * committed->break_even_utilization.value_or(0)),
               baseline.lifetime, committed->lifetime, months));
  } else {
    out.push_back(Unavailable("commitment", "no committed offer for this GPU"));
  }
  const ServingOption* scaled =
      First(p, [&](const ServingOption& o) { return same_config(o) && o.autoscaled; });
  if (scaled != nullptr) {
    out.push_back(Saving("autoscaling", "on demand, following the daily shape", baseline.lifetime,
                         scaled->lifetime, months));
  } else {
    out.push_back(Unavailable("autoscaling", spec.workload.daily_shape.empty()
                                                 ? "give workload.daily_shape to price it"
                                                 : "the load is flat at this replica count"));
  }
  const ServingOption* spot = First(
      p, [&](const ServingOption& o) { return same_config(o) && o.OnTier(CapacityTier::kSpot); });
  if (spot != nullptr) {
    out.push_back(Saving("spot", DescribeOption(*spot), baseline.lifetime, spot->lifetime, months));
  } else {
    out.push_back(Unavailable("spot", spec.schedule.interruptible
                                          ? "no spot offer for this GPU"
                                          : "the spec does not tolerate interruption"));
  }
  return out;
}

}  // namespace

Result<Money> PlannedTrainingCost(const plan::JobSpec& job, const catalog::Catalog& c,
                                  std::string* described) {
  const plan::Plan p = FRUGAL_TRY(plan::MakePlan(job, c, plan::PlanRequest{}));
  if (p.options.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: training job '{}' has no option that runs (see `frugal plan {}`)",
                            job.source, job.name, job.source));
  }
  const plan::Option& best = p.options.front();
  if (described != nullptr) {
    *described = fmt::format("planned: {} on {} ({})", job.name, best.offer->Id(),
                             plan::RunKindName(best.kind));
  }
  return best.expected_cost;
}

std::string DescribeOption(const ServingOption& o) {
  const std::string hw = o.gpu == "cpu" ? fmt::format("cpu {}", o.offer->instance_type)
                                        : fmt::format("{} x{}", o.gpu, o.gpus_per_replica);
  return fmt::format("{}, {} replica{}, {}{}", hw, o.replicas, o.replicas == 1 ? "" : "s", o.tier,
                     o.autoscaled ? " autoscaled" : "");
}

Result<LifetimeBill> ComputeLifetimeBill(const InferenceSpec& spec, const catalog::Catalog& c,
                                         const TrainingCost& training) {
  const ServingPlan plan = FRUGAL_TRY(PlanServing(spec, c, {kAll}));
  if (plan.options.empty() || !plan.options.front().perf.meets_latency) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: no serving option meets the latency objective (see `frugal "
                            "plan {}`)",
                            spec.source, spec.source));
  }
  LifetimeBill bill;
  const int months = spec.schedule.lifetime_months;
  bill.months = months;
  bill.serving = plan.options.front();
  bill.serving_label = DescribeOption(bill.serving);
  bill.training = training;
  if (training.retrain_every_months > 0)
    bill.retrains = (months - 1) / training.retrain_every_months;
  bill.training_total =
      training.first + training.retrain.Scaled(static_cast<double>(bill.retrains));
  bill.inference_total = bill.serving.lifetime;
  bill.total = bill.training_total + bill.inference_total;
  if (bill.training_total > Money())
    bill.inference_to_training = bill.inference_total.RatioTo(bill.training_total);
  Money trained = training.first;
  bill.points.push_back({0, trained, Money()});
  for (int m = 1; m <= months; ++m) {
    if (training.retrain_every_months > 0 && m % training.retrain_every_months == 0 && m < months)
      trained += training.retrain;
    bill.points.push_back(
        {m, trained, bill.inference_total.Scaled(static_cast<double>(m) / months)});
  }

  const ServingOption* od = First(plan, OnDemandStatic);
  if (spec.deployment) {
    bill.baseline = PriceDeployment(spec, c, *spec.deployment);
    if (!bill.baseline) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: deployment: no offer in the catalog matches it",
                              spec.deployment->where));
    }
    bill.baseline_label = "the deployment: " + DescribeOption(*bill.baseline);
  } else if (const ServingOption* habit = Habit(plan, c)) {
    bill.baseline = *habit;
    bill.baseline_label = "the most powerful GPU on demand: " + DescribeOption(*habit);
  }
  if (od == nullptr || !bill.baseline) return bill;
  bill.levers.push_back(FRUGAL_TRY(QuantizationLever(spec, c, *bill.baseline, months)));
  for (Lever& l : OtherLevers(spec, plan, *od, *bill.baseline, months))
    bill.levers.push_back(std::move(l));
  return bill;
}

}  // namespace frugal::serving

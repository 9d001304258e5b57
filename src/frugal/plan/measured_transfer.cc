#include "frugal/plan/measured_transfer.h"

#include <fmt/format.h>

#include <algorithm>

namespace frugal::plan {

std::optional<MeasuredProfile> CarryProfiles(const JobSpec& spec, const catalog::Catalog& c,
                                             const catalog::GpuSpec& target, int total) {
  std::vector<estimate::DeviceMeasurement> measured;
  std::string sources;
  bool samples = false;
  for (const MeasuredProfile& p : spec.measured) {
    if (p.gpu.empty() || (!p.tokens_per_second && !p.samples_per_second)) continue;
    const catalog::GpuSpec* gpu = c.FindGpu(p.gpu);
    if (gpu == nullptr) continue;
    // One unit per job: the first profile's decides, the others must agree.
    if (measured.empty()) samples = p.samples_per_second.has_value();
    if (samples != p.samples_per_second.has_value()) continue;
    const double rate = samples ? *p.samples_per_second : *p.tokens_per_second;
    measured.push_back({gpu, std::max(p.gpus, 1), rate});
    if (!p.source.empty()) sources += "; " + p.source;
  }
  if (measured.empty()) return std::nullopt;
  estimate::WorkloadShape shape;
  shape.family = spec.family;
  shape.precision = spec.baseline.precision;
  if (spec.model.params > 0) shape.params = spec.model.params;
  if (spec.modelled) {
    shape.units_per_gpu_step =
        static_cast<double>(spec.baseline.micro_batch) * static_cast<double>(spec.model.seq);
  }
  auto predicted = estimate::PredictThroughput(measured, target, total, shape);
  if (!predicted) return std::nullopt;
  MeasuredProfile carried;
  carried.gpu = target.name;
  carried.gpus = total;
  (samples ? carried.samples_per_second : carried.tokens_per_second) = predicted->per_second;
  carried.predicted_from = predicted->basis + sources;
  return carried;
}

std::string HostRamShortfall(const JobSpec& spec, const catalog::Offer& offer,
                             const MeasuredProfile* profile) {
  std::optional<double> need = spec.host_ram_gib;
  if (offer.gpu.empty() && profile != nullptr && profile->peak_memory_gib) {
    need = std::max(need.value_or(0), *profile->peak_memory_gib);
  }
  if (!need || !(offer.ram_gib > 0) || *need <= offer.ram_gib) return "";
  return fmt::format("{}: does not fit, needs {:g} GiB of host RAM, the instance has {:g} GiB",
                     offer.gpu.empty() ? offer.instance_type : offer.gpu + " instances", *need,
                     offer.ram_gib);
}

std::optional<std::string> LaunchOverheadAdvice(const std::vector<Option>& ranked) {
  if (ranked.size() < 2) return std::nullopt;
  const Option& best = ranked.front();
  const auto fastest = std::min_element(
      ranked.begin(), ranked.end(),
      [](const Option& a, const Option& b) { return a.work_hours < b.work_hours; });
  if (fastest->gpus <= best.gpus || fastest->offer == best.offer) return std::nullopt;
  if (!(fastest->launch_hours >= 0.5 * fastest->work_hours)) return std::nullopt;
  const auto label = [](const Option& o) {
    return o.offer->gpu.empty() ? o.offer->instance_type
                                : fmt::format("{} x{}", o.offer->gpu, o.gpus);
  };
  return fmt::format(
      "{} ({}) computes in {} but lost: launch overhead {} on a {} job ({} against {} for {}; "
      "boot, setup and data staging are paid per instance, whatever the job's length)",
      label(*fastest), fastest->offer->Id(), ShortDuration(fastest->work_hours),
      ShortDuration(fastest->launch_hours), ShortDuration(fastest->work_hours),
      fastest->expected_cost.ToString(), best.expected_cost.ToString(), label(best));
}

}  // namespace frugal::plan

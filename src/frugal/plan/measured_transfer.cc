#include "frugal/plan/measured_transfer.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/catalog/gpu_names.h"
#include "frugal/estimate/cpu_scaling.h"

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

namespace {

constexpr double kBytesPerGib = 1024.0 * 1024.0 * 1024.0;

/// A recorded measurement in the job's units: a rate, or a runtime, or why neither.
struct JobUnits {
  std::optional<double> rate;
  std::optional<double> runtime_hours;
  std::string why_not;
};

JobUnits InJobUnits(const JobSpec& spec, const RecordedMeasurement& m) {
  if (spec.work.samples) {
    if (m.samples_per_second) return {m.samples_per_second, std::nullopt, ""};
    return {std::nullopt, std::nullopt,
            "the job's work is in samples and the run reported no cumulative 'samples' "
            "(docs/protocol.md)"};
  }
  if (!spec.modelled && !spec.work.tokens) {
    // No work to divide a rate into: a run that went to its end measured the whole job.
    if (m.ended == "finished" && m.wall_seconds > 0) {
      return {std::nullopt, m.wall_seconds / 3600.0, ""};
    }
    return {std::nullopt, std::nullopt,
            "the job states no work in tokens or samples, and this run did not run to its end "
            "(its runtime is not the job's)"};
  }
  if (m.tokens_per_second) return {m.tokens_per_second, std::nullopt, ""};
  return {std::nullopt, std::nullopt,
          "the job's work is in tokens and the run reported no cumulative 'tokens' "
          "(docs/protocol.md)"};
}

std::string DescribeMeasurement(const RecordedMeasurement& m) {
  const std::string by =
      m.run_id.empty() ? fmt::format("profile {}", m.profile_id) : fmt::format("run {}", m.run_id);
  if (m.device_kind != "gpu") {
    return fmt::format("{} measured {} on {} ({} vCPUs)", by, m.recorded_at, m.device,
                       m.device_count);
  }
  return fmt::format("{} measured {} on {}{}", by, m.recorded_at,
                     m.device_count > 1 ? fmt::format("{} x ", m.device_count) : "", m.device);
}

}  // namespace

void AddRecordedMeasurements(JobSpec& spec, const catalog::Catalog& c,
                             const std::vector<RecordedMeasurement>& newest_first) {
  std::vector<std::pair<std::string, std::string>> taken;  // GPU model → the measurement used
  for (const RecordedMeasurement& m : newest_first) {
    RecordedUse use{m, "", false, ""};
    const bool cpu = m.device_kind != "gpu";
    if (!cpu) use.gpu = catalog::GpuFromDeviceName(m.device, c.gpu_names()).value_or("");
    const std::string key = cpu ? "CPU" : use.gpu;
    const auto named = std::find_if(
        spec.measured.begin(), spec.measured.end(),
        [&](const MeasuredProfile& p) { return p.profile_id == m.profile_id && !p.recorded; });
    const auto own =
        std::find_if(spec.measured.begin(), spec.measured.end(), [&](const MeasuredProfile& p) {
          return !p.recorded && !use.gpu.empty() && p.gpu == use.gpu;
        });
    const auto newer =
        std::find_if(taken.begin(), taken.end(), [&](const auto& t) { return t.first == key; });
    const JobUnits units = InJobUnits(spec, m);
    if (named != spec.measured.end()) {
      use.note = fmt::format("named in the spec ({})", named->where);
    } else if (!cpu && use.gpu.empty()) {
      use.note = fmt::format("no GPU in the table matches the device '{}'", m.device);
    } else if (newer != taken.end()) {
      use.note = "superseded by " + newer->second;
    } else if (own != spec.measured.end()) {
      use.note = fmt::format("the spec measures {} itself ({})", use.gpu, own->where);
    } else if (!units.rate && !units.runtime_hours) {
      use.note = units.why_not;
    } else {
      MeasuredProfile p;
      if (cpu) {
        p.cpu_vcpus = std::max(m.device_count, 1);
        p.cpu_busy_cores = m.cpu_cores;
        if (m.peak_rss_bytes > 0)
          p.peak_memory_gib = static_cast<double>(m.peak_rss_bytes) / kBytesPerGib;
      } else {
        p.gpu = use.gpu;
        p.gpus = std::max(m.device_count, 1);
        if (m.peak_gpu_memory_bytes && *m.peak_gpu_memory_bytes > 0) {
          p.peak_memory_gib = static_cast<double>(*m.peak_gpu_memory_bytes) / p.gpus / kBytesPerGib;
        }
      }
      std::string figure;
      if (units.rate) {
        (spec.work.samples ? p.samples_per_second : p.tokens_per_second) = *units.rate;
        figure = fmt::format("{:.4g} {}/s", *units.rate, spec.work.samples ? "samples" : "tokens");
      } else {
        p.runtime_hours = units.runtime_hours;
        figure = fmt::format("runtime {:.4g} h", *units.runtime_hours);
      }
      p.source =
          fmt::format("{}: {} (ledger profile {})", DescribeMeasurement(m), figure, m.profile_id);
      p.profile_id = m.profile_id;
      p.recorded = m;
      p.where = spec.source;
      p.gpus_where = spec.source;
      spec.measured.push_back(std::move(p));
      taken.emplace_back(key, DescribeMeasurement(m));
      use.used = true;
    }
    spec.recorded_measurements.push_back(std::move(use));
  }
}

DeviceMeasurementsFromRecords SelectDeviceMeasurements(
    const std::vector<RecordedMeasurement>& newest_first, const catalog::Catalog& c) {
  DeviceMeasurementsFromRecords out;
  std::vector<std::pair<std::string, std::string>> taken;  // GPU model → the measurement used
  for (const RecordedMeasurement& m : newest_first) {
    RecordedUse use{m, "", false, ""};
    if (m.device_kind == "gpu")
      use.gpu = catalog::GpuFromDeviceName(m.device, c.gpu_names()).value_or("");
    const catalog::GpuSpec* gpu = use.gpu.empty() ? nullptr : c.FindGpu(use.gpu);
    if (out.units.empty() && gpu != nullptr) {
      out.units = m.samples_per_second ? "samples" : m.tokens_per_second ? "tokens" : "steps";
    }
    const std::optional<double> rate = out.units == "samples"  ? m.samples_per_second
                                       : out.units == "tokens" ? m.tokens_per_second
                                                               : std::optional(m.steps_per_second);
    const auto newer =
        std::find_if(taken.begin(), taken.end(), [&](const auto& t) { return t.first == use.gpu; });
    if (m.device_kind != "gpu") {
      use.note = fmt::format("measured on a CPU ({})", m.device);
    } else if (gpu == nullptr) {
      use.note = fmt::format("no GPU in the table matches the device '{}'", m.device);
    } else if (newer != taken.end()) {
      use.note = "superseded by " + newer->second;
    } else if (!rate || !(*rate > 0)) {
      use.note = fmt::format("no {} per second measured", out.units);
    } else {
      out.measured.push_back({gpu, std::max(m.device_count, 1), *rate});
      taken.emplace_back(use.gpu, DescribeMeasurement(m));
      use.used = true;
    }
    out.uses.push_back(std::move(use));
  }
  return out;
}

std::optional<MeasuredProfile> CarryToCpuOffer(const JobSpec& spec, const catalog::Offer& offer) {
  if (!(offer.vcpus > 0)) return std::nullopt;
  const auto from = std::find_if(spec.measured.begin(), spec.measured.end(),
                                 [](const MeasuredProfile& p) { return p.cpu_vcpus.has_value(); });
  if (from == spec.measured.end()) return std::nullopt;
  const estimate::CpuScaling s =
      estimate::ScaleCpuThroughput(*from->cpu_vcpus, from->cpu_busy_cores.value_or(0), offer.vcpus);
  MeasuredProfile carried = *from;
  carried.cpu_vcpus.reset();
  carried.offer = offer.instance_type;
  if (carried.runtime_hours) *carried.runtime_hours /= s.speedup;
  if (carried.tokens_per_second) *carried.tokens_per_second *= s.speedup;
  if (carried.samples_per_second) *carried.samples_per_second *= s.speedup;
  carried.predicted_from = "CPU: " + s.basis + "; " + from->source;
  return carried;
}

void ResolveCpuOfferMeasurements(JobSpec& spec, const catalog::Catalog& c) {
  for (MeasuredProfile& p : spec.measured) {
    if (p.offer.empty() || p.cpu_vcpus) continue;
    for (const catalog::Offer& o : c.offers()) {
      if (!o.NamedBy(p.offer)) continue;
      if (o.gpu.empty() && o.vcpus > 0) p.cpu_vcpus = o.vcpus;
      break;
    }
  }
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

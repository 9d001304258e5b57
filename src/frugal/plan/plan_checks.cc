#include "frugal/plan/plan_checks.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>
#include <string>

#include "frugal/core/text.h"

namespace frugal::plan {

namespace est = estimate;
using catalog::Offer;

std::vector<int> InstanceCounts(const catalog::Offer& o, int max_gpus) {
  std::vector<int> counts;
  for (int instances = 1; instances * o.gpu_count <= max_gpus; instances *= 2) {
    if (instances > 1 && o.gpu_count < 8) break;
    counts.push_back(instances);
  }
  return counts;
}

Result<void> CheckMeasuredFamily(const JobSpec& spec) {
  if (spec.modelled || !spec.measured.empty()) return {};
  std::string unused;
  for (const RecordedUse& u : spec.recorded_measurements) {
    unused += fmt::format("; the ledger's {} of {} was not usable: {}",
                          u.measurement.run_id.empty() ? "profile" : "run " + u.measurement.run_id,
                          u.measurement.recorded_at, u.note);
  }
  return Fail(
      ErrorCode::kBadInput,
      fmt::format("{}: a job of the {} family is planned from measured profiles: add at least one "
                  "under 'measured:' (frugal profile records them), or run it once with "
                  "`frugal run --spec` on a chosen --gpu or --offer{}",
                  spec.source, est::ModelFamilyName(spec.family), unused));
}

Result<void> CheckProfileOffers(const JobSpec& spec, const catalog::Catalog& c) {
  for (const MeasuredProfile& p : spec.measured) {
    if (p.offer.empty()) continue;
    const auto& offers = c.offers();
    const bool found = std::any_of(offers.begin(), offers.end(),
                                   [&](const Offer& o) { return o.NamedBy(p.offer); });
    if (!found) {
      std::vector<std::string> names;
      names.reserve(offers.size());
      for (const Offer& o : offers) names.push_back(o.instance_type);
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'offer': no offer '{}' in the catalog{}", p.where,
                              Abbreviate(p.offer), DidYouMean(p.offer, names)));
    }
  }
  return {};
}

Result<void> CheckProfileGpus(const JobSpec& spec, const catalog::Catalog& c) {
  const int max_gpus = spec.constraints.max_gpus;
  for (const MeasuredProfile& p : spec.measured) {
    if (p.gpu.empty() || p.recorded) continue;  // the ledger's: carried where it has no offer
    std::set<int> totals;
    bool rented = false;
    for (const Offer& o : c.offers()) {
      if (o.gpu != p.gpu) continue;
      rented = true;
      for (const int instances : InstanceCounts(o, max_gpus)) {
        if (p.gpus == 0 && instances > 1) break;  // no count: the offer's own
        totals.insert(instances * o.gpu_count);
      }
    }
    if (!rented) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("{}: field 'gpu': no offer in the catalog has {} GPUs", p.where, p.gpu));
    }
    if (p.gpus == 0 ? totals.empty() : !totals.contains(p.gpus)) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: field 'gpus': no option runs {} x{} (offers give {} GPUs, "
                              "counts up to constraints.max_gpus {}; only 8-GPU instances are "
                              "clustered)",
                              p.gpus_where, p.gpu, p.gpus, fmt::join(totals, ", "), max_gpus));
    }
  }
  return {};
}

Result<void> CheckClouds(const JobSpec& spec, const catalog::Catalog& c) {
  const std::vector<std::string> known = c.Clouds();
  for (size_t i = 0; i < spec.constraints.clouds.size(); ++i) {
    const std::string& cloud = spec.constraints.clouds[i];
    if (std::find(known.begin(), known.end(), cloud) != known.end()) continue;
    const std::string where =
        i < spec.constraints.clouds_where.size() ? spec.constraints.clouds_where[i] : spec.source;
    return Fail(ErrorCode::kBadInput, fmt::format("{}: field 'clouds': unknown cloud '{}'{}", where,
                                                  Abbreviate(cloud), DidYouMean(cloud, known)));
  }
  return {};
}

}  // namespace frugal::plan

#include "frugal/ledger/profile_json.h"

namespace frugal::ledger {

namespace {

nlohmann::json NumberOrNull(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json ProfileJson(const Profile& p) {
  const NewProfile& r = p.record;
  return {
      {"id", p.id},
      {"name", r.name},
      {"time", FormatTimestamp(r.time)},
      {"command", r.command},
      {"device", r.device},
      {"device_kind", r.device_kind},
      {"device_count", r.device_count},
      {"steps_per_second", r.steps_per_second},
      {"tokens_per_second", NumberOrNull(r.tokens_per_second)},
      {"samples_per_second", NumberOrNull(r.samples_per_second)},
      {"steps", r.steps},
      {"measured_seconds", ToSeconds(r.measured)},
      {"wall_seconds", ToSeconds(r.wall)},
      {"peak_gpu_memory_bytes", r.peak_gpu_memory_bytes ? nlohmann::json(*r.peak_gpu_memory_bytes)
                                                        : nlohmann::json(nullptr)},
      {"peak_rss_bytes", r.peak_rss_bytes},
      {"cpu_cores", r.cpu_cores},
      {"ended", r.ended},
      {"run_id", r.run_id ? nlohmann::json(*r.run_id) : nlohmann::json(nullptr)}};
}

nlohmann::json ProfileListJson(const std::vector<Profile>& profiles) {
  nlohmann::json list = nlohmann::json::array();
  for (const Profile& p : profiles) list.push_back(ProfileJson(p));
  return {{"profiles", list}};
}

}  // namespace frugal::ledger

#include "frugal/queue/job.h"

namespace frugal::queue {

std::optional<double> JobRequest::RuntimeOn(const Pool& pool) const {
  if (cpu_only != pool.gpu.empty()) return std::nullopt;
  if (!gpu.empty() && gpu != pool.gpu) return std::nullopt;
  if (units > pool.units()) return std::nullopt;
  // A job larger than a node takes whole nodes.
  if (units > pool.units_per_node() && units % pool.units_per_node() != 0) return std::nullopt;
  if (!runtime_by_gpu.empty()) {
    const auto it = runtime_by_gpu.find(pool.gpu);
    if (it != runtime_by_gpu.end()) return it->second;
  }
  if (runtime_hours > 0) return runtime_hours;
  return std::nullopt;
}

std::string JobRequest::Team() const {
  const auto it = tags.find("team");
  return it == tags.end() ? std::string() : it->second;
}

}  // namespace frugal::queue

#include "frugal/queue/run_args.h"

namespace frugal::queue {

std::vector<std::string> RunArgs::ToArgv() const {
  std::vector<std::string> argv = {"run",
                                   RunFlag::kRunId,
                                   run_id,
                                   RunFlag::kPrice,
                                   price.per_hour.ToPlainString() + "/h",
                                   RunFlag::kTier,
                                   std::string(CapacityTierName(tier))};
  if (!gpu.empty()) argv.insert(argv.end(), {RunFlag::kGpu, gpu});
  if (gpus > 0) argv.insert(argv.end(), {RunFlag::kGpus, std::to_string(gpus)});
  for (const auto& [key, value] : tags) argv.insert(argv.end(), {RunFlag::kTag, key + "=" + value});
  if (budget) argv.insert(argv.end(), {RunFlag::kBudget, budget->ToPlainString()});
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

}  // namespace frugal::queue

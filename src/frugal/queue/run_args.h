#pragma once
// The `frugal run` a queued job runs under, as one definition: the flag names `frugal run`
// registers (apps/frugal/run_support.cc takes them from here) and the argument list the
// executors build from them. A flag renamed on one side is renamed on the other, and the
// test that parses what ToArgv writes with the CLI's own parser fails on any other drift.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/money.h"
#include "frugal/core/tier.h"

namespace frugal::queue {

/// The names of the flags of `frugal run` that RunArgs writes.
struct RunFlag {
  static constexpr const char* kRunId = "--run-id";
  static constexpr const char* kPrice = "--price";
  static constexpr const char* kGpu = "--gpu";
  static constexpr const char* kGpus = "--gpus";
  static constexpr const char* kTier = "--tier";
  static constexpr const char* kTag = "--tag";
  static constexpr const char* kBudget = "--budget";
};

/// A supervised run priced as capacity the catalog does not list: `--price` with the GPU
/// model, count and tier recorded on its segments.
struct RunArgs {
  std::string run_id;
  Rate price;       ///< the whole allocation's price per hour
  std::string gpu;  ///< GPU model recorded ("" for CPU slots)
  int gpus = 0;     ///< GPUs recorded (0: CPU slots, none passed)
  CapacityTier tier = CapacityTier::kOnDemand;
  std::map<std::string, std::string> tags;
  std::optional<Money> budget;
  std::vector<std::string> command;

  /// `run --run-id RUN --price P/h [--gpu MODEL] [--gpus N] --tier T [--tag k=v]...
  /// [--budget B] -- COMMAND...`: the words after the binary and its global flags.
  [[nodiscard]] std::vector<std::string> ToArgv() const;
};

}  // namespace frugal::queue

#pragma once
// frugal estimate --measured GPU=X: carry measured throughput to another GPU and count.

#include <optional>
#include <string>
#include <vector>

#include "app.h"

namespace frugal::cli {

/// The flags `estimate` takes for a prediction from measured throughput.
struct MeasuredEstimateOptions {
  std::vector<std::string> measured;  ///< "A100-80GB=1450", "V100-16GB:8=4000"
  std::string profile;                ///< --profile NAME: the ledger's measurements of NAME
  std::string family = "transformer";
  std::optional<double> flops_per_sample, bytes_per_sample;
};

/// What the prediction shares with the rest of `estimate`.
struct MeasuredEstimateJob {
  std::string gpu, dtype, params, tokens, samples, steps, tier;
  int gpus = 1;
  double epochs = 1;
  std::optional<int> batch_per_gpu;  ///< --micro-batch when given
};

/// Registers --measured, --family, --flops-per-sample and --bytes-per-sample on `cmd`.
void AddMeasuredEstimateOptions(CLI::App* cmd, MeasuredEstimateOptions& o);

/// Prints the predicted throughput (`throughput_per_second`, `basis`, ...) and, with work
/// (--samples/--epochs, --tokens or --steps in the measured units), the time and cost.
[[nodiscard]] Result<void> RunMeasuredEstimate(const MeasuredEstimateOptions& o,
                                               const MeasuredEstimateJob& job,
                                               const GlobalOptions& global, Streams& s);

}  // namespace frugal::cli

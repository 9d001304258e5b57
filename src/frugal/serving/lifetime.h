#pragma once
// The model's lifetime bill: training (planned, stated, or the ledger's actual spend), the
// retraining cadence, and serving every month of the model's life, with the ratio of
// inference to training and what each lever would save.

#include <optional>
#include <string>
#include <vector>

#include "frugal/catalog/catalog.h"
#include "frugal/plan/job_spec.h"
#include "frugal/serving/serving_plan.h"

namespace frugal::serving {

struct TrainingCost {
  Money first;                   ///< the first training
  std::string source;            ///< where the figure comes from, for output
  int retrain_every_months = 0;  ///< 0: never retrained
  Money retrain;                 ///< each retraining
};

/// The training cost of a job spec: its plan's best option's expected cost. kBadInput when
/// the job has no option that runs (no offer fits, every one is outside its constraints).
[[nodiscard]] Result<Money> PlannedTrainingCost(const plan::JobSpec& job, const catalog::Catalog& c,
                                                std::string* described = nullptr);

/// What one lever would save against the baseline deployment.
struct Lever {
  std::string name;    ///< quantization, smaller GPU, commitment, autoscaling, spot
  std::string detail;  ///< what changes ("int4 weights: T4 x1 instead of L4 x1")
  bool available = false;
  Money monthly_saving;  ///< over the lifetime ÷ months
  Money lifetime_saving;
};

/// Cumulative cost at the end of a month (month 0: the first training, before serving).
struct MonthPoint {
  int month = 0;
  Money training;
  Money inference;
};

struct LifetimeBill {
  int months = 0;
  ServingOption serving;  ///< the serving plan's best option
  std::string serving_label;
  std::optional<ServingOption> baseline;  ///< what the levers are priced against
  std::string baseline_label;
  TrainingCost training;
  int retrains = 0;
  Money training_total;
  Money inference_total;
  Money total;
  double inference_to_training = 0;  ///< 0 when training cost nothing
  std::vector<MonthPoint> points;
  std::vector<Lever> levers;
};

/// Prices the spec's serving over its lifetime with the given training. kBadInput when no
/// option can serve the model within the latency objective.
[[nodiscard]] Result<LifetimeBill> ComputeLifetimeBill(const InferenceSpec& spec,
                                                       const catalog::Catalog& c,
                                                       const TrainingCost& training);

/// "T4 x1 x4 replicas, on_demand (aws:g4dn.xlarge:us-east-1)".
[[nodiscard]] std::string DescribeOption(const ServingOption& o);

/// The cumulative cost chart (SVG): per month, training and inference stacked.
[[nodiscard]] std::string LifetimeSvg(const LifetimeBill& bill);
/// A self-contained HTML report: the bill, the levers, the chart.
[[nodiscard]] std::string LifetimeHtml(const InferenceSpec& spec, const LifetimeBill& bill);

}  // namespace frugal::serving

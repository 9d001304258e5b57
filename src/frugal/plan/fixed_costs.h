#pragma once
// Fixed costs of renting an instance for one job: what every option pays besides its work —
// instance boot, image and environment setup, staging the dataset at the offer's bandwidth —
// and the cloud's billing increment and minimum. Short, small jobs on big instances pay these
// many times over their work: "launch overhead 13m on a 7-minute job". docs/job-spec.md lists
// the defaults per cloud and where they come from.

#include <optional>
#include <string>
#include <string_view>

#include "frugal/catalog/offer.h"

namespace frugal::plan {

/// One cloud's (or a job's, or an offer's) launch and billing figures, in hours.
struct LaunchCosts {
  double boot_hours = 0;        ///< instance requested → reachable, up to 7 GPUs
  double boot_large_hours = 0;  ///< the same for 8-GPU (and larger) instances
  double setup_hours = 0;       ///< image pull, environment, framework start
  double staging_gbps = 10;     ///< dataset download rate to the instance, gigabits per second
  double billing_increment_hours = 1.0 / 3600;  ///< time is billed in multiples of this
  double minimum_billed_hours = 0;              ///< and at least this much
};

/// A job's (`fixed_costs:` in the spec) or a custom offer's overrides; unset fields keep the
/// cloud's default.
struct LaunchOverrides {
  std::optional<double> boot_hours, setup_hours, staging_gbps, billing_increment_hours,
      minimum_billed_hours;
};

/// The documented defaults for `cloud` ("aws", "gcp", "azure", "lambda", "vast"); a cloud not
/// listed (custom pools: on-prem capacity already running) pays nothing and bills per second.
[[nodiscard]] LaunchCosts DefaultLaunchCosts(std::string_view cloud);

/// The figures for one offer: the cloud's defaults, then the offer's own (custom offers), then
/// the job's.
[[nodiscard]] LaunchCosts LaunchCostsFor(const catalog::Offer& offer, const LaunchOverrides& job);

/// Hours from request to training: boot (the large figure for instances with 8 or more GPUs)
/// + setup + staging `dataset_gb` (10^9 bytes; none when unset) at staging_gbps.
[[nodiscard]] double LaunchHours(const LaunchCosts& c, const catalog::Offer& offer,
                                 std::optional<double> dataset_gb);

/// Hours to stage the dataset (0 without one).
[[nodiscard]] double StagingHours(const LaunchCosts& c, std::optional<double> dataset_gb);

/// `wall_hours` as billed: rounded up to the increment, and at least the minimum.
[[nodiscard]] double BilledHours(const LaunchCosts& c, double wall_hours);

/// "13m" style text for a duration in hours, for explanations.
[[nodiscard]] std::string ShortDuration(double hours);

}  // namespace frugal::plan

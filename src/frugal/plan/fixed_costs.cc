#include "frugal/plan/fixed_costs.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace frugal::plan {
namespace {

constexpr double kMinute = 1.0 / 60;
constexpr double kSecond = 1.0 / 3600;

struct CloudDefaults {
  std::string_view cloud;
  LaunchCosts costs;
};

// Boot: request to SSH-ready for GPU instances as clouds and users report them (a few minutes;
// 8-GPU instances longer: bigger images, NVSwitch fabric manager, EFA/InfiniBand). Setup:
// pulling a several-GB training image and starting the framework. Staging: object storage to
// one instance at 10 Gb/s. Billing: AWS EC2 and GCP Compute Engine bill Linux instances per
// second with a one-minute minimum; Azure and Lambda per minute; Vast per second.
constexpr std::array<CloudDefaults, 5> kDefaults = {{
    {"aws", {3 * kMinute, 8 * kMinute, 5 * kMinute, 10, kSecond, kMinute}},
    {"gcp", {2 * kMinute, 7 * kMinute, 5 * kMinute, 10, kSecond, kMinute}},
    {"azure", {3 * kMinute, 8 * kMinute, 5 * kMinute, 10, kMinute, kMinute}},
    {"lambda", {3 * kMinute, 5 * kMinute, 5 * kMinute, 10, kMinute, kMinute}},
    {"vast", {1 * kMinute, 2 * kMinute, 5 * kMinute, 5, kSecond, 0}},
}};

}  // namespace

LaunchCosts DefaultLaunchCosts(std::string_view cloud) {
  for (const CloudDefaults& d : kDefaults) {
    if (d.cloud == cloud) return d.costs;
  }
  return LaunchCosts{};
}

LaunchCosts LaunchCostsFor(const catalog::Offer& offer, const LaunchOverrides& job) {
  LaunchCosts c = DefaultLaunchCosts(offer.cloud);
  static const catalog::OfferLaunch kNone;
  const catalog::OfferLaunch& own = offer.launch ? *offer.launch : kNone;
  if (own.boot_hours) c.boot_hours = c.boot_large_hours = *own.boot_hours;
  if (own.setup_hours) c.setup_hours = *own.setup_hours;
  if (own.staging_gbps) c.staging_gbps = *own.staging_gbps;
  if (own.billing_increment_hours) c.billing_increment_hours = *own.billing_increment_hours;
  if (own.minimum_billed_hours) c.minimum_billed_hours = *own.minimum_billed_hours;
  if (job.boot_hours) c.boot_hours = c.boot_large_hours = *job.boot_hours;
  if (job.setup_hours) c.setup_hours = *job.setup_hours;
  if (job.staging_gbps) c.staging_gbps = *job.staging_gbps;
  if (job.billing_increment_hours) c.billing_increment_hours = *job.billing_increment_hours;
  if (job.minimum_billed_hours) c.minimum_billed_hours = *job.minimum_billed_hours;
  return c;
}

double StagingHours(const LaunchCosts& c, std::optional<double> dataset_gb) {
  if (!dataset_gb || !(*dataset_gb > 0) || !(c.staging_gbps > 0)) return 0;
  return *dataset_gb * 8 / c.staging_gbps / 3600;
}

double LaunchHours(const LaunchCosts& c, const catalog::Offer& offer,
                   std::optional<double> dataset_gb) {
  const double boot = offer.gpu_count >= 8 ? c.boot_large_hours : c.boot_hours;
  return boot + c.setup_hours + StagingHours(c, dataset_gb);
}

double BilledHours(const LaunchCosts& c, double wall_hours) {
  double billed = wall_hours;
  if (c.billing_increment_hours > 0) {
    // A tolerance of a millisecond keeps an exact multiple from rounding up.
    const double units = std::ceil(wall_hours / c.billing_increment_hours - 1e-9 / 3.6);
    billed = units * c.billing_increment_hours;
  }
  return std::max(billed, c.minimum_billed_hours);
}

std::string ShortDuration(double hours) {
  const double minutes = hours * 60;
  if (minutes < 1) return fmt::format("{:.0f}s", minutes * 60);
  if (minutes < 90) return fmt::format("{:.0f}m", minutes);
  return fmt::format("{}h{:02d}m", static_cast<int>(minutes / 60),
                     static_cast<int>(std::fmod(minutes, 60)));
}

}  // namespace frugal::plan

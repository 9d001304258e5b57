#pragma once
// Set up a supervised run: the one step `frugal run` and `frugal drill` share. The request is
// the user's words (the run's flags); the setup is the supervisor's configuration, priced at
// the offer given, the cheapest offer of a GPU model, a price by hand, or the planner's pick
// for a job spec (its estimate gated against the budget), and the offer the ledger records.
// Messages name the command line's flags (--budget, --max-wall): only it asks for runs.

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frugal/app/recorded.h"
#include "frugal/catalog/catalog.h"
#include "frugal/ledger/types.h"
#include "frugal/run/preemption_source.h"
#include "frugal/run/supervisor.h"

namespace frugal::app {

/// A supervised run as the user asked for it.
struct SuperviseRequest {
  std::string price, offer, gpu, tier;  ///< tier empty: spot for --gpu, on_demand for --price
  int gpus = 0;
  std::string budget, max_wall;
  std::optional<double> max_gpu_hours;
  std::vector<std::string> tags;
  std::string spec;  ///< job spec file
  bool allow_overrun = false;
  std::string run_id, run_dir;
  std::string grace = "30s", stop_grace = "10s", accrual = "1s", heartbeat = "10s", sample = "5s";
  int keep_checkpoints = 3;
  std::string metadata, metadata_endpoint, metadata_interval = "5s";
  std::vector<std::string> command;
};

/// What the front end wires in.
struct SuperviseContext {
  /// The catalog in effect plus a spec's `catalog:` files (none: the catalog in effect).
  std::function<Result<catalog::Catalog>(const std::vector<std::filesystem::path>&)> catalog;
  WithLedger ledger;  ///< where a spec's recorded measurements are read (unset: not read)
  bool json = false;  ///< the command prints a JSON document: the child's stdout goes to stderr
};

/// What a supervised run is set up with: the supervisor's configuration and the offer the
/// ledger records its segments on.
struct SuperviseSetup {
  run::SupervisorConfig config;
  ledger::SegmentOffer offer;
  std::string spec_text;  ///< the job spec as given, for the ledger
  /// With a spec: the name the run's measurement is recorded under (the job's), for its next
  /// plan; empty without a spec.
  std::string job_name;
};

/// The run the request describes. kBadInput naming the flag on bad values; kBudget when the
/// spec's estimate is over its budget (without allow_overrun).
[[nodiscard]] Result<SuperviseSetup> SetUpSupervisedRun(const SuperviseRequest& request,
                                                        const SuperviseContext& context);

/// The metadata preemption source the request asks for, or null.
[[nodiscard]] Result<std::unique_ptr<run::PreemptionSource>> MetadataSource(
    const SuperviseRequest& request);

}  // namespace frugal::app

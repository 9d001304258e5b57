#pragma once
// Shared by `frugal run` and `frugal drill`: the options both take, turning them into a
// supervisor configuration, the status line and the end-of-run summary.

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "app.h"
#include "frugal/ledger/types.h"
#include "frugal/plan/job_spec.h"
#include "frugal/run/self_checks.h"
#include "frugal/run/supervisor.h"

namespace frugal::cli {

struct SuperviseOptions {
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

/// Adds the options above to `cmd`.
void AddSuperviseOptions(CLI::App* cmd, SuperviseOptions& o);

/// What a supervised run is set up with: the supervisor's configuration and the offer the
/// ledger records its segments on.
struct SuperviseSetup {
  run::SupervisorConfig config;
  ledger::SegmentOffer offer;
  std::string spec_text;  ///< the job spec as given, for the ledger
  /// With --spec: the name the run's measurement is recorded under (the job's), for its next
  /// plan; empty without a spec.
  std::string job_name;
};

/// The supervisor configuration the options describe (price from --price, --offer or the
/// cheapest --gpu offer). kBadInput naming the option on bad values.
[[nodiscard]] Result<SuperviseSetup> BuildSupervisorConfig(const SuperviseOptions& o,
                                                           const GlobalOptions& global);
/// The metadata preemption source the options ask for, or null.
[[nodiscard]] Result<std::unique_ptr<run::PreemptionSource>> MetadataSource(
    const SuperviseOptions& o);

/// Adds to `spec` what the ledger recorded of the job under its name (the measurements of its
/// supervised runs and profiles: run::AddLedgerMeasurements). A ledger that cannot be read is a
/// warning, never an error: the plan goes on from the spec alone.
void AddRecordedMeasurements(plan::JobSpec& spec, const catalog::Catalog& catalog,
                             const GlobalOptions& global);

/// Draws the status line on the command's stderr: overprinted on a smart terminal (its phase
/// coloured as --color says), otherwise a plain line every 30 seconds.
class StatusLine {
 public:
  explicit StatusLine(Streams& s);
  void Update(const run::RunStatus& status);
  /// Clears an overprinted line before other output.
  void Clear();

 private:
  std::ostream& err_;
  LinePrinter printer_;
  std::chrono::steady_clock::time_point last_plain_{};
};

/// The end-of-run summary: human text or the JSON object for --json.
void PrintRunSummary(std::ostream& out, const run::SupervisorConfig& config,
                     const run::RunResult& result, const std::vector<run::SelfCheck>& checks);
nlohmann::json RunSummaryJson(const run::SupervisorConfig& config, const run::RunResult& result,
                              const std::vector<run::SelfCheck>& checks);

}  // namespace frugal::cli

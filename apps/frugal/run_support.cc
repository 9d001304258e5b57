#include "run_support.h"

#include "frugal/catalog/catalog.h"
#include "frugal/queue/run_args.h"

namespace frugal::cli {

app::SuperviseContext SuperviseContextOf(const GlobalOptions& global) {
  app::SuperviseContext ctx;
  ctx.catalog = [&global](const std::vector<std::filesystem::path>& extra) {
    return LoadCatalog(global, extra);
  };
  ctx.ledger = app::LedgerAt(global.db);
  ctx.json = global.json;
  return ctx;
}

void AddSuperviseOptions(CLI::App* cmd, app::SuperviseRequest& o) {
  cmd->add_option(queue::RunFlag::kPrice, o.price,
                  "Price of the capacity, e.g. 3.06/h (for capacity not in the catalog)");
  cmd->add_option("--offer", o.offer, "Catalog offer CLOUD:INSTANCE:REGION:TIER");
  cmd->add_option(queue::RunFlag::kGpu, o.gpu,
                  "GPU model: run priced at the cheapest matching offer (with --price: the model "
                  "recorded)");
  cmd->add_option(queue::RunFlag::kGpus, o.gpus,
                  "GPU count (with --gpu: at least this many; with --price: for GPU-hours)")
      ->check(CLI::PositiveNumber);
  cmd->add_option(queue::RunFlag::kTier, o.tier,
                  "Tier: for --gpu the tier to pick (default spot); for --price the tier recorded "
                  "(default on_demand; owned for capacity paid for whether used or not)");
  cmd->add_option(
      "--spec", o.spec,
      "Job spec (YAML): tags, budget and offer constraints; the planner picks the offer unless "
      "--offer/--gpu/--price is given, and a run estimated over its budget is refused (exit 3)");
  cmd->add_flag("--allow-overrun", o.allow_overrun,
                "With --spec: start even when the estimate exceeds the budget");
  cmd->add_option(queue::RunFlag::kBudget, o.budget, "Dollar cap, e.g. 50");
  cmd->add_option("--max-gpu-hours", o.max_gpu_hours, "GPU-hour cap");
  cmd->add_option("--max-wall", o.max_wall, "Wall-clock cap, e.g. 6h");
  // One value per --tag, so `--tag k=v -- COMMAND -c ...` leaves the "--" to the command.
  cmd->add_option(queue::RunFlag::kTag, o.tags, "Tag k=v recorded on every row (repeatable)")
      ->allow_extra_args(false);
  cmd->add_option(
      queue::RunFlag::kRunId, o.run_id,
      "Run id; reuse one to resume a requeued run (default: new, or slurm-$SLURM_JOB_ID)");
  cmd->add_option("--run-dir", o.run_dir,
                  "Directory of the run's journal and checkpoints (default: data dir/runs/ID)");
  cmd->add_option("--grace", o.grace, "Time to checkpoint after a notice, before SIGTERM")
      ->capture_default_str();
  cmd->add_option("--stop-grace", o.stop_grace, "Time to exit after SIGTERM, before SIGKILL")
      ->capture_default_str();
  cmd->add_option("--accrual-interval", o.accrual, "How often spend is accrued and caps checked")
      ->capture_default_str();
  cmd->add_option("--heartbeat-interval", o.heartbeat, "How often usage is recorded")
      ->capture_default_str();
  cmd->add_option("--sample-interval", o.sample, "How often utilization is sampled")
      ->capture_default_str();
  cmd->add_option("--keep-checkpoints", o.keep_checkpoints, "Committed checkpoints kept")
      ->capture_default_str();
  cmd->add_option("--metadata", o.metadata,
                  "Poll a cloud metadata endpoint for preemption notices: aws, gcp, azure");
  cmd->add_option("--metadata-endpoint", o.metadata_endpoint,
                  "Metadata endpoint URL (default: the cloud's own)");
  cmd->add_option("--metadata-interval", o.metadata_interval, "Metadata poll interval")
      ->capture_default_str();
  cmd->add_option("command", o.command, "The training command, after --")->required();
}

}  // namespace frugal::cli

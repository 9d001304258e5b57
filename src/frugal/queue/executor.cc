#include "frugal/queue/executor.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "frugal/queue/queue_service.h"
#include "frugal/queue/run_args.h"

namespace frugal::queue {
namespace {

/// Routes each job to the executor of its pool's kind.
class PoolExecutor final : public Executor {
 public:
  PoolExecutor(const Capacity& capacity, std::unique_ptr<Executor> local,
               std::unique_ptr<Executor> slurm)
      : capacity_(capacity), local_(std::move(local)), slurm_(std::move(slurm)) {}

  Result<int64_t> Start(const ledger::QueueJobRow& row, const Pool& pool,
                        const std::string& devices, Seconds delay_seconds) override {
    return For(pool.name).Start(row, pool, devices, delay_seconds);
  }
  Result<JobStatus> Status(const ledger::QueueJobRow& row) override {
    return For(row.pool).Status(row);
  }
  void Stop(const ledger::QueueJobRow& row) override { For(row.pool).Stop(row); }

 private:
  Executor& For(const std::string& pool) {
    const Pool* p = capacity_.FindPool(pool);
    return p != nullptr && p->kind == PoolKind::kSlurm ? *slurm_ : *local_;
  }

  const Capacity& capacity_;
  std::unique_ptr<Executor> local_;
  std::unique_ptr<Executor> slurm_;
};

}  // namespace

std::unique_ptr<Executor> MakePoolExecutor(const Capacity& capacity,
                                           std::unique_ptr<Executor> local,
                                           std::unique_ptr<Executor> slurm) {
  return std::make_unique<PoolExecutor>(capacity, std::move(local), std::move(slurm));
}

std::string ExecutorKind(const Pool& pool) {
  return pool.kind == PoolKind::kSlurm ? "slurm" : "local";
}

Result<std::vector<std::string>> FrugalRunArgv(const ledger::QueueJobRow& row, const Pool& pool,
                                               const std::string& binary,
                                               const std::string& db_flag) {
  std::vector<std::string> command;
  try {
    command = nlohmann::json::parse(row.command).get<std::vector<std::string>>();
  } catch (const std::exception& e) {
    return Fail(ErrorCode::kFailed, fmt::format("queue job {}: command: {}", row.id, e.what()));
  }
  const JobRequest request = FRUGAL_TRY(RequestFromJson(row.request));
  RunArgs run;
  run.run_id = row.run_id;
  run.price = Rate{pool.price_per_gpu_hour * request.units};
  // The pool's capacity as it is: its GPU model and the GPUs the job holds, on its tier (an
  // owned pool's run is recorded as owned, never as on-demand custom capacity).
  if (!pool.gpu.empty()) {
    run.gpu = pool.gpu;
    run.gpus = request.units;
  }
  run.tier = pool.tier;
  run.tags = request.tags;
  run.tags["queue_job"] = std::to_string(row.id);
  run.tags["queue_pool"] = pool.name;
  run.budget = request.budget;
  run.command = std::move(command);
  std::vector<std::string> argv = {binary};
  if (!db_flag.empty()) argv.insert(argv.end(), {"--db", db_flag});
  for (std::string& word : run.ToArgv()) argv.push_back(std::move(word));
  return argv;
}

}  // namespace frugal::queue

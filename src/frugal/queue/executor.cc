#include "frugal/queue/executor.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "frugal/queue/queue_service.h"

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
  std::vector<std::string> argv = {binary};
  if (!db_flag.empty()) argv.insert(argv.end(), {"--db", db_flag});
  const Money price = pool.price_per_gpu_hour * request.units;
  argv.insert(argv.end(),
              {"run", "--run-id", row.run_id, "--price", price.ToPlainString() + "/h", "--tag",
               fmt::format("queue_job={}", row.id), "--tag", "queue_pool=" + pool.name});
  if (!pool.gpu.empty()) argv.insert(argv.end(), {"--gpus", std::to_string(request.units)});
  if (pool.tier == Tier::kSpot) argv.insert(argv.end(), {"--tier", "spot"});
  for (const auto& [k, v] : request.tags) argv.insert(argv.end(), {"--tag", k + "=" + v});
  if (request.budget) argv.insert(argv.end(), {"--budget", request.budget->ToPlainString()});
  argv.push_back("--");
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

}  // namespace frugal::queue

// The executors' `frugal run` argument list is parsed by the CLI's own `frugal run` options:
// every flag it writes is one the CLI registers, and the run is recorded on the pool's GPU
// model, count and tier.

#include "frugal/queue/run_args.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "app.h"
#include "frugal/queue/executor.h"
#include "frugal/queue/queue_service.h"
#include "run_support.h"
#include "shipped_gpus.h"

namespace frugal::queue {
namespace {

struct Parsed {
  app::SuperviseRequest options;
  app::SuperviseSetup setup;
};

/// Parses `argv` (BINARY run ...) as `frugal run` does and builds its configuration.
Parsed ParseAsTheCliDoes(const std::vector<std::string>& argv) {
  CLI::App app;
  Parsed p;
  CLI::App* run = app.add_subcommand("run");
  cli::AddSuperviseOptions(run, p.options);
  std::vector<const char*> words;
  words.reserve(argv.size());
  for (const std::string& w : argv) words.push_back(w.c_str());
  EXPECT_NO_THROW(app.parse(static_cast<int>(words.size()), words.data()));
  const cli::GlobalOptions global;
  auto setup = app::SetUpSupervisedRun(p.options, cli::SuperviseContextOf(global));
  EXPECT_TRUE(setup) << (setup ? "" : setup.error().message);
  if (setup) p.setup = std::move(*setup);
  return p;
}

ledger::QueueJobRow Row(const JobRequest& request) {
  ledger::QueueJobRow row;
  row.id = 7;
  row.run_id = "queue-7";
  row.command = R"(["python3","train.py","--lr","0.1"])";
  row.request = RequestToJson(request);
  return row;
}

TEST(QueueRunArgv, TheRunCommandParsesWhatTheExecutorBuildsForAnOwnedGpuPool) {
  auto cap = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: lab, tier: owned, gpu: A100-80GB, gpus_per_node: 2}\n",
      "c.yaml", ShippedGpus());
  ASSERT_TRUE(cap) << cap.error().message;
  JobRequest request;
  request.name = "train";
  request.units = 1;
  request.tags["team"] = "nlp";
  request.budget = Money::FromDollars(5);
  auto argv = FrugalRunArgv(Row(request), cap->pools[0], "frugal", "");
  ASSERT_TRUE(argv) << argv.error().message;
  const Parsed p = ParseAsTheCliDoes(*argv);
  const ledger::SegmentOffer& offer = p.setup.offer;
  EXPECT_EQ(offer.gpu, "A100-80GB");
  EXPECT_EQ(offer.gpu_count, 1);
  EXPECT_EQ(offer.tier, CapacityTier::kOwned);
  EXPECT_EQ(p.setup.config.tier, CapacityTier::kOwned);
  EXPECT_EQ(p.setup.config.gpus, 1);
  EXPECT_EQ(p.setup.config.run_id, "queue-7");
  EXPECT_EQ(p.setup.config.tags.at("queue_job"), "7");
  EXPECT_EQ(p.setup.config.tags.at("queue_pool"), "lab");
  EXPECT_EQ(p.setup.config.tags.at("team"), "nlp");
  ASSERT_TRUE(p.setup.config.caps.dollars);
  EXPECT_EQ(*p.setup.config.caps.dollars, Money::FromDollars(5));
  const std::vector<std::string> command = {"python3", "train.py", "--lr", "0.1"};
  EXPECT_EQ(p.setup.config.command, command);
}

TEST(QueueRunArgv, ASpotPoolIsRecordedOnSpotAndACpuPoolWithNoGpu) {
  auto cap = ParseCapacity(
      "apiVersion: frugal/v1\nkind: Capacity\npools:\n"
      "  - {name: sp, tier: spot, gpu: T4, gpus_per_node: 4, price_per_gpu_hour: 0.25}\n"
      "  - {name: cpu, tier: on_demand, cpu_slots: 2, price_per_gpu_hour: 0.1}\n",
      "c.yaml", ShippedGpus());
  ASSERT_TRUE(cap) << cap.error().message;
  JobRequest gpu_job;
  gpu_job.units = 2;
  auto argv = FrugalRunArgv(Row(gpu_job), cap->pools[0], "frugal", "ledger.db");
  ASSERT_TRUE(argv) << argv.error().message;
  // The global --db comes before the command and is not `frugal run`'s to parse.
  ASSERT_GE(argv->size(), 4u);
  EXPECT_EQ((*argv)[1], "--db");
  argv->erase(argv->begin() + 1, argv->begin() + 3);
  Parsed p = ParseAsTheCliDoes(*argv);
  EXPECT_EQ(p.setup.offer.tier, CapacityTier::kSpot);
  EXPECT_EQ(p.setup.offer.gpu, "T4");
  EXPECT_EQ(p.setup.offer.gpu_count, 2);
  EXPECT_EQ(p.setup.config.price.per_hour, Money::FromDollars(0.5));
  JobRequest cpu_job;
  cpu_job.cpu_only = true;
  argv = FrugalRunArgv(Row(cpu_job), cap->pools[1], "frugal", "");
  ASSERT_TRUE(argv) << argv.error().message;
  EXPECT_EQ(std::find(argv->begin(), argv->end(), std::string(RunFlag::kGpu)), argv->end());
  p = ParseAsTheCliDoes(*argv);
  EXPECT_EQ(p.setup.offer.tier, CapacityTier::kOnDemand);
  EXPECT_EQ(p.setup.offer.gpu, "");
}

}  // namespace
}  // namespace frugal::queue

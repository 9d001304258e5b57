// Planning speed: one job over the whole shipped catalog with every knob combination the
// example allows (precision × method × recompute × micro-batch × ZeRO), GPU counts up to 8.

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <iostream>

#include "frugal/catalog/catalog.h"
#include "frugal/plan/planner.h"

namespace {

namespace fs = std::filesystem;
using frugal::catalog::Catalog;

struct Inputs {
  Catalog catalog;
  frugal::plan::JobSpec spec;
};

const Inputs& Load() {
  static const Inputs inputs = [] {
    const fs::path root = FRUGAL_SOURCE_DIR;
    auto c = Catalog::LoadFrom(root / "data");
    if (!c) {
      std::cerr << c.error().message << "\n";
      std::exit(2);
    }
    std::vector<std::string> names;
    for (const auto& g : c->gpus()) names.push_back(g.name);
    auto spec =
        frugal::plan::LoadJobSpec(root / "examples" / "plan" / "llama-7b-finetune.yaml", names);
    if (!spec) {
      std::cerr << spec.error().message << "\n";
      std::exit(2);
    }
    return Inputs{std::move(*c), std::move(*spec)};
  }();
  return inputs;
}

void BM_PlanWholeCatalogAllKnobs(benchmark::State& state) {
  const Inputs& in = Load();
  size_t evaluated = 0;
  size_t ranked = 0;
  for (auto _ : state) {
    auto plan = frugal::plan::MakePlan(in.spec, in.catalog, frugal::plan::PlanRequest{});
    benchmark::DoNotOptimize(plan);
    evaluated = plan->evaluated;
    ranked = plan->ranked;
  }
  state.counters["offers"] = static_cast<double>(in.catalog.offers().size());
  state.counters["knob_configs"] = static_cast<double>(evaluated);
  state.counters["ranked_options"] = static_cast<double>(ranked);
}
BENCHMARK(BM_PlanWholeCatalogAllKnobs)->Unit(benchmark::kMillisecond);

/// The same job with its 800 GB of data located in aws us-east-1: every option also prices its
/// egress (data_locality.h) and the transfer table is read once per plan.
void BM_PlanWholeCatalogAllKnobsDataLocated(benchmark::State& state) {
  const Inputs& in = Load();
  frugal::plan::JobSpec spec = in.spec;
  spec.data.cloud = "aws";
  spec.data.region = "us-east-1";
  spec.data.size_gb = 800;
  spec.data.runs = 5;
  for (auto _ : state) {
    auto plan = frugal::plan::MakePlan(spec, in.catalog, frugal::plan::PlanRequest{});
    benchmark::DoNotOptimize(plan);
    if (!plan) state.SkipWithError(plan.error().message.c_str());
  }
}
BENCHMARK(BM_PlanWholeCatalogAllKnobsDataLocated)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();

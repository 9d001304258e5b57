// Load the whole shipped catalog and answer a filtered, sorted query (target: well under 50 ms).

#include <benchmark/benchmark.h>

#include "frugal/catalog/catalog.h"

namespace {

using frugal::CapacityTier;
using frugal::catalog::Catalog;
using frugal::catalog::OfferQuery;

OfferQuery EightA100OnSpot() {
  OfferQuery q;
  q.gpu = "A100-80GB";
  q.min_gpus = 8;
  q.tier = CapacityTier::kSpot;
  q.sort = OfferQuery::Sort::kPricePerGpu;
  q.limit = 10;
  return q;
}

void BM_LoadAndQuery(benchmark::State& state) {
  for (auto _ : state) {
    auto c = Catalog::LoadFrom(FRUGAL_SOURCE_DIR "/data");
    if (!c) state.SkipWithError(c.error().message.c_str());
    auto offers = c->Query(EightA100OnSpot());
    benchmark::DoNotOptimize(offers);
  }
}
BENCHMARK(BM_LoadAndQuery)->Unit(benchmark::kMillisecond);

void BM_QueryOnly(benchmark::State& state) {
  auto c = Catalog::LoadFrom(FRUGAL_SOURCE_DIR "/data");
  if (!c) {
    state.SkipWithError(c.error().message.c_str());
    return;
  }
  for (auto _ : state) {
    auto offers = c->Query(EightA100OnSpot());
    benchmark::DoNotOptimize(offers);
  }
  state.counters["offers"] = static_cast<double>(c->offers().size());
}
BENCHMARK(BM_QueryOnly)->Unit(benchmark::kMicrosecond);

}  // namespace

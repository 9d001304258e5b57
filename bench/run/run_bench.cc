// Supervisor costs: CPU used by the supervisor while a command runs (target < 1% of one core),
// and time from a preemption to the command's first progress after resuming, minus the
// command's own load time (target < 5 s).

#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <cstdlib>
#include <filesystem>

#include "frugal/run/run_journal.h"
#include "frugal/run/supervisor.h"

namespace frugal::run {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

double CpuSeconds() {
  rusage u{};
  ::getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

fs::path FreshDir(const char* name) {
  fs::path dir = fs::temp_directory_path() / name;
  fs::remove_all(dir);
  return dir;
}

SupervisorConfig Config(const fs::path& dir, std::vector<std::string> command) {
  SupervisorConfig c;
  c.command = std::move(command);
  c.run_id = "bench";
  c.run_dir = dir;
  c.price = Rate{Money::FromCents(306)};
  return c;  // default intervals: accrual 1 s, heartbeat 10 s, samples 5 s
}

/// The supervisor's own CPU time while a command that reports 10 progress lines a second runs
/// for 20 s, as a fraction of one core.
void BM_SupervisorCpuOverhead(benchmark::State& state) {
  for (auto _ : state) {
    const fs::path dir = FreshDir("frugal-bench-overhead");
    RunJournal journal(dir / "journal.jsonl");
    Supervisor supervisor(
        Config(dir,
               {"/bin/sh", "-c",
                "i=0; while [ $i -lt 200 ]; do i=$((i+1)); "
                "echo \"{\\\"type\\\":\\\"progress\\\",\\\"step\\\":$i}\" >> \"$FRUGAL_REPORT\"; "
                "sleep 0.1; done"}),
        journal);
    const auto wall0 = std::chrono::steady_clock::now();
    const double cpu0 = CpuSeconds();
    auto r = supervisor.Run();
    const double cpu = CpuSeconds() - cpu0;
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    if (!r || r->outcome != RunOutcome::kFinished) state.SkipWithError("run failed");
    state.counters["core_fraction_pct"] = 100.0 * cpu / wall;
    state.counters["wall_s"] = wall;
  }
}
BENCHMARK(BM_SupervisorCpuOverhead)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

/// Preemption → first progress after resume, minus the command's own load time (the fresh
/// segment's time to first progress), with the Python counter child and local restarts.
void BM_ResumeLatency(benchmark::State& state) {
  ::setenv("PYTHONPATH", FRUGAL_SOURCE_DIR "/python", 1);
  for (auto _ : state) {
    const fs::path dir = FreshDir("frugal-bench-resume");
    RunJournal journal(dir / "journal.jsonl");
    SupervisorConfig c =
        Config(dir, {"/usr/bin/python3", FRUGAL_SOURCE_DIR "/tests/unit/run/children/counter.py",
                     "200", "0.02", "20"});
    c.restart = RestartPolicy::kLocal;
    c.max_restarts = 5;
    c.restart_backoff = milliseconds(0);
    Supervisor supervisor(c, journal);
    supervisor.AddPreemptionSource(std::make_unique<ChaosPreemptions>(milliseconds(1500), 3, 3));
    auto r = supervisor.Run();
    if (!r || r->resume_times.empty() || !r->first_progress) {
      state.SkipWithError("no resume measured");
      continue;
    }
    double worst = 0;
    for (Duration d : r->resume_times) worst = std::max(worst, ToSeconds(d));
    state.counters["resume_max_s"] = worst;
    state.counters["load_s"] = ToSeconds(*r->first_progress);
    state.counters["resume_minus_load_s"] = worst - ToSeconds(*r->first_progress);
    state.counters["preemptions"] = r->preemptions;
  }
}
BENCHMARK(BM_ResumeLatency)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
}  // namespace frugal::run

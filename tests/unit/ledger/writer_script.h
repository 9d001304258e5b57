#pragma once
// A deterministic, seeded sequence of ledger writes, as a supervisor would make them: begin a
// run, open a segment, sample batches, heartbeats, a preemption, a resume, the finish. The same
// seed always yields the same operations, so a run of the first N operations can be replayed
// into a reference ledger and compared with what a killed writer left behind.

#include <cstdint>
#include <string>

#include "frugal/core/error.h"
#include "frugal/ledger/ledger.h"

namespace frugal::ledger::testing {

struct ScriptOptions {
  uint64_t seed = 1;
  int runs = 3;
  int batches = 2;  ///< sample batches per segment
  int samples_per_batch = 50;
  int64_t op_limit = -1;  ///< stop after this many operations (-1: all)
  int log_fd = -1;        ///< when >= 0, "<op number>\n" is written after each commit
};

/// Runs the script; returns the number of operations committed.
[[nodiscard]] Result<int64_t> RunScript(Ledger& ledger, const ScriptOptions& options);

/// What a writer's runs add up to, independent of ids: counts, states and money.
struct Fingerprint {
  int64_t runs = 0;
  int64_t finished_runs = 0;
  int64_t lost_runs = 0;
  int64_t segments = 0;
  int64_t open_segments = 0;
  int64_t samples = 0;
  int64_t rollup_samples = 0;
  int64_t events = 0;
  int64_t tags = 0;
  int64_t cost_micros = 0;
  bool operator==(const Fingerprint&) const = default;
};
std::string ToString(const Fingerprint& f);

/// The fingerprint of the runs the script with `seed` wrote.
[[nodiscard]] Result<Fingerprint> FingerprintOf(Ledger& ledger, uint64_t seed);

}  // namespace frugal::ledger::testing

// A separate writer process for the concurrency and crash tests:
//   ledger_writer LOCATION SEED RUNS BATCHES SAMPLES_PER_BATCH
// runs the seeded script against the ledger and writes "<op>\n" to stdout after each commit.

#include <cstdio>
#include <cstdlib>
#include <string>

#include "frugal/ledger/ledger.h"
#include "writer_script.h"

int main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: ledger_writer LOCATION SEED RUNS BATCHES SAMPLES_PER_BATCH\n");
    return 2;
  }
  auto ledger = frugal::ledger::Ledger::Open(argv[1]);
  if (!ledger) {
    std::fprintf(stderr, "open: %s\n", ledger.error().message.c_str());
    return 1;
  }
  frugal::ledger::testing::ScriptOptions options;
  options.seed = std::strtoull(argv[2], nullptr, 10);
  options.runs = std::atoi(argv[3]);
  options.batches = std::atoi(argv[4]);
  options.samples_per_batch = std::atoi(argv[5]);
  options.log_fd = 1;
  auto ops = frugal::ledger::testing::RunScript(**ledger, options);
  if (!ops) {
    std::fprintf(stderr, "script: %s\n", ops.error().message.c_str());
    return 1;
  }
  return 0;
}

// server_fixture: writes the server tests' ledger from the command line, for the browser test
// and the benchmark (which drive it from outside C++).
//   server_fixture seed DB        the small fleet (prints the run ids as JSON)
//   server_fixture progress DB    the running run reports a sample and heartbeats
//   server_fixture finish DB      the running run succeeds
//   server_fixture many DB N      N more finished runs over the last 30 days

#include <iostream>
#include <string>

#include "frugal/core/text.h"
#include "frugal/ledger/types.h"
#include "seed.h"

int main(int argc, char** argv) {
  using namespace frugal;
  if (argc < 3) {
    std::cerr << "usage: server_fixture seed|progress|finish|many DB [N]\n";
    return 2;
  }
  const std::string what = argv[1];
  const std::string db = argv[2];
  const ledger::Timestamp now = ledger::Now();
  Result<void> done;
  if (what == "seed") {
    const Result<server_test::SeededFleet> fleet = server_test::SeedFleet(db, now);
    if (fleet) {
      std::cout << "{\"finished_run\": " << fleet->finished_run
                << ", \"running_run\": " << fleet->running_run
                << ", \"vision_run\": " << fleet->vision_run << "}\n";
    } else {
      done = Fail(fleet.error());
    }
  } else if (what == "progress") {
    done = server_test::Progress(db, now);
  } else if (what == "finish") {
    done = server_test::FinishLive(db, now);
  } else if (what == "many" && argc == 4) {
    const Result<int64_t> n = ParseInt(argv[3]);
    if (n && *n > 0) {
      done = server_test::AddManyRuns(db, *n, now);
    } else {
      done = Fail(ErrorCode::kBadInput, std::string("N: ") + argv[3]);
    }
  } else {
    std::cerr << "server_fixture: unknown command '" << what << "'\n";
    return 2;
  }
  if (!done) {
    std::cerr << "server_fixture: " << done.error().message << "\n";
    return static_cast<int>(done.error().code);
  }
  return 0;
}

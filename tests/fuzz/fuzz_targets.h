#pragma once
// The parsers of outside input the fuzz driver exercises through the real binary: for each, the
// file the mutated bytes are written to, the frugal command that reads it, what else the case
// directory needs, and the exit codes a correct frugal may give.

#include <filesystem>
#include <functional>
#include <set>
#include <string>
#include <vector>

namespace frugal::fuzz {

/// One case's setting, handed to a target to lay out its files and build its command line.
struct CaseDir {
  std::filesystem::path dir;     ///< empty before the case; the command runs here
  std::filesystem::path seeds;   ///< the seed tree (seeds/<target>/...)
  std::filesystem::path input;   ///< where the mutated bytes are (inside `dir`)
  std::filesystem::path frugal;  ///< the binary, for setups that need a ledger
  int number = 0;
};

struct Target {
  std::string name;        ///< also the seeds folder
  std::string input_name;  ///< file name of the mutated input inside the case dir
  /// Writes what the command needs beside the input (companion files), before it runs.
  std::function<void(const CaseDir&)> setup;
  /// The arguments after the binary.
  std::function<std::vector<std::string>(const CaseDir&)> args;
  std::set<int> allowed_exits;  ///< anything else is a wrong exit code
  /// Whether an exit-2 message must name the input file (every bad-input error on a file does).
  bool bad_input_names_file = true;
};

/// Every target, in a fixed order.
std::vector<Target> AllTargets();

}  // namespace frugal::fuzz

// frugal_fuzz: a seeded mutation fuzzer over the real binary. For every parser of outside
// input (fuzz_targets.cc) it mutates the seed files, runs the frugal command that reads them
// and judges the outcome: a signal is a crash, running past --timeout-ms a hang, an exit code
// outside the target's set (or "internal error" on stderr) a wrong exit code, and under --json
// a stdout that is not exactly one JSON document, or an exit-2 message that does not name the
// input file, a bad report. Every case that fails is kept under --keep with its command line.
//
//   frugal_fuzz --frugal BIN --seeds DIR [--cases N] [--seed S] [--timeout-ms MS]
//               [--targets a,b] [--work DIR] [--keep DIR]
//
// Exit 0 when no case failed, 1 when one did, 2 on bad flags. The same seed gives the same
// cases.

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "fuzz_targets.h"

namespace frugal::fuzz {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteAll(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
}

// ---- mutation ----------------------------------------------------------------------------

/// Tokens that have broken parsers before: aliases, numbers past every range, bytes that are
/// not UTF-8, structure characters, and long values.
const std::vector<std::string>& Dictionary() {
  static const std::vector<std::string> kTokens = {"*a",
                                                   "&a ",
                                                   "<<: *a\n",
                                                   "1e309",
                                                   "1e41",
                                                   "1e300",
                                                   "-1",
                                                   "0",
                                                   "nan",
                                                   "inf",
                                                   "-inf",
                                                   "\xff\xfe",
                                                   "\xc3(",
                                                   "\xe9",
                                                   "~",
                                                   "null",
                                                   "NULL",
                                                   "[]",
                                                   "{}",
                                                   "\"",
                                                   "'",
                                                   ",,",
                                                   "\n",
                                                   "\t",
                                                   "99999999999999999999",
                                                   "1e10",
                                                   "1e7",
                                                   "-0",
                                                   "0x10",
                                                   ": ",
                                                   "? ",
                                                   "!!binary ",
                                                   "---\n",
                                                   "...\n",
                                                   "[[[[[[[[",
                                                   "{\"a\":",
                                                   "\\u0000",
                                                   "\r\n",
                                                   "9223372036854775808",
                                                   "2026-02-30T25:61:00Z",
                                                   ".5",
                                                   "1.00000000000000001",
                                                   "#",
                                                   "- ",
                                                   "|\n",
                                                   ">-\n",
                                                   std::string(300, 'x')};
  return kTokens;
}

class Mutator {
 public:
  explicit Mutator(uint64_t seed) : rng_(seed) {}

  std::string Mutate(std::string text, const std::vector<std::string>& others) {
    const int rounds = 1 + Below(4);
    for (int r = 0; r < rounds; ++r) text = Once(std::move(text), others);
    if (text.size() > kMaxBytes) text.resize(kMaxBytes);
    return text;
  }

 private:
  static constexpr size_t kMaxBytes = 1 << 20;

  int Below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  size_t At(const std::string& s) {
    return std::uniform_int_distribution<size_t>(0, s.size())(rng_);
  }

  std::string Once(std::string s, const std::vector<std::string>& others) {
    const auto& dict = Dictionary();
    switch (Below(9)) {
      case 0:  // flip a bit
        if (!s.empty()) {
          const size_t i = At(s) % s.size();
          s[i] = static_cast<char>(s[i] ^ (1 << Below(8)));
        }
        break;
      case 1:  // a random byte
        if (!s.empty()) s[At(s) % s.size()] = static_cast<char>(Below(256));
        break;
      case 2:
      case 3:  // a dictionary token
        s.insert(At(s), dict[static_cast<size_t>(Below(static_cast<int>(dict.size())))]);
        break;
      case 4: {  // replace a number or word with a token
        const size_t i = At(s);
        size_t j = i;
        while (j < s.size() && std::isalnum(static_cast<unsigned char>(s[j]))) ++j;
        s.replace(i, j - i, dict[static_cast<size_t>(Below(static_cast<int>(dict.size())))]);
        break;
      }
      case 5: {  // delete a range
        const size_t i = At(s);
        s.erase(i, static_cast<size_t>(Below(64)));
        break;
      }
      case 6: {  // duplicate a range
        const size_t i = At(s);
        const std::string part = s.substr(i, static_cast<size_t>(Below(256)));
        s.insert(At(s), part);
        break;
      }
      case 7:  // truncate
        s.resize(At(s));
        break;
      default: {  // splice a line from another seed of the target
        if (others.empty()) break;
        const std::string& other =
            others[static_cast<size_t>(Below(static_cast<int>(others.size())))];
        const size_t from = At(other);
        const size_t end = other.find('\n', from);
        s.insert(At(s), other.substr(from, end == std::string::npos ? end : end - from + 1));
      }
    }
    return s;
  }

  std::mt19937_64 rng_;
};

// ---- running a case ----------------------------------------------------------------------

struct Outcome {
  int exit_code = -1;  ///< -1 when it did not exit normally
  int signal = 0;
  bool timed_out = false;
  double millis = 0;
  std::string out, err;
};

Outcome RunCase(const fs::path& binary, const std::vector<std::string>& args, const fs::path& dir,
                int timeout_ms) {
  const fs::path out_path = dir / ".stdout";
  const fs::path err_path = dir / ".stderr";
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    if (chdir(dir.c_str()) != 0) _exit(127);
    const int out = open(out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    if (out < 0 || err < 0 || in < 0) _exit(127);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    setenv("FRUGAL_HOME", (dir / "home").c_str(), 1);
    unsetenv("FRUGAL_DB");
    unsetenv("FRUGAL_CATALOG");
    unsetenv("FRUGAL_POLICY");
    std::vector<std::string> all = {binary.string()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(binary.c_str(), argv.data());
    _exit(127);
  }
  Outcome o;
  int status = 0;
  while (true) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (Clock::now() - start > std::chrono::milliseconds(timeout_ms)) {
      o.timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  // Whatever the command left in its process group goes too.
  kill(-pid, SIGKILL);
  o.millis = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  if (!o.timed_out) {
    if (WIFEXITED(status)) o.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) o.signal = WTERMSIG(status);
  }
  o.out = ReadAll(out_path);
  o.err = ReadAll(err_path);
  return o;
}

/// What a case feeds the command beside mutated bytes. After a target's seeds have run
/// unmutated, one case gives a named pipe nobody writes to (a plain open of one waits for ever)
/// and, for YAML inputs, one gives the seed followed by a second document: both are bad input
/// the command must refuse (exit 2, naming the file), never a hang or a silently ignored part.
enum class Special { kNone, kFifo, kSecondDocument };

Special SpecialCase(const Target& t, int n, size_t seeds) {
  if (!t.bad_input_names_file) return Special::kNone;  // the input is not a file a user names
  const bool yaml = t.input_name.ends_with(".yaml");
  if (n == static_cast<int>(seeds)) return Special::kFifo;
  if (yaml && n == static_cast<int>(seeds) + 1) return Special::kSecondDocument;
  return Special::kNone;
}

/// What is wrong with an outcome, or "" when nothing is.
std::string Judge(const Target& t, const Outcome& o, const std::string& input_name,
                  Special special) {
  if (o.timed_out) return "hang";
  if (o.signal != 0) return fmt::format("crash (signal {})", o.signal);
  if (o.err.find("internal error") != std::string::npos) return "wrong exit: internal error";
  if (!t.allowed_exits.contains(o.exit_code)) return fmt::format("wrong exit: {}", o.exit_code);
  if (special != Special::kNone && o.exit_code != 2) {
    return fmt::format("wrong exit: {} for {}", o.exit_code,
                       special == Special::kFifo ? "a named pipe" : "a second YAML document");
  }
  // --json: exactly one document on stdout, whatever the outcome.
  if (!nlohmann::json::accept(o.out)) return "bad report: stdout is not one JSON document";
  if (o.exit_code == 2 && t.bad_input_names_file &&
      o.err.find(fs::path(input_name).filename().string()) == std::string::npos) {
    return "bad report: exit 2 without naming the input file";
  }
  return "";
}

// ---- the campaign ------------------------------------------------------------------------

struct Tally {
  int cases = 0, crashes = 0, hangs = 0, wrong_exits = 0, bad_reports = 0, skipped = 0;
  double slowest_ms = 0;
  std::map<int, int> exits;
};

struct Flags {
  fs::path frugal, seeds, work, keep;
  int cases = 20;
  uint64_t seed = 1;
  int timeout_ms = 10'000;
  std::vector<std::string> targets;
};

std::optional<Flags> ParseFlags(int argc, char** argv) {
  Flags f;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const std::string v = argv[i + 1];
    if (k == "--frugal")
      f.frugal = v;
    else if (k == "--seeds")
      f.seeds = v;
    else if (k == "--work")
      f.work = v;
    else if (k == "--keep")
      f.keep = v;
    else if (k == "--cases")
      f.cases = std::stoi(v);
    else if (k == "--seed")
      f.seed = std::stoull(v);
    else if (k == "--timeout-ms")
      f.timeout_ms = std::stoi(v);
    else if (k == "--targets") {
      std::stringstream list(v);
      for (std::string name; std::getline(list, name, ',');) f.targets.push_back(name);
    } else {
      return std::nullopt;
    }
  }
  if (argc % 2 == 0 || f.frugal.empty() || f.seeds.empty()) return std::nullopt;
  if (f.work.empty()) f.work = fs::temp_directory_path() / fmt::format("frugal-fuzz-{}", getpid());
  if (f.keep.empty()) f.keep = f.work / "failures";
  // Each case runs in its own directory.
  f.frugal = fs::absolute(f.frugal);
  f.seeds = fs::absolute(f.seeds);
  f.work = fs::absolute(f.work);
  f.keep = fs::absolute(f.keep);
  return f;
}

std::vector<std::string> Seeds(const fs::path& dir) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file()) files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> texts;
  for (const fs::path& p : files) texts.push_back(ReadAll(p));
  return texts;
}

/// Runs `cases` cases of one target; failures are kept under `keep`/<target>-<n>/.
Tally Campaign(const Target& t, const Flags& f, Mutator& mutator) {
  Tally tally;
  const std::vector<std::string> seeds = Seeds(f.seeds / t.name);
  for (int n = 0; n < f.cases; ++n) {
    CaseDir c;
    c.dir = f.work / fmt::format("{}-{}", t.name, n);
    c.seeds = f.seeds;
    c.frugal = f.frugal;
    c.input = c.dir / t.input_name;
    c.number = n;
    fs::remove_all(c.dir);
    fs::create_directories(c.dir);
    try {
      t.setup(c);
    } catch (const std::exception& e) {
      // Not the input's doing (the binary replaced mid-run, a full disk): the case is skipped.
      std::cerr << fmt::format("{} case {}: setup failed, skipped: {}\n", t.name, n, e.what());
      ++tally.skipped;
      continue;
    }
    const std::string& seed = seeds[static_cast<size_t>(n) % seeds.size()];
    // Each seed runs once unmutated first: a failure there is the seed's, not a mutation's.
    const Special special = SpecialCase(t, n, seeds.size());
    if (special == Special::kFifo) {
      fs::create_directories(c.input.parent_path());
      if (mkfifo(c.input.c_str(), 0600) != 0) {
        std::cerr << fmt::format("{} case {}: cannot make a named pipe, skipped\n", t.name, n);
        ++tally.skipped;
        continue;
      }
    } else if (special == Special::kSecondDocument) {
      WriteAll(c.input, seed + "\n---\n" + seed);
    } else {
      WriteAll(c.input, n < static_cast<int>(seeds.size()) ? seed : mutator.Mutate(seed, seeds));
    }
    const std::vector<std::string> args = t.args(c);
    const Outcome o = RunCase(f.frugal, args, c.dir, f.timeout_ms);
    ++tally.cases;
    ++tally.exits[o.exit_code];
    tally.slowest_ms = std::max(tally.slowest_ms, o.millis);
    const std::string verdict = Judge(t, o, t.input_name, special);
    if (!verdict.empty()) {
      if (verdict == "hang")
        ++tally.hangs;
      else if (verdict.starts_with("crash"))
        ++tally.crashes;
      else if (verdict.starts_with("wrong exit"))
        ++tally.wrong_exits;
      else
        ++tally.bad_reports;
      const fs::path kept = f.keep / fmt::format("{}-{}", t.name, n);
      fs::remove_all(kept);
      fs::create_directories(kept.parent_path());
      // A named pipe cannot be copied (the copy would read it): the VERDICT says it was one.
      if (special == Special::kFifo) fs::remove(c.input);
      fs::copy(c.dir, kept, fs::copy_options::recursive);
      std::string line = verdict +
                         (special == Special::kFifo ? " (the input was a named pipe)" : "") + "\n" +
                         f.frugal.string();
      for (const std::string& a : args) line += " '" + a + "'";
      WriteAll(kept / "VERDICT", line + "\n");
      std::cerr << fmt::format("{} case {}: {} ({:.0f} ms; kept in {})\n  {}\n", t.name, n, verdict,
                               o.millis, kept.string(),
                               o.err.substr(0, std::min<size_t>(o.err.size(), 400)));
    }
    fs::remove_all(c.dir);
  }
  return tally;
}

int Main(int argc, char** argv) {
  const std::optional<Flags> flags = ParseFlags(argc, argv);
  if (!flags) {
    std::cerr << "usage: frugal_fuzz --frugal BIN --seeds DIR [--cases N] [--seed S] "
                 "[--timeout-ms MS] [--targets a,b] [--work DIR] [--keep DIR]\n";
    return 2;
  }
  Mutator mutator(flags->seed);
  fs::create_directories(flags->work);
  std::cout << fmt::format("{:<11} {:>6} {:>7} {:>5} {:>10} {:>11} {:>11}  exits\n", "target",
                           "cases", "crashes", "hangs", "wrong exit", "bad report", "slowest ms");
  Tally total;
  for (const Target& t : AllTargets()) {
    if (!flags->targets.empty() &&
        std::find(flags->targets.begin(), flags->targets.end(), t.name) == flags->targets.end()) {
      continue;
    }
    const Tally r = Campaign(t, *flags, mutator);
    std::string exits;
    for (const auto& [code, count] : r.exits) exits += fmt::format(" {}:{}", code, count);
    std::cout << fmt::format("{:<11} {:>6} {:>7} {:>5} {:>10} {:>11} {:>11.0f} {}\n", t.name,
                             r.cases, r.crashes, r.hangs, r.wrong_exits, r.bad_reports,
                             r.slowest_ms, exits)
              << std::flush;
    total.cases += r.cases;
    total.crashes += r.crashes;
    total.hangs += r.hangs;
    total.wrong_exits += r.wrong_exits;
    total.bad_reports += r.bad_reports;
    total.slowest_ms = std::max(total.slowest_ms, r.slowest_ms);
    total.skipped += r.skipped;
  }
  if (total.skipped > 0)
    std::cout << fmt::format("({} cases skipped: setup failed)\n", total.skipped);
  std::cout << fmt::format("{:<11} {:>6} {:>7} {:>5} {:>10} {:>11} {:>11.0f}\n", "all", total.cases,
                           total.crashes, total.hangs, total.wrong_exits, total.bad_reports,
                           total.slowest_ms);
  const int failed = total.crashes + total.hangs + total.wrong_exits + total.bad_reports;
  if (failed == 0) fs::remove_all(flags->work);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace frugal::fuzz

int main(int argc, char** argv) { return frugal::fuzz::Main(argc, argv); }

// The console examples of README.md and docs/*.md, run with the real binary: every `$ frugal
// ...` line of a ```console block runs (from a scratch directory, its paths into the source
// tree made absolute), must exit 0, and must print the lines the example shows, in order, by
// their shape: figures (numbers, durations, money) may differ, words and columns may not. A
// "..." line stands for lines left out; a line ending in "..." for the rest of that line.
//
// Commands that cannot run here are skipped and say why: one that names a file the tree does
// not have, one whose text is elided ("..."), `frugal serve` (it runs until stopped), one that
// trains with PyTorch where torch is not importable, and, in the same block after a skipped
// command, those that show no output (they may read what it wrote).

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "frugal/ledger/schema.h"
#include "support/test_support.h"

namespace frugal {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::RunProgram;
using testing::SourceDir;
using testing::TempDir;

struct Example {
  std::string where;  ///< "README.md:72"
  std::string command;
  std::vector<std::string> expected;  ///< the output lines shown
  int block = 0;
};

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The `$ ` commands of every ```console block of `path`, with the output lines under each.
std::vector<Example> Examples(const fs::path& path) {
  std::vector<Example> out;
  const std::vector<std::string> lines = Lines(ReadText(path));
  bool in_block = false;
  bool in_output = false;
  int block = 0;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string& line = lines[i];
    if (!in_block) {
      if (line.starts_with("```console")) {
        in_block = true;
        ++block;
      }
      continue;
    }
    if (line.starts_with("```")) {
      in_block = false;
      in_output = false;
      continue;
    }
    if (line.starts_with("$ ")) {
      Example e{fmt::format("{}:{}", path.filename().string(), i + 1), line.substr(2), {}, block};
      while (!e.command.empty() && e.command.back() == '\\' && i + 1 < lines.size()) {
        e.command.pop_back();
        e.command += lines[++i];
      }
      out.push_back(std::move(e));
      in_output = true;
    } else if (line.starts_with("# ")) {
      in_output = false;  // a comment between commands
    } else if (in_output) {
      out.back().expected.push_back(line);
    }
  }
  return out;
}

std::vector<std::string> Words(const std::string& command) {
  std::vector<std::string> words;
  std::string word;
  char quote = 0;
  bool any = false;
  for (char c : command) {
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      any = true;
    } else if (c == ' ' || c == '\t') {
      if (any || !word.empty()) words.push_back(word);
      word.clear();
      any = false;
    } else {
      word += c;
    }
  }
  if (any || !word.empty()) words.push_back(word);
  return words;
}

/// A line with its figures masked: numbers become '#', durations "~t", runs of spaces one
/// space, runs of dashes (table rules) one dash.
std::string Shape(std::string line) {
  static const std::regex run_id("r-[0-9]{8}-[0-9]{6}-[0-9a-f]{4}");
  static const std::regex number("[0-9]+([.,][0-9]+)*");
  static const std::regex duration("#(ms|[dhms])(#(ms|[dhms]))*");
  static const std::regex negative("(^|\\s)-#");
  static const std::regex spaces("\\s+");
  static const std::regex dashes("-{2,}");
  line = std::regex_replace(line, run_id, "RUN-ID");
  line = std::regex_replace(line, number, "#");
  line = std::regex_replace(line, duration, "~t");
  line = std::regex_replace(line, negative, "$1#");
  line = std::regex_replace(line, dashes, "-");
  line = std::regex_replace(line, spaces, " ");
  const size_t begin = line.find_first_not_of(' ');
  const size_t end = line.find_last_not_of(' ');
  return begin == std::string::npos ? "" : line.substr(begin, end - begin + 1);
}

/// Why `words` cannot run here, or "" when it can.
std::string SkipReason(const std::vector<std::string>& words) {
  if (words.empty() || words[0] != "frugal") return "not a frugal command";
  if (words.size() > 1 && words[1] == "serve") return "serve runs until stopped";
  bool after_dashes = false;
  for (const std::string& w : words) {
    if (w.find("...") != std::string::npos) return "elided";
    if (w == "--") {
      after_dashes = true;
      continue;
    }
    const bool file_like = w.find('/') != std::string::npos || w.ends_with(".yaml") ||
                           w.ends_with(".json") || w.ends_with(".py") || w.ends_with(".csv");
    if (!file_like || w.starts_with("-")) continue;
    const fs::path p = fs::path(w).is_absolute() ? fs::path(w) : SourceDir() / w;
    if (!fs::exists(p)) return w + " is not in the source tree";
    if (after_dashes && w.ends_with(".py") &&
        ReadText(p).find("import torch") != std::string::npos &&
        RunProgram({"/usr/bin/python3", "-c", "import torch"}).exit_code != 0) {
      return "torch is not importable";
    }
  }
  return "";
}

/// The index in `actual` after the line matching `expected`, searching from `from`; npos when
/// none matches.
size_t Match(const std::string& expected, const std::vector<std::string>& actual, size_t from) {
  std::string want = expected;
  const bool prefix = want.ends_with("...");
  if (prefix) want.resize(want.size() - 3);
  want = Shape(want);
  for (size_t i = from; i < actual.size(); ++i) {
    const std::string got = Shape(actual[i]);
    if (prefix ? got.starts_with(want) : got == want) return i + 1;
  }
  return std::string::npos;
}

void RunExamples(const fs::path& doc) {
  const std::vector<Example> examples = Examples(doc);
  TempDir scratch;
  const fs::path before = fs::current_path();
  fs::current_path(scratch.path());  // outputs such as `-o report.html` land here
  int last_block = -1;
  bool block_skipped = false;
  std::unique_ptr<TempDir> home;
  int ran = 0;
  for (const Example& e : examples) {
    SCOPED_TRACE(e.where + ": $ " + e.command);
    if (e.block != last_block) {
      last_block = e.block;
      block_skipped = false;
      home = std::make_unique<TempDir>();
    }
    std::vector<std::string> words = Words(e.command);
    std::string skip = SkipReason(words);
    if (skip.empty() && block_skipped && e.expected.empty())
      skip = "it may read what a skipped command wrote";
    if (!skip.empty()) {
      std::cout << "skipped " << e.where << " ($ " << e.command << "): " << skip << "\n";
      block_skipped = true;
      continue;
    }
    std::vector<std::string> argv = {FRUGAL_BINARY};
    for (size_t i = 1; i < words.size(); ++i) {
      const fs::path in_tree = SourceDir() / words[i];
      const bool relative_path = !words[i].starts_with("-") && !fs::path(words[i]).is_absolute() &&
                                 words[i].find('/') != std::string::npos && fs::exists(in_tree);
      argv.push_back(relative_path ? in_tree.string() : words[i]);
    }
    const CommandResult r = RunProgram(
        argv, {"FRUGAL_HOME=" + home->path().string(),
               "PYTHONPATH=" + (SourceDir() / "python").string(), "NO_COLOR=1", "TERM=dumb"});
    ++ran;
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    // Paths into the tree print as the example wrote them: relative to the source directory.
    const std::string root = SourceDir().string() + "/";
    std::vector<std::string> actual;
    for (const std::string& text : {r.out, r.err}) {
      for (std::string l : Lines(text)) {
        for (size_t at = l.find(root); at != std::string::npos; at = l.find(root))
          l.erase(at, root.size());
        actual.push_back(l);
      }
    }
    size_t at = 0;
    for (const std::string& want : e.expected) {
      if (Shape(want).empty() || Shape(want) == "...") continue;
      const size_t next = Match(want, actual, at);
      if (next == std::string::npos) {
        ADD_FAILURE() << "the example shows a line the command does not print (by shape):\n  "
                      << want << "\nshape: " << Shape(want) << "\nprinted:\n"
                      << r.out << r.err;
        break;
      }
      at = next;
    }
  }
  fs::current_path(before);
  std::cout << doc.filename().string() << ": " << ran << " of " << examples.size()
            << " examples ran\n";
}

TEST(DocsExamples, ShapeIgnoresFiguresButNotWords) {
  EXPECT_EQ(Shape("1  aws:p4d  spot  A100-40GB x8  35.4/40  20h38m  $50.90  yes"),
            Shape("1  aws:p4d  spot  A100-40GB x8  36.1/40   4h29m  $1,050.71  yes"));
  EXPECT_NE(Shape("2  B200 x8  $58.63"), Shape("2  H200 x8  $50.71"));
  EXPECT_EQ(Shape("-----  --  ---"), Shape("--  -----  -"));
  EXPECT_EQ(Shape("gap -1146%"), Shape("gap 46%"));
}

TEST(DocsExamples, TheLedgerDocNamesTheSchemaThisFrugalKnows) {
  // docs/ledger.md quotes the refusal of a newer ledger, with the version this frugal knows.
  const std::string doc = ReadText(SourceDir() / "docs" / "ledger.md");
  const std::string quoted =
      fmt::format("ledger schema version {} is newer than this frugal knows ({})",
                  ledger::kSchemaVersion + 1, ledger::kSchemaVersion);
  EXPECT_NE(doc.find(quoted), std::string::npos) << quoted;
}

TEST(DocsExamples, ReadmeConsoleExamplesRunAsShown) { RunExamples(SourceDir() / "README.md"); }

TEST(DocsExamples, DocsConsoleExamplesRunAsShown) {
  for (const auto& entry : fs::directory_iterator(SourceDir() / "docs")) {
    if (entry.path().extension() != ".md") continue;
    SCOPED_TRACE(entry.path().filename().string());
    RunExamples(entry.path());
  }
}

}  // namespace
}  // namespace frugal

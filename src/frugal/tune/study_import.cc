#include "frugal/tune/study_import.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/core/paths.h"

namespace frugal::tune {
namespace {

namespace fs = std::filesystem;

/// Renames `from` to `from` + `suffix`; a file another process moved first is no error.
Result<void> SetAside(const fs::path& from, std::string_view suffix) {
  std::error_code ec;
  fs::rename(from, fs::path(from.string() + std::string(suffix)), ec);
  if (ec && ec != std::errc::no_such_file_or_directory) {
    return Fail(ErrorCode::kFailed,
                fmt::format("cannot rename {}: {}", from.string(), ec.message()));
  }
  return {};
}

}  // namespace

fs::path StudyFilesDir() { return UserDataDir() / "studies"; }

bool HasStudyFiles(const fs::path& dir) {
  const Result<std::vector<std::string>> names = JsonFileStudyStore(dir).Names();
  return names && !names->empty();
}

Result<StudyImport> ImportStudyFiles(const fs::path& dir, StudyStore& into) {
  const JsonFileStudyStore files(dir);
  StudyImport result;
  const std::vector<std::string> names = FRUGAL_TRY(files.Names());
  const std::vector<std::string> held = FRUGAL_TRY(into.Names());
  for (const std::string& name : names) {
    const fs::path path = files.PathOf(name);
    Result<nlohmann::json> state = files.Load(name);
    std::string why;
    if (!state) {
      why = state.error().message;
    } else if (std::find(held.begin(), held.end(), name) != held.end()) {
      why = fmt::format("the ledger already holds a study named '{}'", name);
    }
    if (!why.empty()) {
      FRUGAL_TRY(SetAside(path, ".not-imported"));
      result.notes.push_back(
          fmt::format("{} was not imported into the ledger ({}); it is kept as {}.not-imported",
                      path.string(), why, path.filename().string()));
      continue;
    }
    FRUGAL_TRY(into.Save(name, *state));
    FRUGAL_TRY(SetAside(path, ".imported"));
    result.imported.push_back(name);
  }
  return result;
}

}  // namespace frugal::tune

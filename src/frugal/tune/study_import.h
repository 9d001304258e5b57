#pragma once
// Studies saved before the ledger became the one study store: one `<name>.json` per study under
// the user's data directory (JsonFileStudyStore). They are imported into the ledger on first
// use, not lost: each is saved into the ledger, then its file is renamed `<name>.json.imported`
// and kept beside the others, never read again.

#include <filesystem>
#include <string>
#include <vector>

#include "frugal/tune/study_store.h"

namespace frugal::tune {

/// Where the study files were saved: <user data dir>/studies.
[[nodiscard]] std::filesystem::path StudyFilesDir();

/// Whether `dir` holds a study file not yet imported.
[[nodiscard]] bool HasStudyFiles(const std::filesystem::path& dir);

struct StudyImport {
  std::vector<std::string> imported;  ///< the names moved into the store
  std::vector<std::string> notes;     ///< files left where they are, and why
};

/// Moves the study files in `dir` into `into`. A file whose study `into` already holds by that
/// name, or that does not read as a study state, is left where it is and named in `notes`
/// (renamed `<name>.json.not-imported`, so that it is reported once). Errors are the store's.
[[nodiscard]] Result<StudyImport> ImportStudyFiles(const std::filesystem::path& dir,
                                                   StudyStore& into);

}  // namespace frugal::tune

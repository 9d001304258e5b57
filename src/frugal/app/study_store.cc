#include "frugal/app/study_store.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "frugal/tune/ledger_study_store.h"
#include "frugal/tune/study_import.h"

namespace frugal::app {
namespace {

Result<void> Import(tune::StudyStore& store, std::vector<std::string>& notes) {
  const tune::StudyImport done = FRUGAL_TRY(tune::ImportStudyFiles(tune::StudyFilesDir(), store));
  if (!done.imported.empty()) {
    notes.push_back(fmt::format("imported {} stud{} from {} into the ledger: {}",
                                done.imported.size(), done.imported.size() == 1 ? "y" : "ies",
                                tune::StudyFilesDir().string(), fmt::join(done.imported, ", ")));
  }
  notes.insert(notes.end(), done.notes.begin(), done.notes.end());
  return {};
}

}  // namespace

Result<OpenedStudyStore> OpenStudyStore(const std::string& db_flag, ledger::CreateMode create) {
  OpenedStudyStore opened;
  // A ledger opened read-only cannot take them; they wait for a command that writes.
  const bool pending =
      create != ledger::CreateMode::kReadOnly && tune::HasStudyFiles(tune::StudyFilesDir());
  if (pending) create = ledger::CreateMode::kCreateIfMissing;
  opened.ledger = FRUGAL_TRY(ledger::OpenForCommand(db_flag, create));
  opened.store = std::make_unique<tune::LedgerStudyStore>(*opened.ledger);
  if (pending) FRUGAL_TRY(Import(*opened.store, opened.notes));
  return opened;
}

Result<std::vector<std::string>> ImportPendingStudies(const std::string& db_flag) {
  if (!tune::HasStudyFiles(tune::StudyFilesDir())) return std::vector<std::string>{};
  OpenedStudyStore opened =
      FRUGAL_TRY(OpenStudyStore(db_flag, ledger::CreateMode::kCreateIfMissing));
  return std::move(opened.notes);
}

}  // namespace frugal::app

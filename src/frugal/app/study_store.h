#pragma once
// Open a study store: the one place studies live is the ledger (SQLite by default), so the
// tuner, `tune status`, the audit, the API and the dashboard read the same studies. Study
// files an older frugal saved under the data directory are imported on first use.

#include <memory>
#include <string>
#include <vector>

#include "frugal/ledger/ledger.h"
#include "frugal/tune/study_store.h"

namespace frugal::app {

struct OpenedStudyStore {
  std::unique_ptr<ledger::Ledger> ledger;
  std::unique_ptr<tune::StudyStore> store;  ///< borrows `ledger`
  std::vector<std::string> notes;           ///< what the import did, for the front end to show
};

/// The ledger `db_flag` names (--db; "" = $FRUGAL_DB or the default file) as the study store,
/// opened with `create`. Pending study files are imported first, creating the ledger for them
/// when it does not exist yet. Errors are the ledger's.
[[nodiscard]] Result<OpenedStudyStore> OpenStudyStore(const std::string& db_flag,
                                                      ledger::CreateMode create);

/// Imports pending study files into the ledger `db_flag` names, for a reader that holds its
/// own connections (the server); nothing is opened when there are none. Returns the notes.
[[nodiscard]] Result<std::vector<std::string>> ImportPendingStudies(const std::string& db_flag);

}  // namespace frugal::app

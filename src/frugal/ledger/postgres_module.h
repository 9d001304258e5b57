#pragma once
// The seam between the ledger and its PostgreSQL backend, which is the module frugal_postgres
// (core/module.h) so that only the commands that open a postgresql:// ledger load libpqxx and
// libpq. OpenPostgres (sql.h) opens the module and calls its one entry point.

#include <memory>
#include <string>

#include "frugal/core/error.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {

/// The module and its entry point: connects to `*url` and stores the connection or the error.
inline constexpr const char* kPostgresModule = "frugal_postgres";
inline constexpr const char* kPostgresEntry = "frugal_postgres_open";
using PostgresEntry = void (*)(const std::string* url,
                               Result<std::unique_ptr<Connection>>* connection);

}  // namespace frugal::ledger

/// The module's entry point (exported by the module, called through PostgresEntry).
extern "C" [[gnu::visibility("default")]] void frugal_postgres_open(
    const std::string* url,
    frugal::Result<std::unique_ptr<frugal::ledger::Connection>>* connection);

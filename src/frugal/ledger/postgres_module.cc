// OpenPostgres: opens the PostgreSQL module on first use and connects through it.

#include "frugal/ledger/postgres_module.h"

#include "frugal/core/module.h"
#include "frugal/ledger/sql.h"

namespace frugal::ledger {

Result<std::unique_ptr<Connection>> OpenPostgres(const std::string& url) {
  void* entry = FRUGAL_TRY(ModuleEntry(kPostgresModule, kPostgresEntry));
  Result<std::unique_ptr<Connection>> connection = std::unique_ptr<Connection>();
  reinterpret_cast<PostgresEntry>(entry)(&url, &connection);
  return connection;
}

}  // namespace frugal::ledger

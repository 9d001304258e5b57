#pragma once
// Ledger connections shared by the server's request threads: a request borrows one for its
// duration and gives it back; connections are opened on demand and kept for the next request.

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/ledger.h"

namespace frugal::server {

class LedgerPool {
 public:
  /// `db_flag` is the --db value ("" = $FRUGAL_DB or the default file).
  explicit LedgerPool(std::string db_flag) : db_flag_(std::move(db_flag)) {}

  /// A borrowed connection; returned to the pool when destroyed unless Discard() was called
  /// or its session is lost (Connection::Lost): a connection that broke is not handed out
  /// again.
  class Lease {
   public:
    Lease(LedgerPool& pool, std::unique_ptr<ledger::Ledger> ledger)
        : pool_(&pool), ledger_(std::move(ledger)) {}
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();
    ledger::Ledger& operator*() const { return *ledger_; }
    ledger::Ledger* operator->() const { return ledger_.get(); }
    void Discard() { ledger_.reset(); }

   private:
    LedgerPool* pool_;
    std::unique_ptr<ledger::Ledger> ledger_;
  };

  /// Borrows a connection, opening one when none is idle. Errors are the ledger's (kUnavailable
  /// for a database that cannot be reached, kBadInput for a path with no ledger).
  [[nodiscard]] Result<Lease> Acquire();

 private:
  void Return(std::unique_ptr<ledger::Ledger> ledger);

  const std::string db_flag_;
  std::mutex mu_;
  std::vector<std::unique_ptr<ledger::Ledger>> idle_;  // GUARDED_BY(mu_)
};

}  // namespace frugal::server

#include "frugal/server/ledger_pool.h"

namespace frugal::server {

LedgerPool::Lease::~Lease() {
  // A lost session (the database restarted, the network dropped) would fail every request
  // that borrowed it next: closed here, and the next borrower opens a fresh one.
  if (ledger_ && ledger_->connection().Lost()) Discard();
  if (ledger_ && pool_ != nullptr) pool_->Return(std::move(ledger_));
}

Result<LedgerPool::Lease> LedgerPool::Acquire() {
  {
    const std::lock_guard<std::mutex> lock(mu_);
    if (!idle_.empty()) {
      std::unique_ptr<ledger::Ledger> ledger = std::move(idle_.back());
      idle_.pop_back();
      return Lease(*this, std::move(ledger));
    }
  }
  // Opened outside the lock: connecting to PostgreSQL takes a round trip or more.
  std::unique_ptr<ledger::Ledger> ledger =
      FRUGAL_TRY(ledger::OpenForCommand(db_flag_, ledger::CreateMode::kMustExist));
  return Lease(*this, std::move(ledger));
}

void LedgerPool::Return(std::unique_ptr<ledger::Ledger> ledger) {
  const std::lock_guard<std::mutex> lock(mu_);
  idle_.push_back(std::move(ledger));
}

}  // namespace frugal::server

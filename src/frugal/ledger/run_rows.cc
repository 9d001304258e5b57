#include "frugal/ledger/run_rows.h"

namespace frugal::ledger {

Result<std::optional<RunId>> LatestRunNamed(Connection& db, const std::string& name) {
  const std::vector<Value> params = {name};
  const std::vector<Row> rows =
      FRUGAL_TRY(db.Query("SELECT id FROM runs WHERE name = ? ORDER BY id DESC LIMIT 1", params));
  if (rows.empty()) return std::optional<RunId>();
  return std::optional<RunId>(AsInt(rows[0][0]));
}

Result<void> ReopenRun(Ledger& ledger, RunId run, std::optional<Timestamp> heartbeat) {
  return Transact(ledger.connection(), TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    if (heartbeat) {
      const std::vector<Value> params = {ToMillis(*heartbeat), run};
      return c
          .Query("UPDATE runs SET status = 'running', end_ms = NULL, heartbeat_ms = ? WHERE id = ?",
                 params)
          .map([](auto&&) {});
    }
    return c
        .Query("UPDATE runs SET status = 'running', end_ms = NULL WHERE id = ?",
               std::vector<Value>{run})
        .map([](auto&&) {});
  });
}

Result<std::vector<SampleSpan>> SampleSpansOf(Ledger& ledger, RunId run) {
  std::vector<SampleSpan> spans;
  for (const Row& row : FRUGAL_TRY(
           ledger.connection().Query("SELECT time_ms, resolution_ms FROM samples WHERE run_id = ?",
                                     std::vector<Value>{run}))) {
    spans.push_back({AsInt(row.at(0)), AsInt(row.at(1))});
  }
  return spans;
}

}  // namespace frugal::ledger

#include "frugal/audit/audit.h"

#include <algorithm>

#include "frugal/audit/audit_data.h"

namespace frugal::audit {

Money AuditResult::TotalSavingPerMonth() const {
  Money total;
  for (const Finding& f : findings) total += f.saving_per_month.value_or(Money());
  return total;
}

Money PerMonth(Money in_window, const AuditOptions& options) {
  const double window_days = ToHours(options.now - options.since) / 24.0;
  if (window_days <= 0) return Money();
  return in_window.Scaled(options.thresholds.month_days / window_days);
}

Result<AuditResult> RunAudit(ledger::Ledger& ledger, const AuditOptions& options) {
  AuditResult result;
  result.options = options;
  const AuditData data = FRUGAL_TRY(LoadAuditData(ledger, options));
  IdleAndUnderutilized(data, options, result);
  SpotCandidates(data, options, result);
  SpotWithoutCheckpoints(data, options, result);
  CommitmentCandidates(data, options, result);
  UntaggedSpend(data, options, result);
  StudiesWithoutPruning(data, options, result);
  ForgottenCapacity(data, options, result);
  FRUGAL_TRY(PolicyOverrides(ledger, options, result));
  InventoryIdleAndForgotten(data, options, result);
  UnderusedCommitments(data, options, result);
  TensorCoresUnused(data, options, result);
  DataFarFromCompute(data, options, result);
  PreprocessingRecomputed(data, options, result);
  BudgetForecasts(data, options, result);
  result.notes.insert(result.notes.end(), data.notes.begin(), data.notes.end());
  // Highest saving first; findings whose saving is unknown after every priced one; ties in a
  // stable order (rule, then subject) so reports diff cleanly.
  std::stable_sort(result.findings.begin(), result.findings.end(),
                   [](const Finding& a, const Finding& b) {
                     const Money sa = a.saving_per_month.value_or(Money::FromMicros(-1));
                     const Money sb = b.saving_per_month.value_or(Money::FromMicros(-1));
                     if (sa != sb) return sa > sb;
                     if (a.rule != b.rule) return a.rule < b.rule;
                     return a.subject < b.subject;
                   });
  BuildCharts(data, options, result);
  return result;
}

}  // namespace frugal::audit

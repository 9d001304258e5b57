#pragma once
// What the rules read, loaded once from the ledger: each run active in the window with its
// segments, events, samples and the data section of its spec, the studies, the imported
// billing rows, and the spend budgets are forecast from.

#include <map>
#include <string>
#include <vector>

#include "frugal/audit/audit.h"
#include "frugal/ledger/billing_rows.h"
#include "frugal/ledger/study.h"
#include "frugal/plan/job_spec.h"

namespace frugal::audit {

struct RunFacts {
  ledger::Run run;
  std::vector<ledger::Segment> segments;  ///< those overlapping the window
  std::vector<ledger::Event> events;
  std::vector<ledger::Sample> samples;  ///< those inside the window
  plan::DataSpec data;  ///< from the spec the run recorded; empty when it declares none

  [[nodiscard]] int Checkpoints() const;
  [[nodiscard]] std::string Label() const;  ///< "run 12 (bert-ft)"
};

struct StudyFacts {
  ledger::Study study;
  std::vector<ledger::Trial> trials;
};

/// An imported bill row (ledger/billing_rows.h).
using BillingFact = ledger::BillingRow;

struct AuditData {
  std::vector<RunFacts> runs;  ///< by run id
  std::vector<StudyFacts> studies;
  std::vector<BillingFact> billing;  ///< rows whose charge period overlaps the window
  std::vector<std::string> notes;    ///< what could not be read (a run's spec), and why
  /// For budgets: segments and billing rows from the earliest budget period or burn window.
  std::vector<ledger::SegmentFact> budget_segments;
  std::vector<BillingFact> budget_billing;
};

[[nodiscard]] Result<AuditData> LoadAuditData(ledger::Ledger& ledger, const AuditOptions& options);

/// The part of a segment inside [since, now).
[[nodiscard]] Duration InWindow(const ledger::Segment& s, const AuditOptions& options);
/// The length of [a_start, a_end) ∩ [b_start, b_end), zero when they do not meet.
[[nodiscard]] Duration Overlap(ledger::Timestamp a_start, ledger::Timestamp a_end,
                               ledger::Timestamp b_start, ledger::Timestamp b_end);
/// Mean GPU utilization per clock hour (hours since the epoch) of the run's samples.
[[nodiscard]] std::map<int64_t, double> HourlyGpuUtil(const RunFacts& r);
/// A billing row's tag, the key compared case-insensitively; "" when absent.
[[nodiscard]] std::string BillingTag(const BillingFact& b, std::string_view key);
/// The instance type a charge description names, lower case: AWS writes "$3.06 per On Demand
/// Linux p3.2xlarge Instance Hour", "... per c6a.xlarge instance-hour (or partial hour)" or
/// "...|us-east-1|m5.xlarge". The first word shaped FAMILY.SIZE (a family with a digit, a size
/// ending in a letter); "" when none.
[[nodiscard]] std::string InstanceTypeInDescription(std::string_view description);

/// An inventory instance's spend, which neither the ledger nor the imported bills hold: from
/// its launch (its first reading when no launch time is given) to the audit's now, at its
/// price. An instance an imported bill lists by id (ResourceId) is left to the bill.
struct InventorySpend {
  const InventoryInstance* instance = nullptr;
  ledger::Timestamp start{};
  ledger::Timestamp end{};
  /// The spend in [from, to).
  [[nodiscard]] Money Between(ledger::Timestamp from, ledger::Timestamp to) const;
};
/// Every inventory instance whose spend can be told (empty without an inventory).
[[nodiscard]] std::vector<InventorySpend> InventorySpendOf(const AuditData& data,
                                                           const AuditOptions& options);

// The rules (rules_runs.cc, rules_fleet.cc). Each appends its findings and notes.
void IdleAndUnderutilized(const AuditData& data, const AuditOptions& options, AuditResult& out);
void SpotCandidates(const AuditData& data, const AuditOptions& options, AuditResult& out);
void SpotWithoutCheckpoints(const AuditData& data, const AuditOptions& options, AuditResult& out);
void CommitmentCandidates(const AuditData& data, const AuditOptions& options, AuditResult& out);
void UntaggedSpend(const AuditData& data, const AuditOptions& options, AuditResult& out);
void StudiesWithoutPruning(const AuditData& data, const AuditOptions& options, AuditResult& out);
void ForgottenCapacity(const AuditData& data, const AuditOptions& options, AuditResult& out);
// rules_inventory.cc: over the inventory of running capacity.
void InventoryIdleAndForgotten(const AuditData& data, const AuditOptions& options,
                               AuditResult& out);
void UnderusedCommitments(const AuditData& data, const AuditOptions& options, AuditResult& out);
// rules_jobs.cc: over what runs' specs and GPU counters say about the job.
void TensorCoresUnused(const AuditData& data, const AuditOptions& options, AuditResult& out);
void DataFarFromCompute(const AuditData& data, const AuditOptions& options, AuditResult& out);
void PreprocessingRecomputed(const AuditData& data, const AuditOptions& options, AuditResult& out);
// rules_budget.cc
void BudgetForecasts(const AuditData& data, const AuditOptions& options, AuditResult& out);
// report_charts.cc: the chart data, after the rules.
void BuildCharts(const AuditData& data, const AuditOptions& options, AuditResult& out);
/// rules_overrides.cc: policy overrides in the window, as findings without a saving.
[[nodiscard]] Result<void> PolicyOverrides(ledger::Ledger& ledger, const AuditOptions& options,
                                           AuditResult& out);

}  // namespace frugal::audit

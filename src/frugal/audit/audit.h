#pragma once
// The audit: rules over the ledger (runs, segments, events, samples, studies, the specs runs
// recorded), imported FOCUS billing rows and an optional inventory of running capacity that
// find waste, each finding with its evidence, the saving per month
// and how it was computed (or what is missing to compute it), and the action to take.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "frugal/audit/budgets.h"
#include "frugal/audit/inventory.h"
#include "frugal/audit/report_charts.h"
#include "frugal/audit/thresholds.h"
#include "frugal/catalog/catalog.h"
#include "frugal/catalog/transfer_prices.h"
#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/ledger/ledger.h"

namespace frugal::audit {

/// The rules, by their names in output and docs/audit.md.
inline constexpr std::string_view kIdleGpu = "idle-gpu";
inline constexpr std::string_view kUnderutilized = "underutilized-job";
inline constexpr std::string_view kSpotCandidate = "spot-candidate";
inline constexpr std::string_view kCommitment = "commitment-candidate";
inline constexpr std::string_view kUntaggedSpend = "untagged-spend";
inline constexpr std::string_view kSpotNoCheckpoint = "spot-without-checkpoints";
inline constexpr std::string_view kStudyNoPruning = "study-pruned-nothing";
inline constexpr std::string_view kForgottenCapacity = "forgotten-capacity";
inline constexpr std::string_view kTensorCoresUnused = "tensor-cores-unused";
inline constexpr std::string_view kDataFarFromCompute = "data-far-from-compute";
inline constexpr std::string_view kPreprocessingRecomputed = "preprocessing-recomputed";
inline constexpr std::string_view kBudgetForecast = "budget-forecast";
inline constexpr std::string_view kUnderusedCommitment = "underused-commitment";

struct Finding {
  std::string rule;
  std::string subject;   ///< what it is about: "run 12 (bert-ft)", "aws p4d.24xlarge us-east-1"
  std::string evidence;  ///< numbers and window, one sentence
  nlohmann::json facts = nlohmann::json::object();  ///< the evidence's numbers, for --format json
  std::vector<ledger::RunId> runs;
  std::optional<Money> saving_per_month;  ///< absent when it cannot be computed
  /// False for findings that are not about money to save (attribution, budgets): they show
  /// "n/a" rather than an unknown saving.
  bool saving_applies = true;
  std::string saving_basis;  ///< how the saving was computed, or what is missing for it
  std::string action;
};

struct AuditOptions {
  ledger::Timestamp since{};
  ledger::Timestamp now{};
  Thresholds thresholds;
  const catalog::Catalog* catalog = nullptr;  ///< borrowed; null: rules needing prices say so
  const Inventory* inventory = nullptr;       ///< borrowed; null: no inventory given
  const catalog::TransferPrices* transfer = nullptr;  ///< borrowed; null: egress cannot be priced
};

struct AuditResult {
  AuditOptions options;
  std::vector<Finding> findings;      ///< highest saving first; unknown savings last
  std::vector<std::string> notes;     ///< rules that could not run over this data, and why
  std::vector<BudgetStatus> budgets;  ///< every declared budget, overrun or not
  ReportCharts charts;                ///< the report's chart data
  [[nodiscard]] Money TotalSavingPerMonth() const;
};

/// Runs every rule over [since, now). Errors come from the ledger only; missing data is a
/// note or a finding without a saving, never an error.
[[nodiscard]] Result<AuditResult> RunAudit(ledger::Ledger& ledger, const AuditOptions& options);

/// A saving seen over the window, as a rate per month (× month_days / window days).
[[nodiscard]] Money PerMonth(Money in_window, const AuditOptions& options);

}  // namespace frugal::audit

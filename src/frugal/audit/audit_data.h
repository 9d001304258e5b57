#pragma once
// What the rules read, loaded once from the ledger: each run active in the window with its
// segments, events and samples, the studies, and the imported billing rows.

#include <string>
#include <vector>

#include "frugal/audit/audit.h"
#include "frugal/ledger/study.h"

namespace frugal::audit {

struct RunFacts {
  ledger::Run run;
  std::vector<ledger::Segment> segments;  ///< those overlapping the window
  std::vector<ledger::Event> events;
  std::vector<ledger::Sample> samples;  ///< those inside the window

  [[nodiscard]] int Checkpoints() const;
  [[nodiscard]] std::string Label() const;  ///< "run 12 (bert-ft)"
};

struct StudyFacts {
  ledger::Study study;
  std::vector<ledger::Trial> trials;
};

/// One imported FOCUS row, as the audit needs it.
struct BillingFact {
  std::string provider;
  std::string resource_id;
  std::string sku_id;
  std::string service_name;
  std::string region;
  ledger::Timestamp start{};
  ledger::Timestamp end{};
  Money billed;
  nlohmann::json tags = nlohmann::json::object();
  std::optional<ledger::RunId> run_id;
};

struct AuditData {
  std::vector<RunFacts> runs;  ///< by run id
  std::vector<StudyFacts> studies;
  std::vector<BillingFact> billing;  ///< rows whose charge period overlaps the window
};

[[nodiscard]] Result<AuditData> LoadAuditData(ledger::Ledger& ledger,
                                              const AuditOptions& options);

/// The part of a segment inside [since, now).
[[nodiscard]] Duration InWindow(const ledger::Segment& s, const AuditOptions& options);

// The rules (rules_runs.cc, rules_fleet.cc). Each appends its findings and notes.
void IdleAndUnderutilized(const AuditData& data, const AuditOptions& options, AuditResult& out);
void SpotCandidates(const AuditData& data, const AuditOptions& options, AuditResult& out);
void SpotWithoutCheckpoints(const AuditData& data, const AuditOptions& options,
                            AuditResult& out);
void CommitmentCandidates(const AuditData& data, const AuditOptions& options, AuditResult& out);
void UntaggedSpend(const AuditData& data, const AuditOptions& options, AuditResult& out);
void StudiesWithoutPruning(const AuditData& data, const AuditOptions& options, AuditResult& out);
void ForgottenCapacity(const AuditData& data, const AuditOptions& options, AuditResult& out);
/// rules_overrides.cc: policy overrides in the window, as findings without a saving.
[[nodiscard]] Result<void> PolicyOverrides(ledger::Ledger& ledger, const AuditOptions& options,
                                           AuditResult& out);

}  // namespace frugal::audit

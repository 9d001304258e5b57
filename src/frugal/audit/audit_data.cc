#include "frugal/audit/audit_data.h"

#include <algorithm>
#include <fmt/format.h>
#include <map>

namespace frugal::audit {

using ledger::Timestamp;

int RunFacts::Checkpoints() const {
  return static_cast<int>(std::count_if(events.begin(), events.end(), [](const auto& e) {
    return e.type == ledger::EventType::kCheckpointCommitted;
  }));
}

std::string RunFacts::Label() const {
  return run.name.empty() ? fmt::format("run {}", run.id)
                          : fmt::format("run {} ({})", run.id, run.name);
}

Duration InWindow(const ledger::Segment& s, const AuditOptions& options) {
  const Timestamp begin = std::max(s.start, options.since);
  const Timestamp end = std::min(s.end.value_or(options.now), options.now);
  return end > begin ? end - begin : Duration(0);
}

namespace {

Result<std::vector<BillingFact>> LoadBilling(ledger::Ledger& ledger, const AuditOptions& options) {
  using ledger::Value;
  const std::vector<Value> params{ledger::ToMillis(options.since), ledger::ToMillis(options.now)};
  std::vector<ledger::Row> rows = FRUGAL_TRY(ledger.connection().Query(
      "SELECT provider, resource_id, sku_id, service_name, region_id, charge_period_start_ms, "
      "charge_period_end_ms, billed_cost_micros, tags, run_id FROM billing_rows "
      "WHERE charge_period_end_ms > ? AND charge_period_start_ms < ? ORDER BY id",
      params));
  std::vector<BillingFact> facts;
  for (const ledger::Row& r : rows) {
    BillingFact f;
    f.provider = ledger::AsText(r[0]);
    f.resource_id = ledger::AsText(r[1]);
    f.sku_id = ledger::AsText(r[2]);
    f.service_name = ledger::AsText(r[3]);
    f.region = ledger::AsText(r[4]);
    f.start = ledger::FromMillis(ledger::AsInt(r[5]));
    f.end = ledger::FromMillis(ledger::AsInt(r[6]));
    f.billed = Money::FromMicros(ledger::AsInt(r[7]));
    f.tags = nlohmann::json::parse(ledger::AsText(r[8]), nullptr, /*allow_exceptions=*/false);
    if (!f.tags.is_object()) f.tags = nlohmann::json::object();
    f.run_id = ledger::AsOptionalInt(r[9]);
    facts.push_back(std::move(f));
  }
  return facts;
}

Result<std::vector<StudyFacts>> LoadStudies(ledger::Ledger& ledger, const AuditOptions& options) {
  const std::vector<ledger::Value> params{ledger::ToMillis(options.now)};
  std::vector<ledger::Row> rows = FRUGAL_TRY(ledger.connection().Query(
      "SELECT name FROM studies WHERE created_ms < ? ORDER BY id", params));
  std::vector<StudyFacts> studies;
  for (const ledger::Row& r : rows) {
    std::optional<ledger::Study> study = FRUGAL_TRY(ledger.FindStudy(ledger::AsText(r[0])));
    if (!study) continue;
    StudyFacts facts{*study, FRUGAL_TRY(ledger.TrialsOf(study->id))};
    studies.push_back(std::move(facts));
  }
  return studies;
}

}  // namespace

Result<AuditData> LoadAuditData(ledger::Ledger& ledger, const AuditOptions& options) {
  AuditData data;
  std::map<ledger::RunId, std::vector<ledger::Segment>> segments_by_run;
  for (ledger::SegmentFact& fact : FRUGAL_TRY(ledger.SegmentsBetween(options.since, options.now))) {
    segments_by_run[fact.segment.run_id].push_back(std::move(fact.segment));
  }
  for (auto& [id, segments] : segments_by_run) {
    ledger::RunDetail detail = FRUGAL_TRY(ledger.GetRunDetail(id, options.now));
    RunFacts facts{detail.summary.run, std::move(segments), std::move(detail.events), {}};
    for (ledger::Sample& s : FRUGAL_TRY(ledger.SamplesOf(id))) {
      if (s.time >= options.since && s.time < options.now) facts.samples.push_back(s);
    }
    data.runs.push_back(std::move(facts));
  }
  data.studies = FRUGAL_TRY(LoadStudies(ledger, options));
  data.billing = FRUGAL_TRY(LoadBilling(ledger, options));
  return data;
}

}  // namespace frugal::audit

#include "frugal/audit/audit_data.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "frugal/core/text.h"

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
  return Overlap(s.start, s.end.value_or(options.now), options.since, options.now);
}

Duration Overlap(Timestamp a_start, Timestamp a_end, Timestamp b_start, Timestamp b_end) {
  const Timestamp begin = std::max(a_start, b_start);
  const Timestamp end = std::min(a_end, b_end);
  return end > begin ? end - begin : Duration(0);
}

std::map<int64_t, double> HourlyGpuUtil(const RunFacts& r) {
  std::map<int64_t, std::pair<double, int>> sums;
  for (const ledger::Sample& s : r.samples) {
    if (!s.gpu_util) continue;
    auto& [sum, n] = sums[ledger::ToMillis(s.time) / 3'600'000];
    sum += *s.gpu_util;
    ++n;
  }
  std::map<int64_t, double> means;
  for (const auto& [hour, sn] : sums) means[hour] = sn.first / sn.second;
  return means;
}

std::string BillingTag(const BillingFact& b, std::string_view key) {
  for (const auto& [k, v] : b.tags.items()) {
    if (ToLower(k) == key && v.is_string()) return v.get<std::string>();
  }
  return "";
}

std::string InstanceTypeInDescription(std::string_view description) {
  const auto is_alnum = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
  const auto is_word = [&](char c) { return is_alnum(c) || c == '.' || c == '-'; };
  for (size_t at = 0; at < description.size();) {
    // A word runs between separators (spaces, '|', ',', parentheses, '$'...).
    if (!is_word(description[at])) {
      ++at;
      continue;
    }
    size_t end = at;
    while (end < description.size() && is_word(description[end])) ++end;
    std::string word = ToLower(description.substr(at, end - at));
    // Only a whole word: "$3.06" and "Linux/UNIX" are not types, nor "1.5" after a '$'.
    const bool whole =
        (at == 0 || std::isspace(static_cast<unsigned char>(description[at - 1])) ||
         description[at - 1] == '|' || description[at - 1] == '(' || description[at - 1] == ',') &&
        (end == description.size() || description[end] != '/');
    at = end;
    const size_t dot = word.find('.');
    if (!whole || dot == std::string::npos || word.find('.', dot + 1) != std::string::npos) {
      continue;
    }
    const std::string_view family(word.data(), dot);
    const std::string_view size(word.data() + dot + 1, word.size() - dot - 1);
    const bool family_ok = !family.empty() && std::isalpha(static_cast<unsigned char>(family[0])) &&
                           family.find_first_of("0123456789") != std::string_view::npos;
    const bool size_ok =
        !size.empty() && std::isalpha(static_cast<unsigned char>(size.back())) != 0;
    if (family_ok && size_ok) return word;
  }
  return "";
}

namespace {

Result<std::vector<BillingFact>> LoadBilling(ledger::Ledger& ledger, Timestamp from, Timestamp to) {
  return ledger::BillingRowsOverlapping(ledger, from, to);
}

Result<std::vector<StudyFacts>> LoadStudies(ledger::Ledger& ledger, const AuditOptions& options) {
  std::vector<StudyFacts> studies;
  for (const std::string& name : FRUGAL_TRY(ledger::StudiesCreatedBefore(ledger, options.now))) {
    std::optional<ledger::Study> study = FRUGAL_TRY(ledger.FindStudy(name));
    if (!study) continue;
    StudyFacts facts{*study, FRUGAL_TRY(ledger.TrialsOf(study->id))};
    studies.push_back(std::move(facts));
  }
  return studies;
}

/// Where budgets need spend from: the earliest budget period start or burn window.
std::optional<Timestamp> BudgetHorizon(const AuditOptions& options) {
  std::optional<Timestamp> from;
  const Thresholds& t = options.thresholds;
  for (const Budget& b : t.budgets) {
    const Timestamp burn = options.now - t.BudgetBurnWindow();
    const Timestamp start = std::min(PeriodAround(b.period, options.now).start, burn);
    from = from ? std::min(*from, start) : start;
  }
  return from;
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
    RunFacts facts{detail.summary.run, std::move(segments), std::move(detail.events), {}, {}};
    for (ledger::Sample& s : FRUGAL_TRY(ledger.SamplesOf(id))) {
      if (s.time >= options.since && s.time < options.now) facts.samples.push_back(s);
    }
    if (!facts.run.spec.empty()) {
      // A spec that no longer parses costs the data rules this run, not the audit.
      Result<plan::DataSpec> spec = plan::ParseDataSection(facts.run.spec, facts.Label() + " spec");
      if (spec) {
        facts.data = std::move(*spec);
      } else {
        data.notes.push_back(fmt::format("{}: its data section is not read: {}", facts.Label(),
                                         spec.error().message));
      }
    }
    data.runs.push_back(std::move(facts));
  }
  data.studies = FRUGAL_TRY(LoadStudies(ledger, options));
  data.billing = FRUGAL_TRY(LoadBilling(ledger, options.since, options.now));
  if (const std::optional<Timestamp> from = BudgetHorizon(options)) {
    data.budget_segments = FRUGAL_TRY(ledger.SegmentsBetween(*from, options.now));
    data.budget_billing = FRUGAL_TRY(LoadBilling(ledger, *from, options.now));
  }
  return data;
}

Money InventorySpend::Between(Timestamp from, Timestamp to) const {
  return instance->price.For(Overlap(start, end, from, to));
}

std::vector<InventorySpend> InventorySpendOf(const AuditData& data, const AuditOptions& options) {
  std::vector<InventorySpend> out;
  if (options.inventory == nullptr) return out;
  std::set<std::string> billed;
  for (const auto* rows : {&data.billing, &data.budget_billing}) {
    for (const BillingFact& b : *rows) {
      if (!b.resource_id.empty()) billed.insert(b.resource_id);
    }
  }
  for (const InventoryInstance& i : options.inventory->instances) {
    if (billed.contains(i.id)) continue;
    std::optional<Timestamp> start = i.launched;
    if (!start && !i.history.empty()) start = i.history.front().start;
    if (!start || *start >= options.now) continue;
    out.push_back({&i, *start, options.now});
  }
  return out;
}

}  // namespace frugal::audit

// Policy overrides: one row per `--override REASON` that let a plan, run or study go ahead.
// Rules are stored as one comma-separated text column (rule names never contain a comma).

#include "frugal/ledger/overrides.h"

#include <fmt/format.h>

#include "frugal/core/text.h"
#include "frugal/ledger/ledger.h"

namespace frugal::ledger {
namespace {

constexpr const char* kColumns =
    "id, time_ms, command, subject, rules, reason, user_name, team, project, policy_source, "
    "run_id, study_id";

PolicyOverride FromRow(const Row& r) {
  PolicyOverride o;
  o.id = AsInt(r[0]);
  NewOverride& n = o.record;
  n.time = FromMillis(AsInt(r[1]));
  n.command = AsText(r[2]);
  n.subject = AsText(r[3]);
  for (std::string& rule : Split(AsText(r[4]), ',')) {
    if (!rule.empty()) n.rules.push_back(std::move(rule));
  }
  n.reason = AsText(r[5]);
  n.user_name = AsText(r[6]);
  n.team = AsText(r[7]);
  n.project = AsText(r[8]);
  n.policy_source = AsText(r[9]);
  n.run_id = AsOptionalInt(r[10]);
  n.study_id = AsOptionalInt(r[11]);
  return o;
}

}  // namespace

Result<OverrideId> Ledger::RecordOverride(const NewOverride& record) {
  if (record.reason.empty()) return Fail(ErrorCode::kBadInput, "an override needs a reason");
  if (record.command.empty()) return Fail(ErrorCode::kBadInput, "an override needs a command");
  if (record.rules.empty()) {
    return Fail(ErrorCode::kBadInput, "an override needs the rules it overrides");
  }
  for (const std::string& rule : record.rules) {
    if (rule.empty() || rule.find(',') != std::string::npos) {
      return Fail(ErrorCode::kBadInput, fmt::format("bad rule name '{}'", rule));
    }
  }
  OverrideId id = 0;
  Result<void> done = Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> rows = FRUGAL_TRY(c.Query(
        "INSERT INTO policy_overrides (time_ms, command, subject, rules, reason, user_name, "
        "team, project, policy_source, run_id, study_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
        "?) RETURNING id",
        std::vector<Value>{ToMillis(record.time), record.command, record.subject,
                           fmt::format("{}", fmt::join(record.rules, ",")), record.reason,
                           record.user_name, record.team, record.project, record.policy_source,
                           OrNull(record.run_id), OrNull(record.study_id)}));
    id = AsInt(rows.at(0).at(0));
    return {};
  });
  if (!done) return Fail(done.error());
  return id;
}

Result<void> Ledger::LinkOverride(OverrideId id, std::optional<RunId> run,
                                  std::optional<StudyId> study) {
  return Transact(*db_, TxnMode::kWrite, [&](Connection& c) -> Result<void> {
    std::vector<Row> found =
        FRUGAL_TRY(c.Query("SELECT id FROM policy_overrides WHERE id = ?", std::vector<Value>{id}));
    if (found.empty()) return Fail(ErrorCode::kBadInput, fmt::format("no override {}", id));
    if (run) {
      FRUGAL_TRY(c.Query("UPDATE policy_overrides SET run_id = ? WHERE id = ?",
                         std::vector<Value>{*run, id}));
    }
    if (study) {
      FRUGAL_TRY(c.Query("UPDATE policy_overrides SET study_id = ? WHERE id = ?",
                         std::vector<Value>{*study, id}));
    }
    return {};
  });
}

Result<std::vector<PolicyOverride>> Ledger::ListOverrides(const OverrideFilter& filter) {
  std::string sql = fmt::format("SELECT {} FROM policy_overrides WHERE 1 = 1", kColumns);
  std::vector<Value> params;
  if (filter.since) {
    sql += " AND time_ms >= ?";
    params.emplace_back(ToMillis(*filter.since));
  }
  if (filter.until) {
    sql += " AND time_ms < ?";
    params.emplace_back(ToMillis(*filter.until));
  }
  sql += " ORDER BY time_ms DESC, id DESC";
  const std::vector<Row> rows = FRUGAL_TRY(db_->Query(sql, params));
  std::vector<PolicyOverride> out;
  out.reserve(rows.size());
  for (const Row& r : rows) out.push_back(FromRow(r));
  return out;
}

Result<std::optional<Money>> Ledger::SpendOf(const PolicyOverride& o, Timestamp now) {
  if (!o.record.run_id && !o.record.study_id) return std::optional<Money>();
  Money spend;
  if (o.record.run_id) {
    for (const Segment& s : FRUGAL_TRY(SegmentsOf(*o.record.run_id))) spend += s.Cost(now);
  }
  if (o.record.study_id) {
    // A study's trials carry what they spent (their runs' segments, as the tuner accrued it).
    for (const Trial& t : FRUGAL_TRY(TrialsOf(*o.record.study_id))) spend += t.cost;
  }
  return std::optional<Money>(spend);
}

}  // namespace frugal::ledger

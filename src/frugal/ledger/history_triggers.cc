#include "frugal/ledger/history_triggers.h"

#include <fmt/format.h>

#include <string>

namespace frugal::ledger {
namespace {

// One trigger: its name, when it fires, on which table, and the condition on NEW/OLD.
struct Trigger {
  const char* name;
  const char* event;  ///< "AFTER INSERT", "AFTER UPDATE OF id, team, project"
  const char* table;
  const char* where;  ///< a condition on NEW/OLD, or nullptr
};

// Schema 9's triggers: the table, the event and the condition of each.
constexpr Trigger kVersionTriggers[] = {
    {"history_segment_insert", "AFTER INSERT", "segments", "NEW.end_ms IS NOT NULL"},
    {"history_segment_update", "AFTER UPDATE", "segments",
     "OLD.end_ms IS NOT NULL OR NEW.end_ms IS NOT NULL"},
    {"history_segment_delete", "AFTER DELETE", "segments", "OLD.end_ms IS NOT NULL"},
    {"history_event_insert", "AFTER INSERT", "events",
     "NEW.type IN ('checkpoint_committed', 'resumed')"},
    {"history_event_update", "AFTER UPDATE", "events", nullptr},
    {"history_event_delete", "AFTER DELETE", "events", nullptr},
    {"history_run_update", "AFTER UPDATE OF id, team, project", "runs", nullptr},
    {"history_run_delete", "AFTER DELETE", "runs", nullptr},
};

// The trigger's WHEN clause in the dialect's spelling, or "".
std::string When(const Trigger& t, Dialect dialect) {
  if (t.where == nullptr) return "";
  if (dialect == Dialect::kPostgres) return fmt::format("WHEN ({})", t.where);
  return fmt::format("WHEN {}", t.where);
}

// Schema 10's triggers: each also logs its change, as these SQL expressions over NEW/OLD say.
struct LoggedTrigger {
  Trigger trigger;
  const char* kind;
  const char* segment_id;
  const char* event_id;
};

// A checkpoint of a segment that already ended preempted moves that segment's lost work, which
// the kept sums cannot redo from the event alone.
constexpr const char* kTimedKind =
    "CASE WHEN NEW.type = 'checkpoint_committed' AND EXISTS (SELECT 1 FROM segments p WHERE p.id "
    "= NEW.segment_id AND p.end_ms IS NOT NULL AND p.end_reason = 'preempted') THEN 'rewrite' "
    "ELSE 'timed' END";

constexpr LoggedTrigger kLoggedTriggers[] = {
    {{"history_segment_insert", "AFTER INSERT", "segments", "NEW.end_ms IS NOT NULL"},
     "'ended'",
     "NEW.id",
     "NULL"},
    {{"history_segment_end", "AFTER UPDATE", "segments",
      "OLD.end_ms IS NULL AND NEW.end_ms IS NOT NULL"},
     "'ended'",
     "NEW.id",
     "NULL"},
    {{"history_segment_update", "AFTER UPDATE", "segments", "OLD.end_ms IS NOT NULL"},
     "'rewrite'",
     "OLD.id",
     "NULL"},
    {{"history_segment_delete", "AFTER DELETE", "segments", "OLD.end_ms IS NOT NULL"},
     "'rewrite'",
     "OLD.id",
     "NULL"},
    {{"history_event_insert", "AFTER INSERT", "events",
      "NEW.type IN ('checkpoint_committed', 'resumed')"},
     kTimedKind,
     "NEW.segment_id",
     "NEW.id"},
    {{"history_event_update", "AFTER UPDATE", "events", nullptr}, "'rewrite'", "NULL", "OLD.id"},
    {{"history_event_delete", "AFTER DELETE", "events", nullptr}, "'rewrite'", "NULL", "OLD.id"},
    {{"history_run_update", "AFTER UPDATE OF id, team, project", "runs", nullptr},
     "'rewrite'",
     "NULL",
     "NULL"},
    {{"history_run_delete", "AFTER DELETE", "runs", nullptr}, "'rewrite'", "NULL", "NULL"},
};

std::string DropVersionTriggers(Dialect dialect) {
  std::string sql;
  for (const Trigger& t : kVersionTriggers) {
    sql += dialect == Dialect::kPostgres ? fmt::format("DROP TRIGGER {} ON {};\n", t.name, t.table)
                                         : fmt::format("DROP TRIGGER {};\n", t.name);
  }
  if (dialect == Dialect::kPostgres) sql += "DROP FUNCTION frugal_history_changed();\n";
  return sql;
}

// What a logged trigger runs once it has bumped the counter: its change, numbered by the new
// version (`version`: an SQL expression for it), and the pruning of changes no longer kept.
std::string LogStatements(const LoggedTrigger& t, std::string_view version) {
  return fmt::format(
      "INSERT INTO history_changes (version, kind, segment_id, event_id) SELECT {0}, {1}, {2}, "
      "{3}; DELETE FROM history_changes WHERE version <= {0} - {4};",
      version, t.kind, t.segment_id, t.event_id, kHistoryChangesKept);
}

}  // namespace

Result<void> CreateHistoryTriggers(Connection& db) {
  const Dialect dialect = db.dialect();
  std::string sql;
  if (dialect == Dialect::kPostgres) {
    sql =
        "CREATE FUNCTION frugal_history_changed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "UPDATE history_version SET version = version + 1; RETURN NULL; END $$;\n";
  }
  for (const Trigger& t : kVersionTriggers) {
    if (dialect == Dialect::kPostgres) {
      sql += fmt::format(
          "CREATE TRIGGER {} {} ON {} FOR EACH ROW {} EXECUTE FUNCTION "
          "frugal_history_changed();\n",
          t.name, t.event, t.table, When(t, dialect));
    } else {
      sql += fmt::format(
          "CREATE TRIGGER {} {} ON {} {} BEGIN UPDATE history_version SET version = version + "
          "1; END;\n",
          t.name, t.event, t.table, When(t, dialect));
    }
  }
  return db.ExecuteScript(sql);
}

Result<void> CreateChangeLogTriggers(Connection& db) {
  const Dialect dialect = db.dialect();
  std::string sql = DropVersionTriggers(dialect);
  for (const LoggedTrigger& l : kLoggedTriggers) {
    const Trigger& t = l.trigger;
    if (dialect == Dialect::kPostgres) {
      // The UPDATE takes the counter's row lock until commit, and each later statement of a
      // plpgsql function reads a fresh snapshot: what it reads was committed before that lock.
      sql += fmt::format(
          "CREATE FUNCTION frugal_{0}() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE v BIGINT; "
          "BEGIN UPDATE history_version SET version = version + 1 RETURNING version INTO v; {1} "
          "RETURN NULL; END $$;\n"
          "CREATE TRIGGER {0} {2} ON {3} FOR EACH ROW {4} EXECUTE FUNCTION frugal_{0}();\n",
          t.name, LogStatements(l, "v"), t.event, t.table, When(t, dialect));
    } else {
      sql += fmt::format(
          "CREATE TRIGGER {} {} ON {} {} BEGIN UPDATE history_version SET version = version + "
          "1; {} END;\n",
          t.name, t.event, t.table, When(t, dialect),
          LogStatements(l, "(SELECT version FROM history_version)"));
    }
  }
  return db.ExecuteScript(sql);
}

}  // namespace frugal::ledger

#pragma once
// The ledger: every run, segment, event and sample frugal records, on SQLite (default) or
// PostgreSQL (teams). This is the API the supervisor, the tuner, the audit and the reports
// use; the storage engine sits behind the Connection seam (sql.h).
//
// Writes are short transactions retried on lock conflicts, so many processes can write at
// once. A writer killed at any point leaves every committed row intact and nothing partial.

#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/ledger/overrides.h"
#include "frugal/ledger/sql.h"
#include "frugal/ledger/study.h"
#include "frugal/ledger/types.h"

namespace frugal::ledger {

/// Which ledger to open: the --db flag, else $FRUGAL_DB, else UserDataDir()/ledger.sqlite.
[[nodiscard]] std::string ResolveLocation(const std::string& db_flag);

/// A running run whose supervisor has not heartbeaten for this long is presumed dead. A
/// supervisor heartbeats at least every minute.
inline constexpr Duration kHeartbeatStaleAfter = std::chrono::minutes(10);

/// Opens the ledger a command names (--db flag, FRUGAL_DB, or the default file). A writing
/// command (kCreateIfMissing) creates the ledger on first use. A read-only one (kMustExist)
/// never lays a schema down: where the default file is missing or empty it reads an empty
/// in-memory ledger (an empty result; where() says "(none yet)"); an explicit SQLite path that
/// is missing or empty, or a PostgreSQL database with no tables, is kBadInput ("no ledger
/// there yet").
/// Runs whose supervisor died (no heartbeat for kHeartbeatStaleAfter) are swept to lost first,
/// so what a command shows never keeps charging a dead run.
[[nodiscard]] Result<std::unique_ptr<class Ledger>> OpenForCommand(const std::string& db_flag,
                                                                   CreateMode create);
/// True where OpenForCommand(db_flag, kMustExist) would read the empty in-memory ledger: the
/// default file is missing or empty. A command that only looks something up can skip the read.
[[nodiscard]] bool NothingRecordedYet(const std::string& db_flag);

/// Connects to a location without touching the schema: a postgresql:// URL or a SQLite path.
[[nodiscard]] Result<std::unique_ptr<Connection>> Connect(const std::string& location,
                                                          CreateMode create);

struct OpenOptions {
  /// kMustExist refuses to create a missing SQLite file (read-only commands on a typo'd path)
  /// or to lay a schema into an empty file or database.
  CreateMode create = CreateMode::kCreateIfMissing;
  /// Tests build old ledgers by stopping migration early.
  int schema_version = kLatestSchema;
  static constexpr int kLatestSchema = -1;
};

/// Filters for ListRuns; unset fields match everything.
struct RunFilter {
  std::optional<Timestamp> since;  ///< runs active at or after this time
  std::optional<Timestamp> until;  ///< runs started before this time
  std::optional<RunStatus> status;
  std::vector<std::pair<std::string, std::string>> tags;  ///< all must match
  int64_t limit = 0;                                      ///< 0: no limit
};

/// A run with its money: what `runs list` prints.
struct RunSummary {
  Run run;
  Money cost;
  double gpu_hours = 0;
  std::string gpu;                   ///< of the latest segment
  std::optional<CapacityTier> tier;  ///< of the latest segment; unset without one
  int segments = 0;
};

/// A run with everything recorded about it: what `runs show` prints.
struct RunDetail {
  RunSummary summary;
  std::vector<Segment> segments;
  std::vector<Event> events;
  Utilization utilization;
};

/// A segment with the run facts reports group by (team, project and owner; no extra tags).
struct SegmentFact {
  Segment segment;
  Tags tags;
  RunStatus run_status = RunStatus::kRunning;
};

class Ledger {
 public:
  /// Opens (creating and migrating as needed) the ledger at `location`: a SQLite path or a
  /// postgresql:// URL. Errors: kBadInput for a foreign or corrupt file, kUnavailable for an
  /// unreachable server or a schema newer than this binary, kFailed for I/O (disk full).
  [[nodiscard]] static Result<std::unique_ptr<Ledger>> Open(const std::string& location,
                                                            const OpenOptions& options = {});

  explicit Ledger(std::unique_ptr<Connection> db) : db_(std::move(db)) {}

  // --- Writing (the supervisor) ---------------------------------------------------------
  /// Records a new run in status running, with its first heartbeat at `run.start`.
  [[nodiscard]] Result<RunId> BeginRun(const NewRun& run);
  /// Opens a segment on `offer` from `start`. kBadInput when the run has an open segment or
  /// has ended, or the tier is unknown.
  [[nodiscard]] Result<SegmentId> OpenSegment(RunId run, const SegmentOffer& offer,
                                              Timestamp start);
  /// Closes an open segment. kBadInput when it is unknown or already closed.
  [[nodiscard]] Result<void> CloseSegment(SegmentId segment, Timestamp end, EndReason reason);
  [[nodiscard]] Result<int64_t> AddEvent(RunId run, std::optional<SegmentId> segment,
                                         EventType type, Timestamp time,
                                         const nlohmann::json& payload);
  /// Inserts a batch of samples in one transaction and updates the hourly rollups.
  [[nodiscard]] Result<void> AddSamples(RunId run, std::span<const Sample> samples);
  /// The supervisor is alive at `time`.
  [[nodiscard]] Result<void> Heartbeat(RunId run, Timestamp time);
  /// Ends a run: closes its open segment (finished, or failed/budget_stop to match `status`)
  /// and sets its status and end time.
  [[nodiscard]] Result<void> FinishRun(RunId run, RunStatus status, Timestamp end);
  /// Marks running runs whose last heartbeat is older than `now - stale_after` as lost: the
  /// open segment ends at the last heartbeat with reason lost, so cost counts up to it.
  /// Returns the runs marked.
  [[nodiscard]] Result<std::vector<RunId>> SweepLost(Timestamp now, Duration stale_after);
  /// A run swept lost was heard from after its last heartbeat (its journal has later records):
  /// moves its end, and the end of the segment the sweep closed, to `end` when that is later.
  /// Nothing happens to a run that is not lost.
  [[nodiscard]] Result<void> ExtendLost(RunId run, Timestamp end);
  /// Sets a closed segment's end and reason to what its supervisor recorded (the run's journal,
  /// when the ledger write failed and a sweep closed the segment lost instead). kBadInput when
  /// the segment is unknown or still open.
  [[nodiscard]] Result<void> ReviseSegmentEnd(SegmentId segment, Timestamp end, EndReason reason);
  /// Sets an ended run's status and end to what its supervisor recorded (as above). kBadInput
  /// when the run is unknown or still running, or `status` is running.
  [[nodiscard]] Result<void> ReviseRunEnd(RunId run, RunStatus status, Timestamp end);
  /// Replaces raw samples older than `before` with one averaged sample per `bucket` per run.
  /// Returns the number of rows removed. Rollups are unaffected.
  [[nodiscard]] Result<int64_t> Downsample(Timestamp before, Duration bucket);

  // --- Reading --------------------------------------------------------------------------
  [[nodiscard]] Result<Run> GetRun(RunId run);
  [[nodiscard]] Result<RunDetail> GetRunDetail(RunId run, Timestamp now);
  /// Newest first.
  [[nodiscard]] Result<std::vector<RunSummary>> ListRuns(const RunFilter& filter, Timestamp now);
  /// Segments overlapping [since, until), with their run's team/project/owner and status.
  [[nodiscard]] Result<std::vector<SegmentFact>> SegmentsBetween(Timestamp since, Timestamp until);
  [[nodiscard]] Result<std::vector<Sample>> SamplesOf(RunId run);
  [[nodiscard]] Result<std::vector<Segment>> SegmentsOf(RunId run);
  /// Average utilization of a run, from the hourly rollups.
  [[nodiscard]] Result<Utilization> UtilizationOf(RunId run);
  /// Total cost of every segment (open ones up to `now`): the figure concurrency and crash
  /// tests check.
  [[nodiscard]] Result<Money> TotalCost(Timestamp now);
  [[nodiscard]] Result<int64_t> CountRows(std::string_view table);

  // --- Tuner ----------------------------------------------------------------------------
  [[nodiscard]] Result<StudyId> CreateStudy(const NewStudy& study);
  [[nodiscard]] Result<std::optional<Study>> FindStudy(const std::string& name);
  [[nodiscard]] Result<TrialId> AddTrial(StudyId study, const nlohmann::json& config,
                                         Timestamp time);
  /// Records (or replaces) a trial's result at a rung.
  [[nodiscard]] Result<void> RecordRung(TrialId trial, int rung, double fidelity, double value,
                                        Timestamp time);
  /// Sets a trial's state and adds `cost` to what it has spent; links a run when given.
  [[nodiscard]] Result<void> UpdateTrial(TrialId trial, TrialState state, Money cost_delta,
                                         std::optional<RunId> run, Timestamp time);
  [[nodiscard]] Result<void> SetStudyState(StudyId study, StudyState state);
  [[nodiscard]] Result<std::vector<Trial>> TrialsOf(StudyId study);

  // --- Policy overrides (overrides.cc) --------------------------------------------------
  /// Records an override. kBadInput when the reason, command or rule list is empty.
  [[nodiscard]] Result<OverrideId> RecordOverride(const NewOverride& record);
  /// Links an override to the run or study it let start (either may stay unset).
  /// kBadInput when no override has that id.
  [[nodiscard]] Result<void> LinkOverride(OverrideId id, std::optional<RunId> run,
                                          std::optional<StudyId> study);
  /// Overrides in the filter's window, newest first.
  [[nodiscard]] Result<std::vector<PolicyOverride>> ListOverrides(const OverrideFilter& filter);
  /// What the run or study an override let start has spent up to `now` (open segments
  /// included); nullopt when it is linked to neither (a plan, or a run that never began).
  [[nodiscard]] Result<std::optional<Money>> SpendOf(const PolicyOverride& o, Timestamp now);

  // --- Exclusive use -------------------------------------------------------------------
  /// Claims `key` (a run or study name, with its kind) for as long as this ledger stays open,
  /// so that two frugal processes on different hosts never drive the same run or study in a
  /// shared ledger. On PostgreSQL it is a session advisory lock: the server drops it when the
  /// connection ends, so a killed holder leaves nothing behind (a claim it still holds while
  /// its connection winds down is waited for, up to 3 s). On SQLite it is a no-op (the
  /// file is local; the caller's FileLock already covers the host). kBadInput naming `what`
  /// and the holder's client address when another session holds it.
  [[nodiscard]] Result<void> ClaimExclusive(std::string_view key, std::string_view what);

  Connection& connection() { return *db_; }

 private:
  [[nodiscard]] Result<std::vector<Segment>> LoadSegments(std::string_view where,
                                                          std::span<const Value> params);
  [[nodiscard]] Result<std::vector<Run>> LoadRuns(std::string_view where,
                                                  std::span<const Value> params);

  std::unique_ptr<Connection> db_;
};

}  // namespace frugal::ledger

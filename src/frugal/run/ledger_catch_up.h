#pragma once
// Bringing the ledger up to a run's journal. The journal (run_journal.h) is the source of
// truth: it is written first, on the run's own disk, and a record that cannot be appended is
// retried until the supervisor exits. The ledger may fall behind it: a full disk, a locked or
// dead database, while the run goes on. The supervisor's LedgerRecorder keeps failed writes and
// retries them, in order, so the ledger holds a prefix of each attempt's records; what is left
// at exit is in the journal only. Until it is caught up the ledger shows the run `running` and
// charges it "up to now", or (after a sweep) `lost` at its last heartbeat.
//
// CatchUpFromJournal replays what matters for money and status:
// - a segment the journal closed and the ledger left open is closed at the journal's time with
//   the journal's reason; one a sweep (or a lost attempt) closed `lost` gets the journal's end
//   and reason instead;
// - a segment the ledger never heard of is added, priced as the journal's attempt was (its
//   price, tier and GPU count);
// - the run ends as the journal's last attempt ended (its outcome and time). An attempt that
//   was preempted (waiting for its requeue) leaves the run's status as it is. One that never
//   finished (a killed supervisor) is, once a sweep has marked the run lost, costed to the
//   journal's last record: the same end the next supervisor of the run gives it
//   (LedgerRecorder's lost attempt), so a sweep and a restart agree. While the run is still
//   `running` in the ledger it is left to the sweep or the next supervisor.
// - events and utilization samples the ledger never had are added (an event is known by its time
//   and kind; an attempt's samples after the last one the ledger holds for it are added, so
//   samples the ledger has averaged away are not brought back).
// A ledger run is
// matched by name (the newest run of that name); a journal the ledger has no run for (written
// against another ledger) is left alone, and so are journal segments older than the run.
// Repeating it changes nothing: every step compares before it writes.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/core/money.h"
#include "frugal/ledger/ledger.h"
#include "frugal/monitor/sample.h"
#include "frugal/run/recorder.h"

namespace frugal::run {

/// A journal's segment as the ledger would hold it.
struct JournalSegment {
  int number = 0;  ///< the journal's segment number, which its events name
  ledger::Timestamp opened;
  std::optional<ledger::Timestamp> closed;
  std::string end;  ///< the journal's SegmentEndName
};

/// One invocation (attempt) of a run, as its journal tells it.
struct JournalAttempt {
  Rate price;
  /// The tier the journal names (unset: none); an error when its name is not a tier, reported
  /// when a segment of the attempt has to be added.
  Result<std::optional<CapacityTier>> tier = std::nullopt;
  std::string offer;
  int gpus = 0;
  std::vector<JournalSegment> segments;
  std::vector<RunEvent> events;
  std::vector<monitor::Sample> samples;
  std::optional<ledger::Timestamp> finished;
  /// The time of the attempt's last record: for an attempt that never finished (its
  /// supervisor was killed), the last moment it was known alive.
  std::optional<ledger::Timestamp> last_record;
  std::string outcome;
  /// A run_status record after run_finished: how the run ended in the end (a tuner's word).
  std::optional<ledger::RunStatus> decided;
  std::optional<ledger::Timestamp> decided_end;
};

/// The journal's attempts with their segments, events and samples, in order; records without
/// a time are skipped. Empty when the file does not exist.
std::vector<JournalAttempt> ReadJournalAttempts(const std::filesystem::path& journal);

/// What CatchUpFromJournal changed in the ledger.
struct LedgerCatchUp {
  int segments_closed = 0;   ///< left open by the ledger, closed as the journal says
  int segments_revised = 0;  ///< closed lost by a sweep, given the journal's end and reason
  int segments_added = 0;    ///< the ledger never had them
  int events_added = 0;      ///< events the ledger never had
  int samples_added = 0;     ///< utilization samples the ledger never had
  bool run_ended = false;    ///< the run's status and end set from the journal
  /// A run swept lost at its last heartbeat whose last attempt never finished (a killed
  /// supervisor): costed on to the journal's last record, as a restart would.
  bool lost_extended = false;

  [[nodiscard]] bool Any() const {
    return segments_closed + segments_revised + segments_added + events_added + samples_added > 0 ||
           run_ended || lost_extended;
  }
  /// "closed 1 segment, ended the run as failed" style text for a log line.
  [[nodiscard]] std::string Describe() const;
};

/// Brings the ledger's run `name` up to the journal at `journal` (see above). `offer` is what
/// the current configuration runs on: added segments of an attempt with the same price and
/// tier are recorded on it, others on a custom offer with the journal's price. Errors are the
/// ledger's (a write that fails again); what was done before stays done.
[[nodiscard]] Result<LedgerCatchUp> CatchUpFromJournal(ledger::Ledger& ledger,
                                                       const std::string& name,
                                                       const std::filesystem::path& journal,
                                                       const ledger::SegmentOffer& offer);

}  // namespace frugal::run

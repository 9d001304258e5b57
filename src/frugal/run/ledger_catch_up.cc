#include "frugal/run/ledger_catch_up.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "frugal/ledger/run_rows.h"
#include "frugal/run/ledger_recorder.h"
#include "frugal/run/run_journal.h"

namespace frugal::run {
namespace {

using nlohmann::json;

std::optional<ledger::Timestamp> TimeOf(const json& record) {
  const std::optional<WallTime> at = ParseWallTime(record.value("at", ""));
  if (!at) return std::nullopt;
  return ToLedgerTime(*at);
}

std::vector<JournalAttempt> AttemptsOf(const std::vector<json>& records) {
  std::vector<JournalAttempt> attempts;
  for (const json& r : records) {
    const std::string kind = r.value("record", "");
    const std::optional<ledger::Timestamp> at = TimeOf(r);
    if (!at) continue;
    if (kind != "run_started" && !attempts.empty()) attempts.back().last_record = at;
    if (kind == "run_started") {
      JournalAttempt a;
      a.price = Rate{Money::FromMicros(r.value("price_per_hour_micros", int64_t{0}))};
      a.tier = JournalTier(r);
      a.offer = r.value("offer", "");
      a.gpus = r.value("gpus", 0);
      a.last_record = at;
      attempts.push_back(std::move(a));
    } else if (attempts.empty()) {
      continue;
    } else if (kind == "segment_opened") {
      attempts.back().segments.push_back({r.value("segment", 0), *at, std::nullopt, ""});
    } else if (kind == "segment_closed" && !attempts.back().segments.empty() &&
               !attempts.back().segments.back().closed) {
      attempts.back().segments.back().closed = at;
      attempts.back().segments.back().end = r.value("end", "failed");
    } else if (kind == "run_finished") {
      attempts.back().finished = at;
      attempts.back().outcome = r.value("outcome", "failed");
    } else if (kind == "run_status" && attempts.back().finished) {
      const Result<ledger::RunStatus> status = ledger::ParseRunStatus(r.value("status", ""));
      const std::optional<WallTime> end = ParseWallTime(r.value("end", ""));
      if (status && *status != ledger::RunStatus::kRunning && end) {
        attempts.back().decided = *status;
        attempts.back().decided_end = ToLedgerTime(*end);
      }
    } else if (std::optional<RunEvent> event = JournalEvent(r)) {
      attempts.back().events.push_back(std::move(*event));
    } else if (std::optional<monitor::Sample> sample = JournalSample(r)) {
      attempts.back().samples.push_back(*sample);
    }
  }
  return attempts;
}

ledger::EndReason EndReasonOf(const std::string& end) {
  if (end == "interrupted") return ledger::EndReason::kPaused;  // as LedgerRecorder records it
  return ledger::ParseEndReason(end).value_or(ledger::EndReason::kFailed);
}

/// The offer an attempt's missing segments are recorded on (kBadInput when its journal's tier
/// name is not a tier).
Result<ledger::SegmentOffer> OfferOf(const JournalAttempt& a, const ledger::SegmentOffer& current) {
  if (!a.tier) return Fail(a.tier.error());
  const CapacityTier tier = a.tier->value_or(CapacityTier::kOnDemand);
  if (a.price.per_hour == current.price.per_hour && tier == current.tier) return current;
  ledger::SegmentOffer offer;
  offer.cloud = "custom";
  offer.instance_type = a.offer;
  offer.gpu_count = a.gpus;
  offer.tier = tier;
  offer.price = a.price;
  return offer;
}

/// A run the ledger ended (a sweep) gets new segments only while it runs again.
Result<void> Reopen(ledger::Ledger& ledger, ledger::RunId run) {
  return ledger::ReopenRun(ledger, run);
}

/// Adds the events and samples of the run's attempts that the ledger lacks. An event is known
/// by its time and kind. The ledger holds a prefix of each attempt's samples (the recorder
/// writes in order), so an attempt's samples after the last one the ledger has for it are
/// added: older ones the ledger may have averaged away (Downsample) are not added again.
Result<void> CatchUpEventsAndSamples(ledger::Ledger& ledger, const ledger::Run& run,
                                     const std::vector<JournalAttempt>& attempts,
                                     const std::map<int, ledger::SegmentId>& segment_ids,
                                     LedgerCatchUp& done) {
  const ledger::RunDetail detail = FRUGAL_TRY(ledger.GetRunDetail(run.id, ledger::Now()));
  std::set<std::pair<int64_t, std::string>> events;
  for (const ledger::Event& e : detail.events) {
    events.insert({e.time.time_since_epoch().count(), e.payload.value("kind", "")});
  }
  // What each ledger row covers: a raw sample its instant, a downsampled one (Downsample) its
  // whole bucket, which starts before the raw samples it averaged.
  struct Held {
    int64_t from_ms;
    int64_t through_ms;
  };
  std::vector<Held> held;
  for (const ledger::SampleSpan& span : FRUGAL_TRY(ledger::SampleSpansOf(ledger, run.id))) {
    held.push_back({span.time_ms, span.time_ms + std::max<int64_t>(span.resolution_ms - 1, 0)});
  }
  for (size_t i = 0; i < attempts.size(); ++i) {
    for (const RunEvent& e : attempts[i].events) {
      const ledger::Timestamp at = ToLedgerTime(e.at);
      if (at < run.start ||
          events.contains({at.time_since_epoch().count(), EventKindName(e.kind)})) {
        continue;
      }
      const auto segment = segment_ids.find(e.segment);
      FRUGAL_TRY(ledger.AddEvent(
          run.id, segment == segment_ids.end() ? std::nullopt : std::optional(segment->second),
          EventTypeOf(e.kind), at, EventPayload(e)));
      ++done.events_added;
    }
    if (attempts[i].samples.empty()) continue;
    const ledger::Timestamp from = ToLedgerTime(attempts[i].samples.front().at);
    const std::optional<ledger::Timestamp> until =
        i + 1 < attempts.size() && !attempts[i + 1].samples.empty()
            ? std::optional(ToLedgerTime(attempts[i + 1].samples.front().at))
            : std::nullopt;
    std::optional<int64_t> last_held;
    const int64_t from_ms = from.time_since_epoch().count();
    for (const Held& h : held) {
      if (h.through_ms >= from_ms && (!until || h.from_ms < until->time_since_epoch().count())) {
        last_held = std::max(last_held.value_or(h.through_ms), h.through_ms);
      }
    }
    std::vector<ledger::Sample> missing;
    for (const monitor::Sample& s : attempts[i].samples) {
      const ledger::Sample sample = LedgerSample(s);
      if (sample.time >= run.start &&
          (!last_held || sample.time.time_since_epoch().count() > *last_held)) {
        missing.push_back(sample);
      }
    }
    if (!missing.empty()) FRUGAL_TRY(ledger.AddSamples(run.id, missing));
    done.samples_added += static_cast<int>(missing.size());
  }
  return {};
}

/// The ledger's segment that started at `start`, if any.
const ledger::Segment* RecordedAt(const std::vector<ledger::Segment>& recorded,
                                  ledger::Timestamp start) {
  for (const ledger::Segment& s : recorded) {
    if (s.start == start) return &s;
  }
  return nullptr;
}

/// A segment the ledger holds, closed as the journal closed it: closed when the ledger left it
/// open, its end corrected when the ledger had it lost.
Result<void> CorrectRecordedSegment(ledger::Ledger& ledger, const ledger::Segment& s,
                                    ledger::Timestamp closed, ledger::EndReason reason,
                                    LedgerCatchUp& done) {
  if (!s.end) {
    FRUGAL_TRY(ledger.CloseSegment(s.id, closed, reason));
    ++done.segments_closed;
  } else if (s.end_reason == ledger::EndReason::kLost &&
             (*s.end != closed || reason != ledger::EndReason::kLost)) {
    FRUGAL_TRY(ledger.ReviseSegmentEnd(s.id, closed, reason));
    ++done.segments_revised;
  }
  return {};
}

/// A segment the ledger lacks, added on the attempt's offer (the run reopened for it when the
/// ledger had ended it).
Result<ledger::SegmentId> AddMissingSegment(ledger::Ledger& ledger, ledger::Run& run,
                                            const JournalAttempt& attempt,
                                            const JournalSegment& seg,
                                            const ledger::SegmentOffer& offer,
                                            ledger::EndReason reason, LedgerCatchUp& done) {
  if (run.status != ledger::RunStatus::kRunning) {
    FRUGAL_TRY(Reopen(ledger, run.id));
    run.status = ledger::RunStatus::kRunning;
    run.end.reset();
  }
  const ledger::SegmentOffer on = FRUGAL_TRY(OfferOf(attempt, offer));
  const ledger::SegmentId id = FRUGAL_TRY(ledger.OpenSegment(run.id, on, seg.opened));
  if (seg.closed) FRUGAL_TRY(ledger.CloseSegment(id, *seg.closed, reason));
  ++done.segments_added;
  return id;
}

/// Brings the ledger's segments of the run up to the journal's; the ledger's id of each
/// journal segment number, for its events.
Result<std::map<int, ledger::SegmentId>> CatchUpSegments(
    ledger::Ledger& ledger, ledger::Run& run, const std::vector<JournalAttempt>& attempts,
    const ledger::SegmentOffer& offer, bool killed_and_swept, LedgerCatchUp& done) {
  const std::vector<ledger::Segment> recorded = FRUGAL_TRY(ledger.SegmentsOf(run.id));
  const JournalAttempt& last = attempts.back();
  std::map<int, ledger::SegmentId> segment_ids;  // the journal's numbers, for its events
  for (const JournalAttempt& attempt : attempts) {
    for (JournalSegment seg : attempt.segments) {
      // The segment the killed supervisor left open (earlier ones of its attempt, closed in the
      // journal, are caught up as any other).
      const bool killed = killed_and_swept && &attempt == &last && !seg.closed;
      if (killed && last.last_record) {
        seg.closed = std::max(seg.opened, *last.last_record);
        seg.end = "lost";
      }
      if (seg.opened < run.start) continue;  // an older run of the same name
      const ledger::EndReason reason = EndReasonOf(seg.end);
      if (const ledger::Segment* s = RecordedAt(recorded, seg.opened)) {
        segment_ids[seg.number] = s->id;
        if (!seg.closed) continue;  // a killed supervisor's: the next one closes it lost
        if (killed) continue;       // the sweep closed it; moved on below with the run's end
        FRUGAL_TRY(CorrectRecordedSegment(ledger, *s, *seg.closed, reason, done));
        continue;
      }
      segment_ids[seg.number] =
          FRUGAL_TRY(AddMissingSegment(ledger, run, attempt, seg, offer, reason, done));
    }
  }
  return segment_ids;
}

/// The run's end as the journal's last attempt has it: a killed attempt's lost end moved on to
/// its last record, or the finished attempt's outcome (a tuner's word over it).
Result<void> CatchUpRunEnd(ledger::Ledger& ledger, const ledger::Run& run,
                           const JournalAttempt& last, bool killed_and_swept, LedgerCatchUp& done) {
  if (killed_and_swept && last.last_record && *last.last_record > run.start) {
    if (run.status == ledger::RunStatus::kRunning) {  // reopened for a segment it never had
      FRUGAL_TRY(ledger.FinishRun(run.id, ledger::RunStatus::kLost, *last.last_record));
      done.run_ended = true;
    } else if (run.end && *run.end < *last.last_record) {
      FRUGAL_TRY(ledger.ExtendLost(run.id, *last.last_record));
      done.lost_extended = true;
    }
    return {};
  }
  if (!last.finished || *last.finished < run.start) return {};
  // A tuner's word on the run (a paused trial) stands over the attempt's outcome.
  const std::optional<ledger::RunStatus> status =
      last.decided ? last.decided : RunStatusOf(last.outcome);
  if (!status) return {};  // preempted: its requeue continues the run
  const ledger::Timestamp end = last.decided ? *last.decided_end : *last.finished;
  if (run.status == ledger::RunStatus::kRunning) {
    FRUGAL_TRY(ledger.FinishRun(run.id, *status, end));
    done.run_ended = true;
  } else if (run.status != *status || run.end != end) {
    FRUGAL_TRY(ledger.ReviseRunEnd(run.id, *status, end));
    done.run_ended = true;
  }
  return {};
}

}  // namespace

std::vector<JournalAttempt> ReadJournalAttempts(const std::filesystem::path& journal) {
  return AttemptsOf(ReadJournal(journal));
}

std::string LedgerCatchUp::Describe() const {
  std::vector<std::string> parts;
  auto count = [](int n, const char* what) {
    return fmt::format("{} {} segment{}", what, n, n == 1 ? "" : "s");
  };
  if (segments_closed > 0) parts.push_back(count(segments_closed, "closed"));
  if (segments_revised > 0) parts.push_back(count(segments_revised, "corrected"));
  if (segments_added > 0) parts.push_back(count(segments_added, "added"));
  if (events_added > 0)
    parts.push_back(fmt::format("added {} event{}", events_added, events_added == 1 ? "" : "s"));
  if (samples_added > 0)
    parts.push_back(
        fmt::format("added {} utilization sample{}", samples_added, samples_added == 1 ? "" : "s"));
  if (run_ended) parts.push_back("ended the run");
  if (lost_extended) parts.push_back("costed the killed attempt to its last journal record");
  std::string text;
  for (const std::string& p : parts) text += (text.empty() ? "" : ", ") + p;
  return text.empty() ? "nothing to do" : text;
}

Result<LedgerCatchUp> CatchUpFromJournal(ledger::Ledger& ledger, const std::string& name,
                                         const std::filesystem::path& journal,
                                         const ledger::SegmentOffer& offer) {
  LedgerCatchUp done;
  const std::vector<JournalAttempt> attempts = ReadJournalAttempts(journal);
  if (attempts.empty()) return done;
  const std::optional<ledger::Run> found = FRUGAL_TRY(FindRunByName(ledger, name));
  if (!found) return done;
  ledger::Run run = *found;
  // A killed supervisor's attempt, once swept: its open segment ends where the journal last
  // heard from it.
  const bool killed_and_swept = !attempts.back().finished && run.status == ledger::RunStatus::kLost;
  const std::map<int, ledger::SegmentId> segment_ids =
      FRUGAL_TRY(CatchUpSegments(ledger, run, attempts, offer, killed_and_swept, done));
  FRUGAL_TRY(CatchUpEventsAndSamples(ledger, run, attempts, segment_ids, done));
  FRUGAL_TRY(CatchUpRunEnd(ledger, run, attempts.back(), killed_and_swept, done));
  return done;
}

}  // namespace frugal::run

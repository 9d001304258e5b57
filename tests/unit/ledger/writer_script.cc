#include "writer_script.h"

#include <fmt/format.h>
#include <unistd.h>

#include <random>

namespace frugal::ledger::testing {
namespace {

constexpr int64_t kMinuteMs = 60'000;
constexpr int64_t kBaseMs = 1'767'225'600'000;  // 2026-01-01T00:00:00Z

std::string Prefix(uint64_t seed) { return fmt::format("w{}-", seed); }

}  // namespace

Result<int64_t> RunScript(Ledger& ledger, const ScriptOptions& options) {
  std::mt19937_64 rng(options.seed);
  int64_t ops = 0;
  // Each step is one committed transaction; false once the op limit is reached.
  auto step = [&]() -> bool {
    if (options.op_limit >= 0 && ops >= options.op_limit) return false;
    return true;
  };
  auto done = [&]() {
    ++ops;
    if (options.log_fd >= 0) {
      const std::string line = std::to_string(ops) + "\n";
      [[maybe_unused]] ssize_t n = ::write(options.log_fd, line.data(), line.size());
    }
  };
  const char* teams[] = {"nlp", "vision", "speech"};
  for (int r = 0; r < options.runs; ++r) {
    const int64_t t0 =
        kBaseMs + static_cast<int64_t>(options.seed % 1000) * 86'400'000 + r * 6 * 60 * kMinuteMs;
    NewRun run;
    run.name = Prefix(options.seed) + std::to_string(r);
    run.command = "python train.py";
    run.tags.team = teams[rng() % 3];
    run.tags.project = fmt::format("p{}", rng() % 4);
    run.tags.owner = "alice";
    run.tags.extra["seed"] = std::to_string(options.seed);
    run.budget = Money::FromCents(static_cast<int64_t>(1000 + rng() % 9000));
    run.start = FromMillis(t0);
    const int64_t price_micros = 100'000 + static_cast<int64_t>(rng() % 4'000'000);
    const int64_t first_ms = (20 + static_cast<int64_t>(rng() % 100)) * kMinuteMs;
    const int64_t gap_ms = (1 + static_cast<int64_t>(rng() % 10)) * kMinuteMs;
    const int64_t second_ms = (10 + static_cast<int64_t>(rng() % 100)) * kMinuteMs;

    if (!step()) return ops;
    const RunId id = FRUGAL_TRY(ledger.BeginRun(run));
    done();
    SegmentOffer offer{"aws",
                       "g5.xlarge",
                       "us-east-1",
                       "us-east-1a",
                       "A10G",
                       1,
                       CapacityTier::kSpot,
                       Rate{Money::FromMicros(price_micros)},
                       Rate{Money::FromMicros(price_micros * 3)}};
    int64_t t = t0;
    for (int seg = 0; seg < 2; ++seg) {
      const int64_t length = seg == 0 ? first_ms : second_ms;
      if (!step()) return ops;
      const SegmentId segment = FRUGAL_TRY(ledger.OpenSegment(id, offer, FromMillis(t)));
      done();
      for (int b = 0; b < options.batches; ++b) {
        std::vector<Sample> batch;
        for (int i = 0; i < options.samples_per_batch; ++i) {
          Sample s;
          s.time = FromMillis(t + (b * options.samples_per_batch + i) * 1000);
          s.gpu_util = static_cast<double>(rng() % 101);
          s.cpu_util = static_cast<double>(rng() % 400);
          s.gpu_mem_bytes = 1e9;
          batch.push_back(s);
        }
        if (!step()) return ops;
        FRUGAL_TRY(ledger.AddSamples(id, batch));
        done();
      }
      if (!step()) return ops;
      FRUGAL_TRY(ledger.Heartbeat(id, FromMillis(t + length / 2)));
      done();
      if (seg == 0) {
        if (!step()) return ops;
        FRUGAL_TRY(ledger.CloseSegment(segment, FromMillis(t + length), EndReason::kPreempted));
        done();
        if (!step()) return ops;
        FRUGAL_TRY(ledger.AddEvent(id, segment, EventType::kPreempted, FromMillis(t + length),
                                   {{"notice_seconds", 120}}));
        done();
      }
      t += length + gap_ms;
    }
    if (!step()) return ops;
    FRUGAL_TRY(ledger.FinishRun(id, RunStatus::kSucceeded, FromMillis(t - gap_ms)));
    done();
  }
  return ops;
}

std::string ToString(const Fingerprint& f) {
  return fmt::format(
      "runs={} finished={} lost={} segments={} open={} samples={} rollup={} events={} tags={} "
      "cost={}",
      f.runs, f.finished_runs, f.lost_runs, f.segments, f.open_segments, f.samples,
      f.rollup_samples, f.events, f.tags, f.cost_micros);
}

Result<Fingerprint> FingerprintOf(Ledger& ledger, uint64_t seed) {
  Connection& db = ledger.connection();
  const std::vector<Value> like = {Prefix(seed) + "%"};
  auto count = [&](const std::string& sql) -> Result<int64_t> {
    std::vector<Row> rows = FRUGAL_TRY(db.Query(sql, like));
    return rows.empty() ? int64_t{0} : AsInt(rows[0][0]);
  };
  const std::string runs = "SELECT id FROM runs WHERE name LIKE ?";
  Fingerprint f;
  f.runs = FRUGAL_TRY(count("SELECT COUNT(*) FROM runs WHERE name LIKE ?"));
  f.finished_runs =
      FRUGAL_TRY(count("SELECT COUNT(*) FROM runs WHERE name LIKE ? AND status = 'succeeded'"));
  f.lost_runs =
      FRUGAL_TRY(count("SELECT COUNT(*) FROM runs WHERE name LIKE ? AND status = 'lost'"));
  f.segments = FRUGAL_TRY(count("SELECT COUNT(*) FROM segments WHERE run_id IN (" + runs + ")"));
  f.open_segments = FRUGAL_TRY(
      count("SELECT COUNT(*) FROM segments WHERE end_ms IS NULL AND run_id IN (" + runs + ")"));
  f.samples = FRUGAL_TRY(count("SELECT COUNT(*) FROM samples WHERE run_id IN (" + runs + ")"));
  f.rollup_samples = FRUGAL_TRY(
      count("SELECT COALESCE(SUM(n), 0) FROM sample_rollup WHERE run_id IN (" + runs + ")"));
  f.events = FRUGAL_TRY(count("SELECT COUNT(*) FROM events WHERE run_id IN (" + runs + ")"));
  f.tags = FRUGAL_TRY(count("SELECT COUNT(*) FROM run_tags WHERE run_id IN (" + runs + ")"));
  std::vector<Row> ids = FRUGAL_TRY(db.Query(runs, like));
  for (const Row& r : ids) {
    std::vector<Segment> segments = FRUGAL_TRY(ledger.SegmentsOf(AsInt(r[0])));
    for (const Segment& s : segments) f.cost_micros += s.Cost(s.start).micros();
  }
  return f;
}

}  // namespace frugal::ledger::testing

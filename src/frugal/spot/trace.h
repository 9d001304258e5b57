#pragma once
// A spot availability trace: how many spot instances could be launched at each tick, and
// optionally the spot and on-demand price at each tick. Loaded from the public spot-traces
// JSON format, from a simple CSV, or generated (see trace_synthetic.h).
//
// JSON (format of the public spot-traces data, version implied by its keys):
//   {"metadata": {"gap_seconds": 600}, "data": [n_0, n_1, ...]}
//   n_i ≥ 0 is the number of instances launchable at tick i (TraceFormat::kLaunchable).
//   The same layout with data flags where 1 = unavailable (preempted) and 0 = available is
//   another convention (TraceFormat::kUnavailable: the traces of the SkyNomad artifact, whose
//   files carry more metadata and price keys). gap_seconds is a whole number of seconds from
//   1 to 86,400 and the trace spans at most 3,650 days.
// CSV (version 1): header `timestamp,available[,spot_price,on_demand_price]` or
//   `tick,available[,...]`. Timestamps are ISO 8601 UTC ("2022-10-26T00:10:00Z") or unix
//   seconds, evenly spaced; ticks are consecutive integers `tick_seconds` apart. Prices are
//   dollars per hour per instance.

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::spot {

struct Trace {
  std::string name;                     ///< file stem or synthetic spec, for reports
  std::string source;                   ///< the file read, for errors; empty when generated
  int gap_seconds = 600;                ///< time between ticks
  std::vector<int> launchable;          ///< instances launchable at each tick
  std::vector<double> spot_price;       ///< $/h per instance per tick; empty when not given
  std::vector<double> on_demand_price;  ///< $/h per instance per tick; empty when not given

  [[nodiscard]] int ticks() const { return static_cast<int>(launchable.size()); }
  [[nodiscard]] bool HasPrices() const { return !spot_price.empty(); }
};

/// What the numbers in a JSON trace's `data` mean.
enum class TraceFormat {
  kAuto,         ///< told from the file, refused when it cannot be told (see ParseJsonTrace)
  kLaunchable,   ///< spot-traces: instances launchable at the tick (1 = available)
  kUnavailable,  ///< 1 = unavailable (preempted), 0 = available
};
/// "auto", "launchable" (or "spot-traces"), "unavailable" (or "skynomad"); kBadInput otherwise.
[[nodiscard]] Result<TraceFormat> ParseTraceFormat(std::string_view text);

/// Longest tick and longest trace frugal simulates: the simulator steps through every minute.
inline constexpr int64_t kMaxTickSeconds = 86'400;
inline constexpr int64_t kMaxTraceSeconds = int64_t{3650} * 86'400;
/// Most instances one tick may count.
inline constexpr int64_t kMaxLaunchable = 1'000'000;

/// Loads a trace from a .json (spot-traces format) or .csv file. `tick_seconds` is the tick
/// length of a CSV whose first column is `tick`. kBadInput names file:line:column and the
/// field on malformed input; kFailed when the file cannot be read.
[[nodiscard]] Result<Trace> LoadTrace(const std::filesystem::path& path, int tick_seconds = 600,
                                      TraceFormat format = TraceFormat::kAuto);

/// Parses JSON text (see above); `source` names it in errors. Under kAuto, data with a count
/// above 1 are launchable counts, and a file of only 0s and 1s is read as spot-traces only
/// when it has that layout exactly (no keys beside metadata.gap_seconds and data); any other
/// 0/1 file is refused with kBadInput asking for the format, since reading it the wrong way
/// round silently inverts availability.
[[nodiscard]] Result<Trace> ParseJsonTrace(const std::string& text, const std::string& source,
                                           TraceFormat format = TraceFormat::kAuto);
/// Parses CSV text (see above); `source` names it in errors.
[[nodiscard]] Result<Trace> ParseCsvTrace(const std::string& text, const std::string& source,
                                          int tick_seconds);

/// Attaches a price series to `trace`: a CSV with columns `spot_price` and `on_demand_price`
/// ($/h per instance), one row per tick of the trace, in order (other columns are ignored).
/// kBadInput names file:line:column and the field; a series shorter than the trace is an
/// error, a longer one is cut.
[[nodiscard]] Result<void> AttachPriceSeries(const std::filesystem::path& path, Trace& trace);

/// Availability for a gang of `gang` instances: tick i is available when all of them can be
/// launched (launchable ≥ gang). One byte per tick, 0 or 1.
[[nodiscard]] std::vector<uint8_t> GangAvailability(const Trace& trace, int gang);

/// Share of ticks in [begin, end) that are available (0 when the range is empty).
[[nodiscard]] double AvailableShare(const std::vector<uint8_t>& available, int begin, int end);

}  // namespace frugal::spot

#pragma once
// A spot availability trace: how many spot instances could be launched at each tick, and
// optionally the spot and on-demand price at each tick. Loaded from the public spot-traces
// JSON format, from a simple CSV, or generated (see trace_synthetic.h).
//
// JSON (format of the public spot-traces data, version implied by its keys):
//   {"metadata": {"gap_seconds": 600}, "data": [n_0, n_1, ...]}
//   n_i ≥ 0 is the number of instances launchable at tick i.
// CSV (version 1): header `timestamp,available[,spot_price,on_demand_price]` or
//   `tick,available[,...]`. Timestamps are ISO 8601 UTC ("2022-10-26T00:10:00Z") or unix
//   seconds, evenly spaced; ticks are consecutive integers `tick_seconds` apart. Prices are
//   dollars per hour per instance.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "frugal/core/error.h"

namespace frugal::spot {

struct Trace {
  std::string name;                 ///< file stem or synthetic spec, for reports
  int gap_seconds = 600;            ///< time between ticks
  std::vector<int> launchable;      ///< instances launchable at each tick
  std::vector<double> spot_price;   ///< $/h per instance per tick; empty when not given
  std::vector<double> on_demand_price;  ///< $/h per instance per tick; empty when not given

  [[nodiscard]] int ticks() const { return static_cast<int>(launchable.size()); }
  [[nodiscard]] bool HasPrices() const { return !spot_price.empty(); }
};

/// Loads a trace from a .json (spot-traces format) or .csv file. `tick_seconds` is the tick
/// length of a CSV whose first column is `tick`. kBadInput names file:line:column and the
/// field on malformed input; kFailed when the file cannot be read.
[[nodiscard]] Result<Trace> LoadTrace(const std::filesystem::path& path, int tick_seconds = 600);

/// Parses JSON text (see above); `source` names it in errors.
[[nodiscard]] Result<Trace> ParseJsonTrace(const std::string& text, const std::string& source);
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

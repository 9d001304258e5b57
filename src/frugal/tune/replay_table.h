#pragma once
// Tabulated learning curves for replay: a configs.csv (one row per configuration, any columns)
// and a curves.csv (one row per evaluation: config id, fidelity, cumulative cost in seconds,
// metrics). Every row has as many fields as its file's header; a configuration's rows rise in
// fidelity and its cost never falls below 0 or below its previous row's. A configuration fails
// after its last row when the metric has no finite value there (`nan`, an empty cell, `inf` or
// `-inf`: it diverged or produced nothing), when configs.csv says `status` is not OK, or when
// it has `nan_train_loss` = 1. Every configuration has rows in curves.csv unless configs.csv
// marks it failed (it failed before its first evaluation).

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "frugal/core/error.h"
#include "frugal/tune/search_space.h"
#include "frugal/tune/study_spec.h"

namespace frugal::tune {

struct CurvePoint {
  double fidelity = 0.0;
  double cost_seconds = 0.0;  ///< cumulative since the start of the trial
  double value = 0.0;         ///< the objective metric
};

struct ReplayConfig {
  std::string id;
  Config params;                  ///< configs.csv's columns
  std::vector<CurvePoint> curve;  ///< by increasing fidelity; NaN values cut off
  bool fails = false;             ///< fails after its last point
  std::string where;              ///< configs.csv:line of its row, for errors
};

class ReplayTable {
 public:
  /// Loads `source` for `metric` with `fidelity_column` (e.g. "epoch"). kBadInput with
  /// file:line:column on a missing column, a fidelity or cost that is not a finite number, a
  /// metric that is neither a number nor missing (empty, nan, ±inf), an unknown config id, a
  /// fidelity that does not rise or a cost that is negative or falls along a configuration's
  /// rows, or a configuration with no rows that configs.csv does not mark failed; with
  /// file:line on a row whose field count differs from its header's.
  [[nodiscard]] static Result<ReplayTable> Load(const ReplaySource& source,
                                                const std::string& metric,
                                                const std::string& fidelity_column);

  const std::vector<ReplayConfig>& configs() const { return configs_; }
  /// The highest fidelity any configuration reaches (0 for a table without rows).
  double LongestCurve() const;
  /// The index of a config id, or nullopt. Constant time: the replay asks for every trial at
  /// every draw.
  std::optional<size_t> Find(const std::string& id) const;

  /// The best final value of any configuration that does not fail (the hindsight optimum),
  /// its index, and the cost of training only it.
  struct Hindsight {
    double best_value = 0.0;
    size_t index = 0;
    double cost_seconds = 0.0;
  };
  std::optional<Hindsight> Best(Direction direction, double max_fidelity) const;

  /// The same table with every point of a configuration carrying its final value (up to
  /// `max_fidelity`), costs unchanged: a perfect early ranking, for evaluations that separate
  /// what a scheduler loses to noisy early ranks from what screening itself costs.
  ReplayTable WithFinalValues(double max_fidelity) const;

  /// A configs.csv column that gives each configuration its own schedule length: a positive
  /// number in every row, equal to where the curve of every configuration that does not fail
  /// ends, and not the same in every row (nullopt when no column does). Several: the first
  /// whose name contains `fidelity_name` ("epochs" for epoch), else the first by name.
  std::optional<std::string> ScheduleLengthColumn(const std::string& fidelity_name) const;
  /// The lowest fidelity at which any configuration first reports (0 without rows).
  double FirstReport() const;

  /// Each configuration as a point built from configs.csv's columns, for telling near
  /// configurations from far ones when no search space is given: a numeric column scaled to
  /// [0, 1] (in logs when every value is positive and they span 10× or more), a text column one
  /// coordinate per value (1/√2 for it, 0 for the others); columns that never vary, are
  /// missing in some row, repeat the config id or hold a number that is not finite are left
  /// out. Empty points when none is left.
  std::vector<std::vector<double>> ColumnPoints() const;

  /// Cost and value of a config trained up to `max_fidelity` (or the end of its curve).
  static const CurvePoint* FinalPoint(const ReplayConfig& config, double max_fidelity);

 private:
  std::vector<ReplayConfig> configs_;
  std::unordered_map<std::string, size_t> index_;  ///< config id → position in configs_
};

}  // namespace frugal::tune

#include "frugal/tune/replay_table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "frugal/core/csv.h"
#include "frugal/core/text.h"

namespace frugal::tune {

namespace {

ParamValue CellValue(const std::string& text) {
  if (auto i = ParseInt(text)) return *i;
  if (auto d = ParseDouble(text)) return *d;
  return text;
}

// A metric cell that holds no finite number: `nan` (how numpy prints NaN), an empty cell (how
// pandas' to_csv writes it) or an infinity (a loss that overflowed). All mean the evaluation
// diverged or produced nothing.
bool IsMissingMetric(const std::string& text) {
  const std::string t = ToLower(Trim(text));
  return t.empty() || t == "nan" || t == "-nan" || t == "inf" || t == "+inf" || t == "-inf" ||
         t == "infinity" || t == "+infinity" || t == "-infinity";
}

enum class Missing { kRefuse, kAsNaN };

Result<double> NumberAt(const CsvTable& table, const CsvRecord& row, size_t column,
                        Missing missing) {
  const std::string& text = CsvTable::Field(row, column);
  if (missing == Missing::kAsNaN && IsMissingMetric(text)) {
    return std::numeric_limits<double>::quiet_NaN();
  }
  auto value = ParseDouble(text);
  if (!value) {
    return Fail(ErrorCode::kBadInput, table.Where(row, column) + ": field '" +
                                          table.header()[column] + "': " + value.error().message);
  }
  return *value;
}

// A configuration's rows must go forward: fidelity rises and the cumulative cost, the seconds
// spent so far, never falls. A negative or falling cost would give money back to the budget.
Result<void> CheckFollows(const CsvTable& curves, const CsvRecord& row, size_t fidelity,
                          size_t cost, const std::vector<CurvePoint>& curve, const CurvePoint& p) {
  const std::string& cost_column = curves.header()[cost];
  if (!curve.empty() && p.fidelity <= curve.back().fidelity) {
    return Fail(ErrorCode::kBadInput, curves.Where(row, fidelity) + ": field '" +
                                          curves.header()[fidelity] +
                                          "': rows of a config must have increasing fidelity");
  }
  if (!curve.empty() && p.cost_seconds < curve.back().cost_seconds) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field '{}': {} is below the previous point's {} (a cumulative "
                            "cost must not decrease)",
                            curves.Where(row, cost), cost_column, p.cost_seconds,
                            curve.back().cost_seconds));
  }
  if (p.cost_seconds < 0) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("{}: field '{}': {} must not be negative (a cost is the seconds spent "
                            "so far)",
                            curves.Where(row, cost), cost_column, p.cost_seconds));
  }
  return {};
}

bool ConfigFails(const CsvTable& table, const CsvRecord& row) {
  if (auto status = table.Column("status")) {
    const std::string value = ToLower(Trim(CsvTable::Field(row, *status)));
    if (!value.empty() && value != "ok") return true;
  }
  if (auto nan_loss = table.Column("nan_train_loss")) {
    if (Trim(CsvTable::Field(row, *nan_loss)) == "1") return true;
  }
  return false;
}

using ConfigIndex = std::unordered_map<std::string, size_t>;

/// configs.csv's rows: one configuration each, its parameters (an empty cell is one it does not
/// have) and whether it failed.
Result<void> ReadConfigs(const CsvTable& configs, const ReplaySource& source, size_t config_id,
                         std::vector<ReplayConfig>& out, ConfigIndex& index) {
  for (const CsvRecord& row : configs.rows()) {
    ReplayConfig c;
    c.id = CsvTable::Field(row, config_id);
    if (index.contains(c.id)) {
      return Fail(ErrorCode::kBadInput,
                  configs.Where(row, config_id) + ": duplicate config id '" + c.id + "'");
    }
    for (size_t col = 0; col < configs.header().size(); ++col) {
      // An empty cell is a parameter the configuration does not have (an inactive
      // conditional one, such as SGD's momentum in an Adam row).
      const std::string& text = CsvTable::Field(row, col);
      if (!Trim(text).empty()) c.params[configs.header()[col]] = CellValue(text);
    }
    c.fails = ConfigFails(configs, row);
    c.where = fmt::format("{}:{}", (source.dir / "configs.csv").string(), row.line);
    index[c.id] = out.size();
    out.push_back(std::move(c));
  }
  return {};
}

/// curves.csv's rows, each a point appended to its configuration's curve (in order of fidelity
/// and cumulative cost).
Result<void> ReadCurves(const CsvTable& curves, const ReplaySource& source,
                        const std::string& metric, const std::string& fidelity_column,
                        const ConfigIndex& index, std::vector<ReplayConfig>& configs) {
  const size_t curve_id = FRUGAL_TRY(curves.RequireColumn(source.config_column));
  const size_t fidelity = FRUGAL_TRY(curves.RequireColumn(fidelity_column));
  const size_t cost = FRUGAL_TRY(curves.RequireColumn(source.cost_column));
  const size_t value = FRUGAL_TRY(curves.RequireColumn(metric));
  for (const CsvRecord& row : curves.rows()) {
    auto it = index.find(CsvTable::Field(row, curve_id));
    if (it == index.end()) {
      return Fail(ErrorCode::kBadInput, curves.Where(row, curve_id) + ": config id '" +
                                            CsvTable::Field(row, curve_id) +
                                            "' is not in configs.csv");
    }
    ReplayConfig& c = configs[it->second];
    CurvePoint p;
    p.fidelity = FRUGAL_TRY(NumberAt(curves, row, fidelity, Missing::kRefuse));
    p.cost_seconds = FRUGAL_TRY(NumberAt(curves, row, cost, Missing::kRefuse));
    p.value = FRUGAL_TRY(NumberAt(curves, row, value, Missing::kAsNaN));
    FRUGAL_TRY(CheckFollows(curves, row, fidelity, cost, c.curve, p));
    c.curve.push_back(p);
  }
  return {};
}

/// A configuration with no evaluation is only meaningful as one that failed before its first;
/// otherwise it would replay as a trial that completes with no result.
Result<void> CheckEveryConfigHasACurve(const CsvTable& configs, size_t config_id,
                                       const std::vector<ReplayConfig>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    const ReplayConfig& c = out[i];
    if (c.curve.empty() && !c.fails) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("{}: config '{}' has no rows in curves.csv (a configuration that "
                              "failed before its first evaluation says so with 'status' other "
                              "than OK or 'nan_train_loss' = 1)",
                              configs.Where(configs.rows()[i], config_id), c.id));
    }
  }
  return {};
}

/// A NaN metric is a divergence: the run paid for that evaluation and stops there.
void CutAtDivergence(std::vector<ReplayConfig>& configs) {
  for (ReplayConfig& c : configs) {
    auto nan = std::find_if(c.curve.begin(), c.curve.end(),
                            [](const CurvePoint& p) { return std::isnan(p.value); });
    if (nan != c.curve.end()) {
      c.fails = true;
      c.curve.erase(nan + 1, c.curve.end());
    }
  }
}

}  // namespace

Result<ReplayTable> ReplayTable::Load(const ReplaySource& source, const std::string& metric,
                                      const std::string& fidelity_column) {
  const CsvTable configs = FRUGAL_TRY(CsvTable::Load(source.dir / "configs.csv"));
  const CsvTable curves = FRUGAL_TRY(CsvTable::Load(source.dir / "curves.csv"));
  // A short or long row is a damaged file: its fields would land in the wrong columns.
  FRUGAL_TRY(configs.RequireFullRows());
  FRUGAL_TRY(curves.RequireFullRows());
  const size_t config_id = FRUGAL_TRY(configs.RequireColumn(source.config_column));
  ReplayTable out;
  FRUGAL_TRY(ReadConfigs(configs, source, config_id, out.configs_, out.index_));
  FRUGAL_TRY(ReadCurves(curves, source, metric, fidelity_column, out.index_, out.configs_));
  FRUGAL_TRY(CheckEveryConfigHasACurve(configs, config_id, out.configs_));
  CutAtDivergence(out.configs_);
  return out;
}

double ReplayTable::LongestCurve() const {
  double longest = 0.0;
  for (const ReplayConfig& c : configs_) {
    if (!c.curve.empty()) longest = std::max(longest, c.curve.back().fidelity);
  }
  return longest;
}

std::optional<size_t> ReplayTable::Find(const std::string& id) const {
  const auto it = index_.find(id);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

const CurvePoint* ReplayTable::FinalPoint(const ReplayConfig& config, double max_fidelity) {
  const CurvePoint* last = nullptr;
  for (const CurvePoint& p : config.curve) {
    if (p.fidelity > max_fidelity + 1e-9) break;
    last = &p;
  }
  return last;
}

std::optional<ReplayTable::Hindsight> ReplayTable::Best(Direction direction,
                                                        double max_fidelity) const {
  std::optional<Hindsight> best;
  for (size_t i = 0; i < configs_.size(); ++i) {
    const ReplayConfig& c = configs_[i];
    const CurvePoint* p = FinalPoint(c, max_fidelity);
    if (c.fails || p == nullptr || std::isnan(p->value)) continue;
    const bool better = !best || (direction == Direction::kMaximize ? p->value > best->best_value
                                                                    : p->value < best->best_value);
    if (better) best = Hindsight{p->value, i, p->cost_seconds};
  }
  return best;
}

ReplayTable ReplayTable::WithFinalValues(double max_fidelity) const {
  ReplayTable oracle = *this;
  for (ReplayConfig& c : oracle.configs_) {
    const CurvePoint* last = FinalPoint(c, max_fidelity);
    if (last == nullptr) continue;
    const double value = last->value;
    for (CurvePoint& p : c.curve) p.value = value;
  }
  return oracle;
}

std::optional<std::string> ReplayTable::ScheduleLengthColumn(
    const std::string& fidelity_name) const {
  if (configs_.empty()) return std::nullopt;
  std::vector<std::string> found;
  for (const auto& [column, first] : configs_.front().params) {
    bool matches = true;
    std::optional<double> seen;
    bool varies = false;
    for (const ReplayConfig& c : configs_) {
      const auto it = c.params.find(column);
      double length = 0.0;
      if (it != c.params.end()) {
        if (const auto* d = std::get_if<double>(&it->second)) length = *d;
        if (const auto* i = std::get_if<int64_t>(&it->second)) length = static_cast<double>(*i);
      }
      if (!(length > 0)) {
        matches = false;
        break;
      }
      if (!c.fails && !c.curve.empty() &&
          std::abs(c.curve.back().fidelity - length) > 1e-6 * std::max(1.0, length)) {
        matches = false;
        break;
      }
      if (seen && *seen != length) varies = true;
      seen = length;
    }
    if (matches && varies) found.push_back(column);
  }
  if (found.empty()) return std::nullopt;
  for (const std::string& column : found) {
    if (!fidelity_name.empty() && column.find(fidelity_name) != std::string::npos) return column;
  }
  return found.front();
}

double ReplayTable::FirstReport() const {
  double first = 0.0;
  for (const ReplayConfig& c : configs_) {
    if (c.curve.empty()) continue;
    const double f = c.curve.front().fidelity;
    if (first == 0.0 || f < first) first = f;
  }
  return first;
}

std::vector<std::vector<double>> ReplayTable::ColumnPoints() const {
  std::vector<std::vector<double>> points(configs_.size());
  if (configs_.empty()) return points;
  for (const auto& [name, first] : configs_.front().params) {
    std::vector<const ParamValue*> values;
    bool numeric = true;
    bool repeats_id = true;
    for (const ReplayConfig& c : configs_) {
      const auto it = c.params.find(name);
      if (it == c.params.end()) break;
      values.push_back(&it->second);
      numeric = numeric && !std::holds_alternative<std::string>(it->second);
      repeats_id = repeats_id && ValueText(it->second) == c.id;
    }
    if (values.size() != configs_.size() || repeats_id) continue;
    if (numeric) {
      std::vector<double> x;
      x.reserve(values.size());
      for (const ParamValue* v : values)
        x.push_back(std::holds_alternative<double>(*v)
                        ? std::get<double>(*v)
                        : static_cast<double>(std::get<int64_t>(*v)));
      if (!std::all_of(x.begin(), x.end(), [](double v) { return std::isfinite(v); })) continue;
      const auto [lo, hi] = std::minmax_element(x.begin(), x.end());
      if (!(*hi > *lo)) continue;
      const bool logs = *lo > 0 && *hi >= 10 * *lo;
      const double a = logs ? std::log(*lo) : *lo;
      const double b = logs ? std::log(*hi) : *hi;
      if (!std::isfinite(b - a)) continue;  // a span past the largest double
      for (size_t i = 0; i < x.size(); ++i)
        points[i].push_back(((logs ? std::log(x[i]) : x[i]) - a) / (b - a));
    } else {
      std::vector<std::string> choices;
      choices.reserve(values.size());
      for (const ParamValue* v : values) choices.push_back(ValueText(*v));
      std::vector<std::string> distinct = choices;
      std::sort(distinct.begin(), distinct.end());
      distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
      if (distinct.size() < 2) continue;
      for (size_t i = 0; i < choices.size(); ++i)
        for (const std::string& d : distinct)
          points[i].push_back(choices[i] == d ? std::sqrt(0.5) : 0.0);
    }
  }
  return points;
}

}  // namespace frugal::tune

#include "tune_spec_text.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <set>

#include "frugal/core/atomic_file.h"
#include "frugal/core/money.h"
#include "frugal/tune/replay_table.h"
#include "frugal/tune/scheduler.h"

namespace frugal::cli {

namespace {

namespace fs = std::filesystem;
using tune::StudySpec;

/// The flag-form study's name: --name, else "replay-" and the table folder's own name (of its
/// real path, so "." and "dir/" name it too), with what a study name may not hold made '-'.
std::string DefaultStudyName(const TuneOptions& o, const fs::path& dir) {
  if (!o.name.empty()) {
    std::string quoted;  // inside single-quoted YAML
    for (char c : o.name) quoted += c == '\'' ? std::string("''") : std::string(1, c);
    return quoted;
  }
  std::error_code ec;
  fs::path real = fs::weakly_canonical(dir, ec);
  if (ec) real = dir.lexically_normal();
  std::string base = real.filename().string();
  if (base.empty()) base = real.parent_path().filename().string();
  for (char& c : base) {
    if (c == ' ' || c == '/' || c == '\\' || c == '\'') c = '-';
  }
  return base.empty() ? "replay" : "replay-" + base;
}

/// An error in the spec built from flags, told by the flag that set the field.
Error FlagError(const Error& e) {
  static const std::map<std::string, std::string> kFlagOf = {
      {"name", "--name"},
      {"seed", "--seed"},
      {"scheduler", "--scheduler"},
      {"sampler", "--sampler"},
      {"budget_usd", "--budget"},
      {"gates.budget_usd", "--budget"},
      {"max_trials", "--max-trials"},
      {"gates.max_trials", "--max-trials"},
      {"max_gpu_hours", "--max-gpu-hours"},
      {"gates.max_gpu_hours", "--max-gpu-hours"},
      {"workers", "--workers"},
      {"resources.workers", "--workers"},
      {"price_per_hour", "--price-per-hour"},
      {"resources.price_per_hour", "--price-per-hour"},
      {"grace", "--grace"},
      {"fidelity.grace", "--grace"},
      {"reduction_factor", "--reduction-factor"},
      {"fidelity.reduction_factor", "--reduction-factor"},
      {"scale_by", "--scale-by"},
      {"fidelity.scale_by", "--scale-by"},
      {"metric", "--metric"},
      {"objective.metric", "--metric"},
  };
  static const std::regex kFieldError(R"(^\(flags\):\d+:\d+: field '([^']+)': (.*)$)");
  std::smatch m;
  if (std::regex_match(e.message, m, kFieldError)) {
    const auto flag = kFlagOf.find(m[1].str());
    if (flag != kFlagOf.end()) return Error{e.code, flag->second + ": " + m[2].str()};
  }
  return e;
}

/// The fields (top level, and one level into maps: "gates.budget_usd") where two study specs
/// differ.
std::vector<std::string> ChangedFields(const std::string& then, const std::string& now) {
  YAML::Node a;
  YAML::Node b;
  try {
    a = YAML::Load(then);
    b = YAML::Load(now);
  } catch (const YAML::Exception&) {
    return {"(it no longer parses)"};
  }
  if (!a.IsMap() || !b.IsMap()) return {"(its top level)"};
  std::set<std::string> keys;
  for (const YAML::Node& root : {a, b}) {
    for (const auto& kv : root) keys.insert(kv.first.as<std::string>());
  }
  std::vector<std::string> changed;
  for (const std::string& key : keys) {
    const YAML::Node x = a[key];
    const YAML::Node y = b[key];
    if (YAML::Dump(x) == YAML::Dump(y)) continue;
    if (!x.IsMap() || !y.IsMap()) {
      changed.push_back(key);
      continue;
    }
    std::set<std::string> inner;
    for (const YAML::Node& m : {x, y}) {
      for (const auto& kv : m) inner.insert(kv.first.as<std::string>());
    }
    for (const std::string& k : inner) {
      if (YAML::Dump(x[k]) != YAML::Dump(y[k])) changed.push_back(fmt::format("{}.{}", key, k));
    }
  }
  return changed;
}

}  // namespace

Result<std::shared_ptr<const tune::ReplayTable>> LoadReplayTableOnce(
    const tune::ReplaySource& source, const std::string& metric,
    const std::string& fidelity_column) {
  // One table at a time is all a command reads; a different request replaces it.
  static std::mutex mu;
  static std::string loaded_key;
  static std::shared_ptr<const tune::ReplayTable> loaded;
  const std::string key =
      fmt::format("{}\n{}\n{}\n{}\n{}", fs::absolute(source.dir).lexically_normal().string(),
                  source.config_column, source.cost_column, metric, fidelity_column);
  const std::lock_guard<std::mutex> lock(mu);
  if (loaded == nullptr || key != loaded_key) {
    loaded = std::make_shared<const tune::ReplayTable>(
        FRUGAL_TRY(tune::ReplayTable::Load(source, metric, fidelity_column)));
    loaded_key = key;
  }
  return loaded;
}

namespace {

/// Each flag checked here so errors name the flag rather than the generated spec.
Result<void> CheckReplayFlags(const TuneOptions& o) {
  if (o.metric.empty())
    return Fail(ErrorCode::kBadInput, "tune --replay without a spec needs --metric");
  if (!o.budget.empty() && o.price_per_hour.empty()) {
    return Fail(ErrorCode::kBadInput, "--budget is in dollars: give --price-per-hour too");
  }
  if (auto kind = tune::ParseSchedulerKind(o.scheduler); !kind) {
    return Fail(kind.error().Wrap("--scheduler"));
  }
  if (o.sampler != "random" && o.sampler != "halton" && o.sampler != "tpe" && o.sampler != "gp") {
    return Fail(ErrorCode::kBadInput,
                "--sampler: unknown sampler '" + o.sampler + "' (random, halton, tpe, gp)");
  }
  if (!o.budget.empty()) {
    if (auto money = Money::Parse(o.budget); !money) return Fail(money.error().Wrap("--budget"));
  }
  if (!o.price_per_hour.empty()) {
    auto rate = Rate::Parse(o.price_per_hour);
    if (!rate) return Fail(rate.error().Wrap("--price-per-hour"));
    if (rate->per_hour.micros() <= 0 && !o.budget.empty()) {
      return Fail(ErrorCode::kBadInput, "--price-per-hour: is zero, so --budget would never bind");
    }
  }
  if (!(o.reduction_factor > 1))
    return Fail(ErrorCode::kBadInput, "--reduction-factor: must exceed 1");
  if (!(o.grace > 0)) return Fail(ErrorCode::kBadInput, "--grace: must be positive");
  return {};
}

/// The fidelity ladder a replay table allows: up to its longest curve, from its first report
/// (or --grace), rungs as shares of each configuration's own schedule where it gives one.
struct ReplayLadder {
  double max_fidelity = 0;
  double first_report = 0;
  std::string scale_by;
};

Result<ReplayLadder> LadderOf(const TuneOptions& o, const tune::ReplayTable& table,
                              const fs::path& dir) {
  ReplayLadder l;
  // The ladder's top is the longest curve in the table.
  for (const auto& c : table.configs()) {
    if (!c.curve.empty()) l.max_fidelity = std::max(l.max_fidelity, c.curve.back().fidelity);
  }
  if (l.max_fidelity <= 0)
    return Fail(ErrorCode::kBadInput, dir.string() + ": the table has no curves");
  // Each configuration's own schedule, when the table gives it (a column equal to where each
  // curve ends): rungs are then shares of it. And no rung below the first report, where
  // nothing has been measured yet.
  l.scale_by = o.scale_by == "none" ? "" : o.scale_by;
  if (o.scale_by.empty()) l.scale_by = table.ScheduleLengthColumn(o.fidelity).value_or("");
  l.first_report = std::max(1.0, table.FirstReport());
  if (o.grace_given) l.first_report = std::min(l.first_report, o.grace);
  if (o.grace_given && o.grace > l.max_fidelity) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("--grace: {:g} is past the table's longest curve ({:g} {}s)", o.grace,
                            l.max_fidelity, o.fidelity));
  }
  return l;
}

/// The study spec the flags describe, as YAML.
std::string ReplaySpecYaml(const TuneOptions& o, const fs::path& dir, const ReplayLadder& l) {
  std::string yaml = fmt::format(
      "apiVersion: frugal/v1\nkind: Study\nname: '{}'\n"
      "replay: {{dir: '{}', config_column: {}, cost_column: {}}}\n"
      "objective: {{metric: {}, direction: {}}}\n"
      "fidelity: {{name: {}, min: {}, max: {}{}, reduction_factor: {}{}}}\n"
      "{}sampler: {}\nseed: {}\nresources: {{workers: {}{}}}\n",
      DefaultStudyName(o, dir), dir.string(), o.config_column, o.cost_column, o.metric,
      o.maximize ? "maximize" : "minimize", o.fidelity, std::min(l.first_report, l.max_fidelity),
      l.max_fidelity,
      // Left unstated, the spec's default grace (3) applies, with its early rungs.
      o.grace_given ? fmt::format(", grace: {}", o.grace) : "", o.reduction_factor,
      l.scale_by.empty() ? "" : ", scale_by: '" + l.scale_by + "'",
      o.scheduler_given ? "scheduler: " + o.scheduler + "\n" : "", o.sampler, o.seed, o.workers,
      o.price_per_hour.empty() ? "" : ", price_per_hour: '" + o.price_per_hour + "'");
  std::string gates;
  if (!o.budget.empty()) gates += fmt::format("budget_usd: '{}', ", o.budget);
  if (o.max_gpu_hours) gates += fmt::format("max_gpu_hours: {}, ", *o.max_gpu_hours);
  if (o.max_trials) gates += fmt::format("max_trials: {}, ", *o.max_trials);
  if (!gates.empty()) yaml += "gates: {" + gates.substr(0, gates.size() - 2) + "}\n";
  return yaml;
}

}  // namespace

Result<tune::SpecText> SpecFromFlags(const TuneOptions& o) {
  FRUGAL_TRY(CheckReplayFlags(o));
  const fs::path dir = fs::absolute(o.replay_dir);
  tune::ReplaySource source{dir, o.config_column, o.cost_column};
  const std::shared_ptr<const tune::ReplayTable> loaded =
      FRUGAL_TRY(LoadReplayTableOnce(source, o.metric, o.fidelity));
  const ReplayLadder ladder = FRUGAL_TRY(LadderOf(o, *loaded, dir));
  tune::SpecText text{ReplaySpecYaml(o, dir, ladder), "(flags)", fs::current_path()};
  // What the spec's own checks find, they find in a spec the user never wrote: name the flag.
  if (auto parsed = tune::ParseStudySpec(text.yaml, text.source, text.base_dir); !parsed) {
    return Fail(FlagError(parsed.error()));
  }
  return text;
}

Result<tune::SpecText> SpecFromFile(const TuneOptions& o) {
  const fs::path path = o.spec_path;
  std::string yaml = FRUGAL_TRY(ReadFile(path));
  const fs::path base = fs::absolute(path).parent_path();
  // Parse as written first, so errors point at the user's lines.
  const StudySpec spec = FRUGAL_TRY(tune::ParseStudySpec(yaml, path.string(), base));
  if (!o.replay_dir.empty()) {
    tune::ReplaySource source = spec.replay.value_or(tune::ReplaySource{});
    source.dir = fs::absolute(o.replay_dir);
    yaml = FRUGAL_TRY(tune::WithReplaySource(yaml, source));
  }
  return tune::SpecText{yaml, path.string(), base};
}
void NoteEditedSpec(const nlohmann::json& state, Streams& s) {
  const std::string source = state.value("spec_source", "");
  if (source.empty() || source.front() == '(') return;  // "(flags)": no file
  const fs::path path = fs::path(state.value("spec_base", "")) / fs::path(source).filename();
  const Result<std::string> now = ReadFile(path);
  if (!now) return;
  const std::vector<std::string> changed = ChangedFields(state.value("spec_yaml", ""), *now);
  if (changed.empty()) return;
  const std::string name = state.value("name", "");
  s.err << fmt::format(
      "note: {} has changed since study '{}' started ({}); resume runs the spec it started "
      "with. To use the edit, start it again with --restart (the earlier study is kept)\n",
      path.string(), name, fmt::join(changed, ", "));
}

void PrintCapEdits(const std::string& study, const std::vector<tune::CapEdit>& edits,
                   const tune::BudgetGate& gate, Streams& s) {
  for (const tune::CapEdit& e : edits) {
    s.err << fmt::format("study '{}': {} {} \u2192 {}\n", study, e.field, e.from, e.to);
  }
  if (edits.empty()) return;
  if (gate.spent_gpu_seconds() >= gate.cap_gpu_seconds() * (1 - 1e-12)) {
    // The binding cap is the dollar one when spend is past it, else the GPU-hour one.
    const std::string over =
        gate.Overshoot().micros() > 0
            ? gate.Overshoot().ToString() + " past the budget"
            : fmt::format("{:.2f} GPU-h past the GPU-hour cap",
                          (gate.spent_gpu_seconds() - gate.cap_gpu_seconds()) / 3600.0);
    s.err << fmt::format(
        "study '{}': the new cap is at or below what it has spent ({}, {:.2f} GPU-h): no trial "
        "starts or resumes, and it ends stopped at its budget ({})\n",
        study, gate.spend().ToString(), gate.gpu_hours(), over);
  }
}

}  // namespace frugal::cli

#include "frugal/tune/study_spec.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "frugal/core/atomic_file.h"
#include "frugal/core/csv.h"
#include "frugal/core/file_head.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/core/yaml_guard.h"
#include "frugal/tune/space_spec.h"

namespace frugal::tune {

namespace {

Result<void> ParseObjective(const YamlDoc& doc, const YAML::Node& node, Objective& out) {
  if (!node) return Fail(doc.Missing(doc.root(), "objective"));
  FRUGAL_TRY(doc.CheckKeys(node, "objective", {"metric", "direction", "watch"}));
  out.metric = FRUGAL_TRY(doc.RequiredString(node, "metric"));
  const std::string direction = FRUGAL_TRY(doc.RequiredString(node, "direction"));
  if (direction != "minimize" && direction != "maximize") {
    return Fail(
        doc.ErrorAt(node["direction"], "objective.direction", "expected minimize or maximize"));
  }
  out.direction = direction == "maximize" ? Direction::kMaximize : Direction::kMinimize;
  out.watch = FRUGAL_TRY(doc.StringList(node, "watch"));
  return {};
}

/// The header of a replay study's curves.csv; nullopt when it cannot be read (the table's own
/// load reports that).
std::optional<std::vector<std::string>> CurvesHeader(const ReplaySource& replay) {
  // By ReadFile's rules, as the table's own load: a named pipe there is refused, not waited on.
  // Only the header is needed, and a spec is checked several times per command: the start of
  // a file of megabytes, the whole only for a header longer than that.
  constexpr size_t kHeadBytes = size_t{64} << 10;
  Result<std::string> text = ReadFileHead(replay.dir / "curves.csv", kHeadBytes);
  if (text && text->find('\n') == std::string::npos && text->size() >= kHeadBytes)
    text = ReadFile(replay.dir / "curves.csv");
  if (!text) return std::nullopt;
  auto header = CsvTable::Parse(std::string_view(*text).substr(0, text->find('\n')), "curves.csv");
  if (!header) return std::nullopt;
  return header->header();
}

/// A replay study's columns (config and cost columns, the fidelity, the objective metric and
/// every watched metric) must be columns of its curves.csv; the error points at the spec's
/// line, where the typo is (a name left at its default, at its section).
Result<void> CheckReplayColumns(const YamlDoc& doc, const YAML::Node& root, const StudySpec& spec) {
  if (!spec.replay) return {};
  const std::optional<std::vector<std::string>> columns = CurvesHeader(*spec.replay);
  if (!columns) return {};
  auto check = [&](const YAML::Node& section, std::string_view key, std::string_view field,
                   const std::string& name) -> Result<void> {
    if (std::find(columns->begin(), columns->end(), name) != columns->end()) return {};
    const YAML::Node at =
        section.IsMap() && section[std::string(key)] ? section[std::string(key)] : section;
    return Fail(doc.ErrorAt(
        at, field,
        fmt::format("'{}' is not a column of {}{}", Abbreviate(name),
                    (spec.replay->dir / "curves.csv").string(), DidYouMean(name, *columns))));
  };
  const YAML::Node replay = root["replay"];
  FRUGAL_TRY(check(replay, "config_column", "replay.config_column", spec.replay->config_column));
  FRUGAL_TRY(check(replay, "cost_column", "replay.cost_column", spec.replay->cost_column));
  FRUGAL_TRY(check(root["fidelity"], "name", "fidelity.name", spec.fidelity.name));
  const YAML::Node objective = root["objective"];
  FRUGAL_TRY(check(objective, "metric", "objective.metric", spec.objective.metric));
  // Indexing a const node for an absent key gives an invalid node, which throws when asked.
  const YAML::Node watch =
      objective.IsMap() && objective["watch"] ? objective["watch"] : YAML::Node();
  if (watch.IsScalar()) FRUGAL_TRY(check(watch, "", "objective.watch", watch.Scalar()));
  if (watch.IsSequence()) {
    for (const auto& item : watch) FRUGAL_TRY(check(item, "", "objective.watch", item.Scalar()));
  }
  return {};
}

Result<void> ParseFidelity(const YamlDoc& doc, const YAML::Node& node, FidelitySpec& out) {
  if (!node) return Fail(doc.Missing(doc.root(), "fidelity"));
  FRUGAL_TRY(doc.CheckKeys(node, "fidelity",
                           {"name", "min", "max", "grace", "reduction_factor", "rungs",
                            "cost_per_unit", "scale_by", "early_rungs"}));
  out.name = FRUGAL_TRY(doc.OptionalString(node, "name")).value_or("epoch");
  out.min = FRUGAL_TRY(doc.OptionalDouble(node, "min")).value_or(1.0);
  out.max = FRUGAL_TRY(doc.RequiredDouble(node, "max"));
  out.max_where = doc.Where(node["max"]);
  // Default warm-up: three reports. The evaluation in bench/tune shows a one-report grace
  // pruning eventual winners where early ranks correlate weakly with final ranks.
  const auto grace = FRUGAL_TRY(doc.OptionalDouble(node, "grace"));
  out.grace_stated = grace.has_value();
  out.grace = grace.value_or(std::min(3 * out.min, out.max));
  out.reduction_factor = FRUGAL_TRY(doc.OptionalDouble(node, "reduction_factor")).value_or(3.0);
  out.cost_per_unit = FRUGAL_TRY(doc.OptionalDuration(node, "cost_per_unit"));
  out.scale_by = FRUGAL_TRY(doc.OptionalString(node, "scale_by")).value_or("");
  if (!(out.min > 0) || !(out.max >= out.min)) {
    return Fail(doc.ErrorAt(node["max"], "fidelity.max", "needs 0 < min <= max"));
  }
  if (out.grace < out.min || out.grace > out.max) {
    return Fail(doc.ErrorAt(node["grace"], "fidelity.grace", "must lie between min and max"));
  }
  if (!(out.reduction_factor > 1.0)) {
    return Fail(
        doc.ErrorAt(node["reduction_factor"], "fidelity.reduction_factor", "must exceed 1"));
  }
  for (const std::string& text : FRUGAL_TRY(doc.StringList(node, "rungs"))) {
    auto value = ParseDouble(text);
    if (!value) return Fail(doc.ErrorAt(node["rungs"], "fidelity.rungs", value.error().message));
    out.rungs.push_back(*value);
  }
  if (!out.rungs.empty()) {
    const bool increasing =
        std::is_sorted(out.rungs.begin(), out.rungs.end(), std::less_equal<>()) &&
        std::adjacent_find(out.rungs.begin(), out.rungs.end()) == out.rungs.end();
    if (!increasing || out.rungs.front() < out.grace || out.rungs.back() != out.max) {
      return Fail(doc.ErrorAt(node["rungs"], "fidelity.rungs",
                              "must increase from at least 'grace' and end at 'max'"));
    }
  }
  return {};
}

// `fidelity.scale_by` must name a parameter whose every value is a positive number no longer
// than `max` (an opaque replay table is checked against its columns when the study loads it).
Result<void> CheckScaleBy(const YamlDoc& doc, const YAML::Node& node, const StudySpec& spec) {
  const std::string& name = spec.fidelity.scale_by;
  if (name.empty() || spec.space.empty()) return {};
  auto fail = [&](const std::string& why) {
    return Fail(doc.ErrorAt(node["scale_by"], "fidelity.scale_by", why));
  };
  const auto& params = spec.space.params();
  auto it =
      std::find_if(params.begin(), params.end(), [&](const Param& p) { return p.name == name; });
  if (it == params.end()) return fail("'" + name + "' is not a parameter of the space");
  std::vector<double> values;
  if (it->kind == ParamKind::kFloat || it->kind == ParamKind::kInt) {
    values = {it->low, it->high};
  } else {
    for (const std::string& choice : it->choices) {
      auto number = ParseDouble(choice);
      if (!number) {
        return fail(fmt::format("'{}' has a value that is not a number: '{}'", name, choice));
      }
      values.push_back(*number);
    }
  }
  for (double v : values) {
    if (!(v > 0)) return fail("'" + name + "' must be positive: it sets each trial's length");
    if (v > spec.fidelity.max + 1e-9) {
      return fail(
          fmt::format("'{}' goes up to {:g}, past fidelity.max {:g}: max is the longest "
                      "schedule",
                      name, v, spec.fidelity.max));
    }
  }
  return {};
}

Result<void> ParseScheduler(const YamlDoc& doc, const YAML::Node& root, StudySpec& out) {
  const YAML::Node node = root["scheduler"];
  if (!node) return {};
  out.scheduler_stated = true;
  std::string type;
  if (node.IsScalar()) {
    type = node.as<std::string>();
  } else {
    FRUGAL_TRY(doc.CheckKeys(node, "scheduler", {"type", "min_trials", "bracket_size"}));
    type = FRUGAL_TRY(doc.RequiredString(node, "type"));
    out.median_min_trials =
        static_cast<int>(FRUGAL_TRY(doc.OptionalInt(node, "min_trials")).value_or(3));
    if (out.median_min_trials < 1) {
      return Fail(doc.ErrorAt(node["min_trials"], "scheduler.min_trials", "must be at least 1"));
    }
    const auto bracket_size = FRUGAL_TRY(doc.OptionalInt(node, "bracket_size"));
    if (bracket_size && *bracket_size < 2) {
      return Fail(doc.ErrorAt(node["bracket_size"], "scheduler.bracket_size",
                              "must be at least 2 (a bracket halves among its trials)"));
    }
    out.bracket_size = static_cast<int>(bracket_size.value_or(0));
  }
  auto kind = ParseSchedulerKind(type);
  if (!kind) return Fail(doc.ErrorAt(node, "scheduler", kind.error().message));
  out.scheduler = *kind;
  return {};
}

/// Early rungs: only the rung schedulers have a ladder below the grace period to trust.
Result<void> ParseEarlyRungs(const YamlDoc& doc, const YAML::Node& root, StudySpec& out) {
  const YAML::Node fidelity = root["fidelity"];
  const auto early = FRUGAL_TRY(doc.OptionalString(fidelity, "early_rungs"));
  if (early && *early != "auto" && *early != "off") {
    return Fail(
        doc.ErrorAt(fidelity["early_rungs"], "fidelity.early_rungs", "must be 'auto' or 'off'"));
  }
  const bool rung_scheduler =
      out.scheduler == SchedulerKind::kAsha || out.scheduler == SchedulerKind::kAshaStop;
  if (early == "auto" && (!rung_scheduler || !out.fidelity.rungs.empty())) {
    return Fail(doc.ErrorAt(fidelity["early_rungs"], "fidelity.early_rungs",
                            "'auto' needs scheduler asha or asha-stop and no explicit 'rungs'"));
  }
  out.fidelity.early_rungs =
      early ? *early == "auto"
            : rung_scheduler && out.fidelity.rungs.empty() && !out.fidelity.grace_stated;
  return {};
}

Result<void> ParseSampler(const YamlDoc& doc, const YAML::Node& root, StudySpec& out) {
  const auto text = FRUGAL_TRY(doc.OptionalString(root, "sampler"));
  if (!text) return {};
  if (*text == "random") {
    out.sampler = SamplerKind::kRandom;
  } else if (*text == "halton" || *text == "quasi-random") {
    out.sampler = SamplerKind::kHalton;
  } else if (*text == "tpe") {
    out.sampler = SamplerKind::kTpe;
  } else if (*text == "gp") {
    out.sampler = SamplerKind::kGp;
  } else {
    return Fail(doc.ErrorAt(root["sampler"], "sampler",
                            "unknown sampler '" + *text + "' (random, halton, tpe, gp)"));
  }
  return {};
}

Result<void> ParseResourceTier(const YamlDoc& doc, const YAML::Node& node, Resources& out) {
  const std::string tier = FRUGAL_TRY(doc.OptionalString(node, "tier")).value_or("");
  if (tier.empty()) return {};
  // A rented tier by its one name exactly (core/tier.h).
  const std::optional<CapacityTier> parsed = TierNamed(tier);
  if (!parsed || !IsRentedTier(*parsed)) {
    const std::vector<std::string> tiers = {"on_demand", "spot", "reserved_1y", "reserved_3y"};
    return Fail(doc.ErrorAt(node["tier"], "resources.tier",
                            fmt::format("unknown tier '{}'{} (on_demand, spot, reserved_1y, "
                                        "reserved_3y)",
                                        Abbreviate(tier), DidYouMean(tier, tiers))));
  }
  out.tier = *parsed;
  return {};
}

// What the study rents: an offer or a GPU the catalog prices, or a price of its own.
Result<void> ParseResourceOffer(const YamlDoc& doc, const YAML::Node& node, Resources& out) {
  out.offer = FRUGAL_TRY(doc.OptionalString(node, "offer")).value_or("");
  out.gpu = FRUGAL_TRY(doc.OptionalString(node, "gpu")).value_or("");
  if (!out.offer.empty() && !out.gpu.empty()) {
    return Fail(
        doc.ErrorAt(node["gpu"], "resources.gpu", "give either an offer or a GPU name, not both"));
  }
  if (!out.offer.empty()) out.offer_where = doc.Where(node["offer"]);
  if (!out.gpu.empty()) out.offer_where = doc.Where(node["gpu"]);
  if (node["price_per_hour"] && !out.offer_where.empty()) {
    return Fail(doc.ErrorAt(
        node["price_per_hour"], "resources.price_per_hour",
        "the catalog prices the " + std::string(out.offer.empty() ? "GPU" : "offer") +
            "; give either price_per_hour or " + (out.offer.empty() ? "gpu" : "offer")));
  }
  if (const auto price = FRUGAL_TRY(doc.OptionalString(node, "price_per_hour"))) {
    auto rate = Rate::Parse(*price);
    if (!rate)
      return Fail(
          doc.ErrorAt(node["price_per_hour"], "resources.price_per_hour", rate.error().message));
    out.price_per_gpu_hour = *rate;
  }
  return {};
}

// checkpoint_interval: one duration, or {min, max}.
Result<void> ParseCheckpointInterval(const YamlDoc& doc, const YAML::Node& node, Resources& out) {
  const YAML::Node interval = node["checkpoint_interval"];
  if (!interval) return {};
  if (interval.IsMap()) {
    FRUGAL_TRY(doc.CheckKeys(interval, "checkpoint_interval", {"min", "max"}));
    out.checkpoint_min = FRUGAL_TRY(doc.OptionalDuration(interval, "min"));
    out.checkpoint_max = FRUGAL_TRY(doc.OptionalDuration(interval, "max"));
  } else {
    out.checkpoint_min = FRUGAL_TRY(doc.OptionalDuration(node, "checkpoint_interval"));
    out.checkpoint_max = out.checkpoint_min;
  }
  if (!out.checkpoint_min || !out.checkpoint_max || *out.checkpoint_min > *out.checkpoint_max) {
    return Fail(doc.ErrorAt(interval, "resources.checkpoint_interval",
                            "expected a duration or {min, max} with min <= max"));
  }
  return {};
}

Result<void> ParseResources(const YamlDoc& doc, const YAML::Node& node, Resources& out) {
  if (!node) return {};
  FRUGAL_TRY(doc.CheckKeys(
      node, "resources",
      {"gpus", "tier", "offer", "gpu", "price_per_hour", "workers", "checkpoint_interval"}));
  out.gpus_stated = static_cast<bool>(node["gpus"]);
  out.gpus = static_cast<int>(FRUGAL_TRY(doc.OptionalInt(node, "gpus")).value_or(1));
  out.workers = static_cast<int>(FRUGAL_TRY(doc.OptionalInt(node, "workers")).value_or(1));
  if (out.gpus < 1) return Fail(doc.ErrorAt(node["gpus"], "resources.gpus", "must be at least 1"));
  if (out.workers < 1)
    return Fail(doc.ErrorAt(node["workers"], "resources.workers", "must be at least 1"));
  FRUGAL_TRY(ParseResourceTier(doc, node, out));
  FRUGAL_TRY(ParseResourceOffer(doc, node, out));
  FRUGAL_TRY(ParseCheckpointInterval(doc, node, out));
  return {};
}

Result<void> ParseGates(const YamlDoc& doc, const YAML::Node& node, Gates& out) {
  if (!node) return {};
  FRUGAL_TRY(doc.CheckKeys(
      node, "gates", {"budget_usd", "max_gpu_hours", "max_trials", "trial_max_wall", "plateau"}));
  out.budget = FRUGAL_TRY(doc.OptionalMoney(node, "budget_usd"));
  out.max_gpu_hours = FRUGAL_TRY(doc.OptionalDouble(node, "max_gpu_hours"));
  out.max_trials = FRUGAL_TRY(doc.OptionalInt(node, "max_trials"));
  out.trial_max_wall = FRUGAL_TRY(doc.OptionalDuration(node, "trial_max_wall"));
  if (out.budget && out.budget->micros() <= 0) {
    return Fail(doc.ErrorAt(node["budget_usd"], "gates.budget_usd", "must be positive"));
  }
  if (out.max_gpu_hours && !(*out.max_gpu_hours > 0)) {
    return Fail(doc.ErrorAt(node["max_gpu_hours"], "gates.max_gpu_hours", "must be positive"));
  }
  if (out.max_trials && *out.max_trials < 1) {
    return Fail(doc.ErrorAt(node["max_trials"], "gates.max_trials", "must be at least 1"));
  }
  if (out.trial_max_wall && *out.trial_max_wall <= Duration(0)) {
    return Fail(doc.ErrorAt(node["trial_max_wall"], "gates.trial_max_wall", "must be positive"));
  }
  if (const YAML::Node plateau = node["plateau"]) {
    FRUGAL_TRY(doc.CheckKeys(plateau, "plateau", {"epsilon", "trials", "spend_usd"}));
    PlateauGate p;
    p.epsilon = FRUGAL_TRY(doc.OptionalDouble(plateau, "epsilon")).value_or(0.0);
    p.trials = FRUGAL_TRY(doc.OptionalInt(plateau, "trials"));
    p.spend = FRUGAL_TRY(doc.OptionalMoney(plateau, "spend_usd"));
    if (!p.trials && !p.spend) {
      return Fail(doc.ErrorAt(plateau, "gates.plateau", "needs 'trials' or 'spend_usd'"));
    }
    if (!(p.epsilon >= 0)) {
      return Fail(doc.ErrorAt(plateau["epsilon"], "gates.plateau.epsilon", "must not be negative"));
    }
    if (p.trials && *p.trials < 1) {
      return Fail(doc.ErrorAt(plateau["trials"], "gates.plateau.trials", "must be at least 1"));
    }
    if (p.spend && p.spend->micros() <= 0) {
      return Fail(doc.ErrorAt(plateau["spend_usd"], "gates.plateau.spend_usd", "must be positive"));
    }
    out.plateau = p;
  }
  return {};
}

/// Dollar gates need a price to count against: a budget with no price would never bind.
Result<void> CheckPriced(const YamlDoc& doc, const YAML::Node& root, const StudySpec& spec) {
  const Resources& r = spec.resources;
  const bool priced = !r.offer.empty() || !r.gpu.empty() || r.price_per_gpu_hour.has_value();
  if (r.price_per_gpu_hour && r.price_per_gpu_hour->per_hour.micros() <= 0 &&
      (spec.gates.budget || (spec.gates.plateau && spec.gates.plateau->spend))) {
    return Fail(doc.ErrorAt(root["resources"]["price_per_hour"], "resources.price_per_hour",
                            "is zero, so the dollar gates would never bind"));
  }
  if (priced) return {};
  if (spec.gates.budget) {
    return Fail(doc.ErrorAt(root["gates"]["budget_usd"], "gates.budget_usd",
                            "a dollar budget needs a price: give resources.price_per_hour, "
                            "resources.offer or resources.gpu"));
  }
  if (spec.gates.plateau && spec.gates.plateau->spend) {
    return Fail(doc.ErrorAt(root["gates"]["plateau"]["spend_usd"], "gates.plateau.spend_usd",
                            "counts dollars, so it needs a price: give resources.price_per_hour, "
                            "resources.offer or resources.gpu"));
  }
  return {};
}

Result<void> ParseTrial(const YamlDoc& doc, const YAML::Node& root,
                        const std::filesystem::path& base, StudySpec& out) {
  if (const YAML::Node trial = root["trial"]) {
    FRUGAL_TRY(doc.CheckKeys(trial, "trial", {"command", "chaos"}));
    const YAML::Node command = trial["command"];
    if (command && command.IsScalar()) {
      for (const std::string& word : Split(command.as<std::string>(), ' ')) {
        if (!word.empty()) out.command.push_back(word);
      }
    } else {
      out.command = FRUGAL_TRY(doc.StringList(trial, "command"));
    }
    if (out.command.empty()) return Fail(doc.ErrorAt(trial, "trial.command", "is empty"));
    if (const YAML::Node chaos = trial["chaos"]) {
      FRUGAL_TRY(doc.CheckKeys(chaos, "trial.chaos", {"every", "max"}));
      ChaosSpec c;
      c.every = FRUGAL_TRY(doc.OptionalDuration(chaos, "every")).value_or(Duration(0));
      if (c.every <= Duration(0))
        return Fail(doc.ErrorAt(chaos, "trial.chaos.every", "needs a positive duration"));
      c.max = FRUGAL_TRY(doc.OptionalInt(chaos, "max")).value_or(0);
      if (c.max < 0) return Fail(doc.ErrorAt(chaos["max"], "trial.chaos.max", "must be >= 0"));
      out.chaos = c;
    }
  }
  if (const YAML::Node replay = root["replay"]) {
    FRUGAL_TRY(doc.CheckKeys(replay, "replay", {"dir", "config_column", "cost_column"}));
    ReplaySource source;
    source.dir = FRUGAL_TRY(doc.RequiredString(replay, "dir"));
    if (source.dir.is_relative()) source.dir = base / source.dir;
    source.config_column =
        FRUGAL_TRY(doc.OptionalString(replay, "config_column")).value_or("config_id");
    source.cost_column =
        FRUGAL_TRY(doc.OptionalString(replay, "cost_column")).value_or("elapsed_s");
    out.replay = source;
  }
  if (out.command.empty() == !out.replay.has_value()) {
    return Fail(ErrorCode::kBadInput,
                doc.Where(root) + ": a study needs exactly one of 'trial.command' and 'replay'");
  }
  return {};
}

}  // namespace

RungLadder StudySpec::Ladder() const {
  if (!fidelity.rungs.empty()) return RungLadder{fidelity.rungs, fidelity.reduction_factor};
  RungLadder ladder = GeometricLadder(fidelity.grace, fidelity.max, fidelity.reduction_factor);
  if (!fidelity.early_rungs) return ladder;
  // grace/η, grace/η², …, each rounded down to a whole multiple of min, while one lies at or
  // above min and below the rung above it.
  std::vector<double> early;
  for (double f = fidelity.grace / fidelity.reduction_factor;; f /= fidelity.reduction_factor) {
    const double rung = std::floor(f / fidelity.min + 1e-9) * fidelity.min;
    const double above = early.empty() ? fidelity.grace : early.back();
    if (rung < fidelity.min * (1 - 1e-9) || rung >= above * (1 - 1e-9)) break;
    early.push_back(rung);
  }
  ladder.fidelities.insert(ladder.fidelities.begin(), early.rbegin(), early.rend());
  ladder.early = static_cast<int>(early.size());
  return ladder;
}

std::optional<double> FidelitySpec::LengthOf(const Config& config) const {
  if (scale_by.empty()) return std::nullopt;
  auto it = config.find(scale_by);
  if (it == config.end()) return std::nullopt;
  double length = 0.0;
  if (const auto* d = std::get_if<double>(&it->second)) length = *d;
  if (const auto* i = std::get_if<int64_t>(&it->second)) length = static_cast<double>(*i);
  if (const auto* text = std::get_if<std::string>(&it->second)) {
    if (auto parsed = ParseDouble(*text)) length = *parsed;
  }
  if (!(length > 0)) return std::nullopt;
  return std::min(length, max);
}

double StudySpec::RungFidelity(const RungLadder& ladder, const Config& config, int rung) const {
  const double f = ladder.fidelities[static_cast<size_t>(rung)];
  const std::optional<double> length = fidelity.LengthOf(config);
  if (!length) return f;
  if (rung == ladder.top()) return *length;
  // The rung's share of the trial's own schedule, in whole units (a trial reports per unit).
  return std::clamp(std::ceil(f * *length / fidelity.max - 1e-9), std::min(fidelity.min, *length),
                    *length);
}

bool IsStudyName(std::string_view name) {
  return !name.empty() && name.front() != '.' && name.find_first_of("/\\ ") == std::string::npos;
}

namespace {
Result<StudySpec> ReadStudySpec(const YamlDoc& doc, const std::string& source,
                                const std::filesystem::path& base_dir);
}  // namespace

Result<StudySpec> ParseStudySpec(std::string_view yaml_text, std::string source,
                                 const std::filesystem::path& base_dir) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(yaml_text, source));
  return GuardYaml(doc.source(), [&] { return ReadStudySpec(doc, source, base_dir); });
}

namespace {
Result<StudySpec> ReadStudySpec(const YamlDoc& doc, const std::string& source,
                                const std::filesystem::path& base_dir) {
  const YAML::Node& root = doc.root();
  FRUGAL_TRY(
      doc.CheckKeys(root, "study",
                    {"apiVersion", "kind", "name", "tags", "trial", "replay", "space", "objective",
                     "fidelity", "scheduler", "sampler", "seed", "resources", "gates"}));
  const auto api = FRUGAL_TRY(doc.OptionalString(root, "apiVersion"));
  if (api && *api != "frugal/v1") {
    return Fail(
        doc.ErrorAt(root["apiVersion"], "apiVersion", "unsupported (this frugal reads frugal/v1)"));
  }
  const auto kind = FRUGAL_TRY(doc.OptionalString(root, "kind"));
  if (kind && *kind != "Study") return Fail(doc.ErrorAt(root["kind"], "kind", "expected 'Study'"));
  StudySpec spec;
  spec.source = source;
  spec.base_dir = base_dir;
  spec.name = FRUGAL_TRY(doc.RequiredString(root, "name"));
  if (!IsStudyName(spec.name)) return Fail(doc.ErrorAt(root["name"], "name", kStudyNameRule));
  spec.tags = FRUGAL_TRY(doc.StringMap(root, "tags"));
  FRUGAL_TRY(ParseTrial(doc, root, base_dir, spec));
  spec.space = FRUGAL_TRY(ParseSpace(doc, root["space"]));
  if (spec.space.empty() && !spec.replay) {
    return Fail(ErrorCode::kBadInput, doc.Where(root) + ": a trial command needs a 'space'");
  }
  FRUGAL_TRY(ParseObjective(doc, root["objective"], spec.objective));
  FRUGAL_TRY(ParseFidelity(doc, root["fidelity"], spec.fidelity));
  FRUGAL_TRY(CheckReplayColumns(doc, root, spec));
  FRUGAL_TRY(CheckScaleBy(doc, root["fidelity"], spec));
  FRUGAL_TRY(ParseScheduler(doc, root, spec));
  FRUGAL_TRY(ParseEarlyRungs(doc, root, spec));
  FRUGAL_TRY(ParseSampler(doc, root, spec));
  const auto seed = FRUGAL_TRY(doc.OptionalInt(root, "seed"));
  if (seed && *seed < 0) return Fail(doc.ErrorAt(root["seed"], "seed", "must not be negative"));
  spec.seed = static_cast<uint64_t>(seed.value_or(1));
  FRUGAL_TRY(ParseResources(doc, root["resources"], spec.resources));
  FRUGAL_TRY(ParseGates(doc, root["gates"], spec.gates));
  FRUGAL_TRY(CheckPriced(doc, root, spec));
  return spec;
}
}  // namespace

Result<StudySpec> LoadStudySpec(const std::filesystem::path& path) {
  const std::string text = FRUGAL_TRY(ReadFile(path));
  return ParseStudySpec(text, path.string(), path.parent_path());
}

}  // namespace frugal::tune

namespace frugal::tune {

namespace {

// `yaml_text` with the blocks of the root's `trial` and `replay` keys replaced by `replay_line`
// on the first one's line and blank lines for the rest, so every other field keeps its line
// and column and errors point at the user's file. nullopt unless the root is a block mapping
// with its keys at column 0.
std::optional<std::string> ReplaceSourceBlocks(std::string_view yaml_text, const YAML::Node& root,
                                               const std::string& replay_line) {
  if (!root.IsMap() || root.Style() == YAML::EmitterStyle::Flow) return std::nullopt;
  std::vector<std::pair<int, bool>> keys;  // each root key's line, and whether it is replaced
  for (const auto& entry : root) {
    const YAML::Mark mark = entry.first.Mark();
    if (mark.is_null() || mark.column != 0) return std::nullopt;
    const auto name = entry.first.as<std::string>();
    keys.emplace_back(mark.line, name == "trial" || name == "replay");
  }
  std::sort(keys.begin(), keys.end());
  std::vector<std::string> lines = Split(yaml_text, '\n');
  bool written = false;
  for (size_t k = 0; k < keys.size(); ++k) {
    if (!keys[k].second) continue;
    const auto end = k + 1 < keys.size() ? static_cast<size_t>(keys[k + 1].first) : lines.size();
    for (auto line = static_cast<size_t>(keys[k].first); line < end && line < lines.size();
         ++line) {
      lines[line] = written ? "" : replay_line;
      written = true;
    }
  }
  if (!written) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < lines.size(); ++i) out += lines[i] + (i + 1 < lines.size() ? "\n" : "");
  return out;
}

}  // namespace

Result<std::string> WithReplaySource(std::string_view yaml_text, const ReplaySource& replay) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml_text));
    // Columns at their defaults are left out, so a spec that already names this table reads
    // the same as the file it came from.
    YAML::Node source;
    source["dir"] = replay.dir.string();
    const ReplaySource defaults;
    if (replay.config_column != defaults.config_column)
      source["config_column"] = replay.config_column;
    if (replay.cost_column != defaults.cost_column) source["cost_column"] = replay.cost_column;
    YAML::Emitter flow;
    flow << YAML::Flow << source;
    if (auto kept = ReplaceSourceBlocks(yaml_text, root, std::string("replay: ") + flow.c_str())) {
      return *kept;
    }
    root.remove("trial");
    root["replay"] = source;
    YAML::Emitter out;
    out << root;
    return std::string(out.c_str()) + "\n";
  } catch (const YAML::Exception& e) {
    return Fail(ErrorCode::kBadInput, std::string("study spec: ") + e.what());
  }
}

}  // namespace frugal::tune

#include "frugal/queue/capacity.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "frugal/catalog/gpu_names.h"
#include "frugal/core/text.h"
#include "frugal/core/yaml.h"
#include "frugal/ledger/types.h"

namespace frugal::queue {
namespace {

/// A pool's tier: owned, on_demand or spot, as core/tier.h names them (a pool is not reserved).
Result<CapacityTier> ParsePoolTier(const YamlDoc& doc, const YAML::Node& pool,
                                   const std::string& text) {
  const std::optional<CapacityTier> tier = TierNamed(text);
  if (tier && !IsReservedTier(*tier)) return *tier;
  const std::vector<std::string> names = {"owned", "on_demand", "spot"};
  return doc.FailAt(
      pool["tier"], "tier",
      fmt::format("'{}' is not owned, on_demand or spot{}", text, DidYouMean(text, names)));
}

Result<HourSet> ParseHours(const YamlDoc& doc, const YAML::Node& map, std::string_view what) {
  FRUGAL_TRY(doc.CheckKeys(map, what, {"name", "days", "hours", "price_per_gpu_hour"}));
  const std::string days_text = FRUGAL_TRY(doc.OptionalString(map, "days")).value_or("daily");
  const std::string hours_text = FRUGAL_TRY(doc.OptionalString(map, "hours")).value_or("all");
  auto days = ParseDays(days_text);
  if (!days) return doc.FailAt(map["days"], "days", days.error().message);
  auto hours = ParseHourRange(hours_text);
  if (!hours) return doc.FailAt(map["hours"], "hours", hours.error().message);
  return MakeHourSet(*days, hours->first, hours->second);
}

Result<int> PositiveInt(const YamlDoc& doc, const YAML::Node& map, std::string_view key,
                        int fallback, int min) {
  const std::optional<int64_t> v = FRUGAL_TRY(doc.OptionalInt(map, key));
  if (!v) return fallback;
  if (*v < min || *v > 1'000'000) {
    return doc.FailAt(map[std::string(key)], key,
                      fmt::format("must be a whole number from {} to 1000000", min));
  }
  return static_cast<int>(*v);
}

/// The longest pool name: it is printed in every table and decision.
constexpr size_t kMaxPoolNameBytes = 200;
/// The highest price per GPU-hour a pool may state: well past any GPU rented or owned, so a
/// price past it is a typo (a missing decimal point), not a figure to schedule and bill by.
const Money kMaxPricePerGpuHour = Money::FromDollars(1000);

/// A price per GPU-hour within [0, kMaxPricePerGpuHour].
Result<void> CheckPrice(const YamlDoc& doc, const YAML::Node& at, Money price) {
  if (price < Money()) return doc.FailAt(at, "price_per_gpu_hour", "must not be negative");
  if (price > kMaxPricePerGpuHour) {
    return doc.FailAt(at, "price_per_gpu_hour",
                      fmt::format("{} per GPU-hour is past the most a pool may cost ({})",
                                  price.ToString(), kMaxPricePerGpuHour.ToString()));
  }
  return {};
}

Result<void> ParseSchedule(const YamlDoc& doc, const YAML::Node& node, Pool& pool) {
  if (!node) return {};
  if (!node.IsSequence()) {
    return doc.FailAt(node, "price_schedule",
                      "must be a list of {days, hours, price_per_gpu_hour}");
  }
  for (const YAML::Node& rule : node) {
    const HourSet hours = FRUGAL_TRY(ParseHours(doc, rule, "price_schedule rule"));
    const std::optional<Money> price = FRUGAL_TRY(doc.OptionalMoney(rule, "price_per_gpu_hour"));
    if (!price) return doc.FailAt(rule, "price_per_gpu_hour", "missing: each rule needs a price");
    FRUGAL_TRY(CheckPrice(doc, rule["price_per_gpu_hour"], *price));
    pool.schedule.push_back({hours, *price});
  }
  return {};
}

void FillHourly(Pool& pool) {
  for (size_t h = 0; h < kHoursPerWeek; ++h) {
    double price = pool.price_per_gpu_hour.dollars();
    for (const PriceRule& rule : pool.schedule) {
      if (rule.hours.test(h)) {
        price = rule.per_gpu_hour.dollars();
        break;
      }
    }
    pool.hourly[h] = price;
    pool.hourly_prefix[h + 1] = pool.hourly_prefix[h] + price;
  }
}

/// A pool's GPU model must be one the catalog knows: a misspelt model fits no job that names
/// the right one, and prices nothing. Ambiguous names (H100: SXM or PCIe) are refused too.
Result<void> CheckGpu(const YamlDoc& doc, const YAML::Node& node, const std::string& gpu,
                      const std::vector<std::string>& known) {
  const std::vector<std::string> names = catalog::ResolveGpuName(gpu, known);
  if (names.size() == 1) return {};
  if (names.empty()) {
    return doc.FailAt(
        node["gpu"], "gpu",
        fmt::format("unknown GPU model '{}'{}", Abbreviate(gpu), DidYouMean(gpu, known)));
  }
  return doc.FailAt(
      node["gpu"], "gpu",
      fmt::format("'{}' is ambiguous ({}); name the exact part", gpu, fmt::join(names, ", ")));
}

/// The pool's name, whether it is local or Slurm (its partition and gres), and its tier.
Result<void> ReadPoolKind(const YamlDoc& doc, const YAML::Node& node, Pool& pool) {
  pool.name = FRUGAL_TRY(doc.RequiredString(node, "name"));
  if (pool.name.empty() || pool.name.size() > kMaxPoolNameBytes) {
    return doc.FailAt(
        node["name"], "name",
        fmt::format("give a name of 1 to {} bytes (got {})", kMaxPoolNameBytes, pool.name.size()));
  }
  const std::string kind = FRUGAL_TRY(doc.OptionalString(node, "kind")).value_or("local");
  if (kind == "slurm") {
    pool.kind = PoolKind::kSlurm;
  } else if (kind != "local") {
    return doc.FailAt(node["kind"], "kind", fmt::format("'{}' is not local or slurm", kind));
  }
  const std::string tier = FRUGAL_TRY(doc.RequiredString(node, "tier"));
  pool.tier = FRUGAL_TRY(ParsePoolTier(doc, node, tier));
  pool.partition = FRUGAL_TRY(doc.OptionalString(node, "partition")).value_or("");
  pool.gres = FRUGAL_TRY(doc.OptionalString(node, "gres")).value_or("");
  if (pool.kind == PoolKind::kSlurm && pool.partition.empty()) {
    return doc.FailAt(node, "partition", "missing: a slurm pool names its partition");
  }
  if (pool.kind == PoolKind::kLocal && (!pool.partition.empty() || !pool.gres.empty())) {
    const YAML::Node at = node["partition"] ? node["partition"] : node["gres"];
    return doc.FailAt(at, node["partition"] ? "partition" : "gres", "only a slurm pool has one");
  }
  return {};
}

/// What the pool runs: its offer, its GPUs or CPU slots per node, its nodes and its caps.
Result<void> ReadPoolSize(const YamlDoc& doc, const YAML::Node& node,
                          const std::vector<std::string>& known_gpus, Pool& pool) {
  pool.offer = FRUGAL_TRY(doc.OptionalString(node, "offer")).value_or("");
  pool.gpu = FRUGAL_TRY(doc.OptionalString(node, "gpu")).value_or("");
  if (node["gpu"]) FRUGAL_TRY(CheckGpu(doc, node, pool.gpu, known_gpus));
  pool.gpus_per_node = FRUGAL_TRY(PositiveInt(doc, node, "gpus_per_node", 0, 1));
  pool.cpu_slots = FRUGAL_TRY(PositiveInt(doc, node, "cpu_slots", 0, 1));
  if (!pool.gpu.empty() && pool.gpus_per_node == 0) {
    return doc.FailAt(node, "gpus_per_node", "missing: a GPU pool says how many GPUs a node has");
  }
  if (pool.gpu.empty() && pool.gpus_per_node > 0) {
    return doc.FailAt(node["gpus_per_node"], "gpu", "missing: name the GPU model the nodes carry");
  }
  if (pool.gpu.empty() && pool.cpu_slots == 0) {
    return doc.FailAt(node, "gpu",
                      "missing: a pool runs GPUs (gpu, gpus_per_node) or CPU slots "
                      "(cpu_slots)");
  }
  pool.nodes = FRUGAL_TRY(PositiveInt(doc, node, "nodes", 1, 1));
  // Absent means no cap; a written 0 would read as "no jobs" to one user and "no limit" to
  // another, so it is refused.
  pool.max_jobs = FRUGAL_TRY(PositiveInt(doc, node, "max_jobs", 0, 1));
  pool.max_gpus = FRUGAL_TRY(PositiveInt(doc, node, "max_gpus", 0, 1));
  if (pool.kind == PoolKind::kSlurm && pool.gres.empty() && !pool.gpu.empty()) {
    pool.gres = fmt::format("gpu:{}", pool.gpus_per_node);
  }
  return {};
}

/// What the pool costs (with its price schedule), and on spot how it is preempted.
Result<void> ReadPoolPrice(const YamlDoc& doc, const YAML::Node& node, Pool& pool) {
  const std::optional<Money> price = FRUGAL_TRY(doc.OptionalMoney(node, "price_per_gpu_hour"));
  if (!price && pool.tier != CapacityTier::kOwned) {
    return doc.FailAt(
        node, "price_per_gpu_hour",
        "missing: an on_demand or spot pool needs its price (a missing price is never "
        "zero)");
  }
  pool.price_per_gpu_hour = price.value_or(Money());
  FRUGAL_TRY(CheckPrice(doc, node["price_per_gpu_hour"], pool.price_per_gpu_hour));
  FRUGAL_TRY(ParseSchedule(doc, node["price_schedule"], pool));
  pool.preemptions_per_hour =
      FRUGAL_TRY(doc.OptionalDouble(node, "preemptions_per_hour")).value_or(0.0);
  if (pool.preemptions_per_hour < 0 || pool.preemptions_per_hour > 100) {
    return doc.FailAt(node["preemptions_per_hour"], "preemptions_per_hour",
                      "must be from 0 to 100");
  }
  if (pool.tier != CapacityTier::kSpot && node["preemptions_per_hour"]) {
    return doc.FailAt(node["preemptions_per_hour"], "preemptions_per_hour",
                      "only a spot pool is preempted");
  }
  pool.trace = FRUGAL_TRY(doc.OptionalString(node, "trace")).value_or("");
  if (!pool.trace.empty() && pool.tier != CapacityTier::kSpot) {
    return doc.FailAt(node["trace"], "trace", "only a spot pool has an availability trace");
  }
  if (!pool.trace.empty()) pool.trace_where = doc.Where(node["trace"]) + ": field 'trace'";
  pool.changeover = FRUGAL_TRY(doc.OptionalDuration(node, "changeover")).value_or(pool.changeover);
  return {};
}

Result<Pool> ParsePool(const YamlDoc& doc, const YAML::Node& node,
                       const std::vector<std::string>& known_gpus) {
  FRUGAL_TRY(
      doc.CheckKeys(node, "pool",
                    {"name", "kind", "tier", "partition", "gres", "offer", "gpu", "gpus_per_node",
                     "cpu_slots", "nodes", "max_jobs", "max_gpus", "price_per_gpu_hour",
                     "price_schedule", "preemptions_per_hour", "trace", "changeover"}));
  Pool pool;
  pool.line = static_cast<int>(node.Mark().line) + 1;
  FRUGAL_TRY(ReadPoolKind(doc, node, pool));
  FRUGAL_TRY(ReadPoolSize(doc, node, known_gpus, pool));
  FRUGAL_TRY(ReadPoolPrice(doc, node, pool));
  FillHourly(pool);
  return pool;
}

Result<TeamBudget> ParseBudget(const YamlDoc& doc, const YAML::Node& node) {
  FRUGAL_TRY(doc.CheckKeys(node, "budget", {"tag", "period", "limit"}));
  TeamBudget b;
  b.line = static_cast<int>(node.Mark().line) + 1;
  const std::string text = FRUGAL_TRY(doc.RequiredString(node, "tag"));
  const Result<ledger::Tag> tag = ledger::ParseTag(text);
  if (!tag || tag->value.empty()) {
    return doc.FailAt(node["tag"], "tag",
                      fmt::format("'{}' is not key=value (e.g. team=nlp)", text));
  }
  b.tag_key = tag->key;
  b.tag_value = tag->value;
  const std::string period = FRUGAL_TRY(doc.OptionalString(node, "period")).value_or("month");
  if (period == "week") {
    b.period = BudgetPeriod::kWeek;
  } else if (period == "quarter") {
    b.period = BudgetPeriod::kQuarter;
  } else if (period != "month") {
    return doc.FailAt(node["period"], "period",
                      fmt::format("'{}' is not week, month or quarter", period));
  }
  const std::optional<Money> limit = FRUGAL_TRY(doc.OptionalMoney(node, "limit"));
  if (!limit || *limit <= Money()) {
    return doc.FailAt(node["limit"] ? node["limit"] : node, "limit", "must be a positive amount");
  }
  b.limit = *limit;
  return b;
}

std::vector<Window> BuiltInWindows() {
  const HourSet nights = MakeHourSet(0x7f, 22, 6);
  const HourSet weekends = MakeHourSet(0x60, 0, 24);
  return {{"nights", nights}, {"weekends", weekends}, {"off_peak", nights | weekends}};
}

// pools: a non-empty list, each pool named once.
Result<void> ReadPools(const YamlDoc& doc, Capacity& cap) {
  const YAML::Node& root = doc.root();
  const YAML::Node pools = root["pools"];
  if (!pools || !pools.IsSequence() || pools.size() == 0) {
    return doc.FailAt(pools ? pools : root, "pools", "must be a non-empty list of pools");
  }
  std::set<std::string> names;
  for (const YAML::Node& node : pools) {
    Pool pool = FRUGAL_TRY(ParsePool(doc, node, cap.known_gpus));
    if (!names.insert(pool.name).second) {
      return doc.FailAt(node["name"], "name", fmt::format("pool '{}' is named twice", pool.name));
    }
    cap.pools.push_back(std::move(pool));
  }
  return {};
}

// windows: the spec's own, after the built-in ones, each named once.
Result<void> ReadWindows(const YamlDoc& doc, Capacity& cap) {
  cap.windows = BuiltInWindows();
  const YAML::Node windows = doc.root()["windows"];
  if (!windows) return {};
  if (!windows.IsSequence()) return doc.FailAt(windows, "windows", "must be a list");
  for (const YAML::Node& node : windows) {
    const std::string name = FRUGAL_TRY(doc.RequiredString(node, "name"));
    if (node["price_per_gpu_hour"]) {
      return doc.FailAt(node["price_per_gpu_hour"], "price_per_gpu_hour",
                        "a window has no price (prices go in a pool's price_schedule)");
    }
    // A built-in name (nights, weekends, off_peak) would be found first and this one ignored.
    const size_t builtin = BuiltInWindows().size();
    for (size_t i = 0; i < cap.windows.size(); ++i) {
      if (cap.windows[i].name == name) {
        return doc.FailAt(node["name"], "name",
                          fmt::format("window '{}' is named twice{}", name,
                                      i < builtin ? " (it is built in)" : ""));
      }
    }
    cap.windows.push_back({name, FRUGAL_TRY(ParseHours(doc, node, "window"))});
  }
  return {};
}

// budgets: at most one per tag and period.
Result<void> ReadBudgets(const YamlDoc& doc, Capacity& cap) {
  const YAML::Node budgets = doc.root()["budgets"];
  if (!budgets) return {};
  if (!budgets.IsSequence()) return doc.FailAt(budgets, "budgets", "must be a list");
  for (const YAML::Node& node : budgets) {
    TeamBudget b = FRUGAL_TRY(ParseBudget(doc, node));
    for (const TeamBudget& o : cap.budgets) {
      if (o.tag_key == b.tag_key && o.tag_value == b.tag_value && o.period == b.period) {
        return doc.FailAt(node, "budgets",
                          fmt::format("{}={} already has a {} budget (line {})", b.tag_key,
                                      b.tag_value, PeriodName(b.period), o.line));
      }
    }
    cap.budgets.push_back(std::move(b));
  }
  return {};
}

Result<Capacity> FromDoc(const YamlDoc& doc, const std::vector<std::string>& known_gpus) {
  const YAML::Node& root = doc.root();
  FRUGAL_TRY(
      doc.CheckKeys(root, "capacity", {"apiVersion", "kind", "pools", "windows", "budgets"}));
  if (FRUGAL_TRY(doc.RequiredString(root, "apiVersion")) != "frugal/v1") {
    return doc.FailAt(root["apiVersion"], "apiVersion", "must be frugal/v1");
  }
  if (FRUGAL_TRY(doc.RequiredString(root, "kind")) != "Capacity") {
    return doc.FailAt(root["kind"], "kind", "must be Capacity");
  }
  Capacity cap;
  cap.known_gpus = known_gpus;
  cap.source = doc.source();
  FRUGAL_TRY(ReadPools(doc, cap));
  FRUGAL_TRY(ReadWindows(doc, cap));
  FRUGAL_TRY(ReadBudgets(doc, cap));
  return cap;
}

}  // namespace

const char* PoolKindName(PoolKind kind) { return kind == PoolKind::kSlurm ? "slurm" : "local"; }

const char* PeriodName(BudgetPeriod period) { return CalendarPeriodName(period).data(); }

Seconds PeriodStart(BudgetPeriod period, Seconds t) {
  const PeriodBounds b = PeriodAround(period, Timestamp(std::chrono::seconds(t)));
  return std::chrono::floor<std::chrono::seconds>(b.start).time_since_epoch().count();
}

double Pool::UnitCost(Seconds start, Seconds end) const {
  if (end <= start) return 0;
  if (!HasSchedule())
    return price_per_gpu_hour.dollars() * static_cast<double>(end - start) / 3600.0;
  // Whole weeks, then the hours of the rest by the prefix sums, the partial hours at the ends
  // at their own hour's price.
  const double week = hourly_prefix[kHoursPerWeek];
  const Seconds span = end - start;
  const Seconds week_seconds = Seconds{kHoursPerWeek} * 3600;
  const Seconds weeks = span / week_seconds;
  double cost = static_cast<double>(weeks) * week;
  Seconds t = start + weeks * week_seconds;
  const Seconds first_hour_end = (t / 3600 + 1) * 3600;
  if (end <= first_hour_end) return cost + PriceAt(t) * static_cast<double>(end - t) / 3600.0;
  cost += PriceAt(t) * static_cast<double>(first_hour_end - t) / 3600.0;
  t = first_hour_end;
  const Seconds whole = (end - t) / 3600;
  const int h0 = HourOfWeek(t);
  const auto h = static_cast<size_t>(h0);
  const auto n = static_cast<size_t>(whole);
  if (h + n <= kHoursPerWeek) {
    cost += hourly_prefix[h + n] - hourly_prefix[h];
  } else {
    cost += hourly_prefix[kHoursPerWeek] - hourly_prefix[h] + hourly_prefix[h + n - kHoursPerWeek];
  }
  t += whole * 3600;
  return cost + PriceAt(t) * static_cast<double>(end - t) / 3600.0;
}

const Pool* Capacity::FindPool(std::string_view name) const {
  for (const Pool& p : pools) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

Result<HourSet> Capacity::FindWindow(std::string_view name) const {
  std::vector<std::string> names;
  for (const Window& w : windows) {
    if (w.name == name) return w.hours;
    names.push_back(w.name);
  }
  return Fail(ErrorCode::kBadInput,
              fmt::format("unknown window '{}'{}", name, DidYouMean(name, names)));
}

Result<Capacity> LoadCapacity(const std::filesystem::path& path,
                              const std::vector<std::string>& known_gpus) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Load(path));
  return FromDoc(doc, known_gpus);
}

Result<std::string> Capacity::PoolGpuFor(const std::string& gpu) const {
  std::vector<std::string> pool_gpus;
  for (const Pool& p : pools) {
    if (p.gpu == gpu) return gpu;
    if (!p.gpu.empty() && std::find(pool_gpus.begin(), pool_gpus.end(), p.gpu) == pool_gpus.end())
      pool_gpus.push_back(p.gpu);
  }
  const std::vector<std::string>& known = known_gpus.empty() ? pool_gpus : known_gpus;
  const std::vector<std::string> wanted = catalog::ResolveGpuName(gpu, known);
  std::vector<std::string> matches;
  for (const std::string& p : pool_gpus) {
    for (const std::string& name : catalog::ResolveGpuName(p, known)) {
      if (std::find(wanted.begin(), wanted.end(), name) != wanted.end()) {
        matches.push_back(p);
        break;
      }
    }
  }
  if (matches.size() == 1) return matches.front();
  if (!matches.empty()) {
    return Fail(ErrorCode::kBadInput,
                fmt::format("'{}' names the GPUs of pools of more than one model ({}); name one",
                            Abbreviate(gpu), fmt::join(matches, ", ")));
  }
  const std::string pools_have = pool_gpus.empty()
                                     ? "no pool has GPUs"
                                     : fmt::format("the pools have {}", fmt::join(pool_gpus, ", "));
  if (wanted.empty()) {
    std::vector<std::string> names = pool_gpus;
    names.insert(names.end(), known_gpus.begin(), known_gpus.end());
    return Fail(ErrorCode::kBadInput, fmt::format("unknown GPU model '{}'{} ({})", Abbreviate(gpu),
                                                  DidYouMean(gpu, names), pools_have));
  }
  return Fail(ErrorCode::kBadInput,
              fmt::format("no pool has a {} ({})", Abbreviate(gpu), pools_have));
}

Result<Capacity> ParseCapacity(std::string_view text, const std::string& source,
                               const std::vector<std::string>& known_gpus) {
  const YamlDoc doc = FRUGAL_TRY(YamlDoc::Parse(text, source));
  return FromDoc(doc, known_gpus);
}

}  // namespace frugal::queue

#include "run_support.h"

#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <iostream>
#include <random>

#include <fmt/format.h>

#include "frugal/catalog/catalog.h"
#include "frugal/core/paths.h"
#include "frugal/core/text.h"
#include "frugal/run/metadata_notice.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;

Result<Duration> ParseOptionDuration(const std::string& option, const std::string& text) {
  Result<Duration> d = ParseDuration(text);
  if (!d) return Fail(ErrorCode::kBadInput, fmt::format("option {}: {}", option, d.error().message));
  return d;
}

std::string DefaultRunId() {
  if (const char* job = std::getenv("SLURM_JOB_ID"); job != nullptr && *job != '\0') {
    return std::string("slurm-") + job;  // a requeued Slurm job keeps its id: it resumes
  }
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  ::gmtime_r(&now, &tm);
  std::random_device rd;
  return fmt::format("r-{:04}{:02}{:02}-{:02}{:02}{:02}-{:04x}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, rd() & 0xffff);
}

struct Pricing {
  Rate rate;
  int gpus = 1;
  std::string offer, tier;
};

Result<Pricing> ResolvePricing(const SuperviseOptions& o, const GlobalOptions& global) {
  const int given = (o.price.empty() ? 0 : 1) + (o.offer.empty() ? 0 : 1) + (o.gpu.empty() ? 0 : 1);
  if (given != 1) {
    return Fail(ErrorCode::kBadInput,
                "say what the run is priced at: exactly one of --price 3.06/h, --offer CLOUD:INSTANCE:REGION:TIER "
                "or --gpu MODEL [--gpus N --tier T]");
  }
  Pricing p;
  if (!o.price.empty()) {
    Result<Rate> rate = Rate::Parse(o.price);
    if (!rate) return Fail(ErrorCode::kBadInput, "option --price: " + rate.error().message);
    p.rate = *rate;
    p.gpus = o.gpus > 0 ? o.gpus : 1;
    return p;
  }
  std::vector<fs::path> custom;
  if (!global.catalog.empty()) custom.emplace_back(global.catalog);
  const catalog::Catalog c = FRUGAL_TRY(catalog::Catalog::LoadDefault(custom));
  const catalog::Offer* chosen = nullptr;
  if (!o.offer.empty()) {
    for (const catalog::Offer& offer : c.offers()) {
      if (ToLower(offer.Id()) == ToLower(o.offer)) {
        chosen = &offer;
        break;
      }
    }
    if (chosen == nullptr) {
      return Fail(ErrorCode::kBadInput, fmt::format("option --offer: no offer '{}' in the catalog (see "
                                                    "`frugal catalog offers`; ids are CLOUD:INSTANCE:REGION:TIER)",
                                                    o.offer));
    }
  } else {
    catalog::OfferQuery q;
    q.gpu = o.gpu;
    q.min_gpus = o.gpus > 0 ? o.gpus : 1;
    Result<catalog::Tier> tier = catalog::ParseTier(o.tier);
    if (!tier) return Fail(ErrorCode::kBadInput, "option --tier: " + tier.error().message);
    q.tier = *tier;
    q.limit = 1;
    const auto offers = FRUGAL_TRY(c.Query(q));
    if (offers.empty()) {
      return Fail(ErrorCode::kBadInput, fmt::format("no {} offer with at least {} x {}", o.tier, q.min_gpus, o.gpu));
    }
    chosen = offers.front();
  }
  p.rate = chosen->price;
  p.gpus = std::max(chosen->gpu_count, 1);
  p.offer = chosen->Id();
  p.tier = std::string(catalog::TierName(chosen->tier));
  return p;
}

}  // namespace

void AddSuperviseOptions(CLI::App* cmd, SuperviseOptions& o) {
  cmd->add_option("--price", o.price, "Price of the capacity, e.g. 3.06/h (for capacity not in the catalog)");
  cmd->add_option("--offer", o.offer, "Catalog offer CLOUD:INSTANCE:REGION:TIER");
  cmd->add_option("--gpu", o.gpu, "GPU model: run priced at the cheapest matching offer");
  cmd->add_option("--gpus", o.gpus, "GPU count (with --gpu: at least this many; with --price: for GPU-hours)");
  cmd->add_option("--tier", o.tier, "Tier for --gpu: spot, on_demand, reserved_1y, reserved_3y")->capture_default_str();
  cmd->add_option("--budget", o.budget, "Dollar cap, e.g. 50");
  cmd->add_option("--max-gpu-hours", o.max_gpu_hours, "GPU-hour cap");
  cmd->add_option("--max-wall", o.max_wall, "Wall-clock cap, e.g. 6h");
  cmd->add_option("--tag", o.tags, "Tag k=v recorded on every row (repeatable)");
  cmd->add_option("--run-id", o.run_id, "Run id; reuse one to resume a requeued run (default: new, or slurm-$SLURM_JOB_ID)");
  cmd->add_option("--run-dir", o.run_dir, "Directory of the run's journal and checkpoints (default: data dir/runs/ID)");
  cmd->add_option("--grace", o.grace, "Time to checkpoint after a notice, before SIGTERM")->capture_default_str();
  cmd->add_option("--stop-grace", o.stop_grace, "Time to exit after SIGTERM, before SIGKILL")->capture_default_str();
  cmd->add_option("--accrual-interval", o.accrual, "How often spend is accrued and caps checked")->capture_default_str();
  cmd->add_option("--heartbeat-interval", o.heartbeat, "How often usage is recorded")->capture_default_str();
  cmd->add_option("--sample-interval", o.sample, "How often utilization is sampled")->capture_default_str();
  cmd->add_option("--keep-checkpoints", o.keep_checkpoints, "Committed checkpoints kept")->capture_default_str();
  cmd->add_option("--metadata", o.metadata, "Poll a cloud metadata endpoint for preemption notices: aws, gcp, azure");
  cmd->add_option("--metadata-endpoint", o.metadata_endpoint, "Metadata endpoint URL (default: the cloud's own)");
  cmd->add_option("--metadata-interval", o.metadata_interval, "Metadata poll interval")->capture_default_str();
  cmd->add_option("command", o.command, "The training command, after --")->required();
}

Result<run::SupervisorConfig> BuildSupervisorConfig(const SuperviseOptions& o, const GlobalOptions& global) {
  run::SupervisorConfig c;
  const Pricing p = FRUGAL_TRY(ResolvePricing(o, global));
  c.price = p.rate;
  c.gpus = p.gpus;
  c.offer = p.offer;
  c.tier = p.tier;
  if (!o.budget.empty()) {
    Result<Money> budget = Money::Parse(o.budget);
    if (!budget || *budget <= Money()) {
      return Fail(ErrorCode::kBadInput, fmt::format("option --budget: '{}' is not a positive amount", o.budget));
    }
    c.caps.dollars = *budget;
  }
  if (o.max_gpu_hours >= 0) {
    if (o.max_gpu_hours == 0) return Fail(ErrorCode::kBadInput, "option --max-gpu-hours: must be positive");
    c.caps.gpu_hours = o.max_gpu_hours;
  }
  if (!o.max_wall.empty()) c.caps.wall = FRUGAL_TRY(ParseOptionDuration("--max-wall", o.max_wall));
  for (const std::string& tag : o.tags) {
    const size_t eq = tag.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Fail(ErrorCode::kBadInput, fmt::format("option --tag: '{}' is not KEY=VALUE", tag));
    }
    c.tags[tag.substr(0, eq)] = tag.substr(eq + 1);
  }
  c.checkpoint_grace = FRUGAL_TRY(ParseOptionDuration("--grace", o.grace));
  c.stop_grace = FRUGAL_TRY(ParseOptionDuration("--stop-grace", o.stop_grace));
  c.accrual_interval = FRUGAL_TRY(ParseOptionDuration("--accrual-interval", o.accrual));
  c.heartbeat_interval = FRUGAL_TRY(ParseOptionDuration("--heartbeat-interval", o.heartbeat));
  c.sample_interval = FRUGAL_TRY(ParseOptionDuration("--sample-interval", o.sample));
  if (c.accrual_interval.count() <= 0) return Fail(ErrorCode::kBadInput, "option --accrual-interval: must be positive");
  if (o.keep_checkpoints < 1) return Fail(ErrorCode::kBadInput, "option --keep-checkpoints: must be at least 1");
  c.keep_checkpoints = o.keep_checkpoints;
  c.command = o.command;
  c.run_id = o.run_id.empty() ? DefaultRunId() : o.run_id;
  if (c.run_id.find('/') != std::string::npos || c.run_id.find("..") != std::string::npos) {
    return Fail(ErrorCode::kBadInput, fmt::format("option --run-id: '{}' may not contain '/' or '..'", c.run_id));
  }
  c.run_dir = o.run_dir.empty() ? UserDataDir() / "runs" / c.run_id : fs::path(o.run_dir);
  c.child_stdout = global.json ? run::ChildStdout::kToStderr : run::ChildStdout::kInherit;
  return c;
}

Result<std::unique_ptr<run::PreemptionSource>> MetadataSource(const SuperviseOptions& o) {
  if (o.metadata.empty()) {
    if (!o.metadata_endpoint.empty()) return Fail(ErrorCode::kBadInput, "option --metadata-endpoint needs --metadata");
    return std::unique_ptr<run::PreemptionSource>();
  }
  Result<run::MetadataKind> kind = run::ParseMetadataKind(o.metadata);
  if (!kind) return Fail(ErrorCode::kBadInput, "option --metadata: " + kind.error().message);
  const Duration interval = FRUGAL_TRY(ParseOptionDuration("--metadata-interval", o.metadata_interval));
  const std::string endpoint = o.metadata_endpoint.empty() ? run::DefaultMetadataEndpoint(*kind) : o.metadata_endpoint;
  return std::unique_ptr<run::PreemptionSource>(std::make_unique<run::MetadataPreemptions>(*kind, endpoint, interval));
}

}  // namespace frugal::cli

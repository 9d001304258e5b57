// frugal catalog gpus|offers|info|import: what can be rented, at what price.

#include <fmt/format.h>

#include <charconv>
#include <chrono>
#include <ctime>
#include <iostream>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/catalog/offer_json.h"
#include "frugal/catalog/offer_table.h"
#include "frugal/catalog/skypilot_import.h"
#include "frugal/core/paths.h"
#include "frugal/core/table.h"

namespace frugal::cli {
namespace {

namespace fs = std::filesystem;
using catalog::Catalog;
using catalog::Offer;

nlohmann::json Optional(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}

std::string Tflops(const std::optional<double>& v) { return v ? fmt::format("{:g}", *v) : "-"; }

Result<void> RunGpus(const GlobalOptions& global, Streams& s) {
  // GPUs only: the offer table (1 MB and more) is not read.
  const std::vector<catalog::GpuSpec> all = FRUGAL_TRY(Catalog::LoadDefaultGpus());
  if (global.json) {
    nlohmann::json gpus = nlohmann::json::array();
    for (const auto& g : all) {
      gpus.push_back({{"name", g.name},
                      {"memory_gib", g.memory_gib},
                      {"memory_bandwidth_gbps", g.memory_bandwidth_gbps > 0
                                                    ? nlohmann::json(g.memory_bandwidth_gbps)
                                                    : nlohmann::json()},
                      {"dense_tflops",
                       {{"fp32", Optional(g.fp32_tflops)},
                        {"tf32", Optional(g.tf32_tflops)},
                        {"bf16_fp16", Optional(g.bf16_tflops)},
                        {"fp8", Optional(g.fp8_tflops)}}},
                      {"architecture", g.architecture},
                      {"tensor_cores", g.tensor_cores},
                      {"estimated", g.estimated},
                      {"source", g.source_url},
                      {"notes", g.notes}});
    }
    WriteJson(s, {{"gpus", gpus}});
    return {};
  }
  Table t({{"GPU"},
           {"MEMORY", Align::kRight},
           {"BW GB/s", Align::kRight},
           {"FP32", Align::kRight},
           {"TF32", Align::kRight},
           {"BF16/FP16", Align::kRight},
           {"FP8", Align::kRight},
           {"ARCH"},
           {"SOURCE"}});
  bool any_estimated = false;
  for (const auto& g : all) {
    any_estimated = any_estimated || g.estimated;
    t.AddRow({g.estimated ? g.name + " (est.)" : g.name, fmt::format("{:g} GiB", g.memory_gib),
              g.memory_bandwidth_gbps > 0 ? fmt::format("{:g}", g.memory_bandwidth_gbps) : "-",
              Tflops(g.fp32_tflops), Tflops(g.tf32_tflops), Tflops(g.bf16_tflops),
              Tflops(g.fp8_tflops), g.architecture.empty() ? "-" : g.architecture, g.source_url});
  }
  t.Render(s.out);
  s.out << "Dense TFLOPS per GPU (no sparsity). '-': not published; such GPUs can be listed but "
           "not timed.\n";
  if (any_estimated) {
    s.out << "(est.): figures derived from sparse, boost, per-board or community figures (the "
             "derivation is in --json's notes), not a vendor's dense per-GPU datasheet value.\n";
  }
  return {};
}

struct OffersOptions {
  std::string gpu, cloud, region, tier, sort = "price", cpu_class;
  bool cpu = false;
  int min_gpus = 0;
  double min_vcpus = 0, min_ram_gib = 0;
  std::string max_price;
  size_t limit = 0;
};

/// The catalog query the flags ask for; kBadInput naming the flag that is wrong.
Result<catalog::OfferQuery> OfferQueryFrom(const OffersOptions& opts) {
  catalog::OfferQuery q;
  if (opts.cpu && !opts.gpu.empty() && !catalog::IsCpuName(opts.gpu)) {
    return Fail(
        ErrorCode::kBadInput,
        fmt::format("--cpu lists CPU offers; it cannot be combined with --gpu {}", opts.gpu));
  }
  if (!opts.gpu.empty()) q.gpu = opts.gpu;
  if (opts.cpu) q.gpu = "CPU";
  if (!opts.cpu_class.empty()) {
    q.cpu_class = FRUGAL_TRY(catalog::ParseCpuClass(opts.cpu_class).map_error([](const Error& e) {
      return e.Wrap("--cpu-class");
    }));
  }
  q.min_vcpus = opts.min_vcpus;
  q.min_ram_gib = opts.min_ram_gib;
  if (!opts.cloud.empty()) q.cloud = opts.cloud;
  if (!opts.region.empty()) q.region = opts.region;
  if (!opts.tier.empty())
    q.tier = FRUGAL_TRY(
        ParseRentedTier(opts.tier).map_error([](const Error& e) { return e.Wrap("--tier"); }));
  if (!opts.max_price.empty()) {
    q.max_price_per_hour = FRUGAL_TRY(Money::Parse(opts.max_price).map_error([](const Error& e) {
      return e.Wrap("--max-price");
    }));
    if (q.max_price_per_hour->micros() < 0) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("--max-price: must not be negative, got '{}'", opts.max_price));
    }
  }
  q.min_gpus = opts.min_gpus;
  q.sort = opts.sort == "price_per_gpu" ? catalog::OfferQuery::Sort::kPricePerGpu
                                        : catalog::OfferQuery::Sort::kPrice;
  q.limit = opts.limit;
  return q;
}

/// The offers as a table, marking estimated prices.
void PrintOffers(const std::vector<const Offer*>& offers, Streams& s) {
  Table t({{"CLOUD"},
           {"INSTANCE"},
           {"REGION"},
           {"ZONE"},
           {"GPU"},
           {"N", Align::kRight},
           {"VCPU", Align::kRight},
           {"RAM", Align::kRight},
           {"TIER"},
           {"$/HOUR", Align::kRight},
           {"$/GPU-HOUR", Align::kRight}});
  bool any_estimated = false;
  for (const Offer* o : offers) {
    any_estimated = any_estimated || o->price_estimated;
    const std::string mark = o->price_estimated ? " (est.)" : "";
    t.AddRow({o->cloud, o->instance_type, o->region, o->zone.empty() ? "-" : o->zone,
              o->gpu.empty()
                  ? fmt::format("cpu ({})", catalog::CpuClassName(catalog::ClassifyCpuOffer(*o)))
                  : o->gpu,
              o->IsGpuShare() ? catalog::ShareLabel(o->gpu_fraction) : std::to_string(o->gpu_count),
              fmt::format("{:g}", o->vcpus), fmt::format("{:g} GiB", o->ram_gib),
              std::string(CapacityTierName(o->tier)), o->price.per_hour.ToString() + mark,
              o->gpu.empty() ? std::string("-") : o->PricePerGpuHour().ToString() + mark});
  }
  t.Render(s.out);
  if (any_estimated) {
    s.out << "(est.): reserved prices derived from documented discount factors "
             "(data/catalog/reserved_discounts.csv), not listed prices.\n";
  }
}

Result<void> RunOffers(const OffersOptions& opts, const GlobalOptions& global, Streams& s) {
  const Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const catalog::OfferQuery q = FRUGAL_TRY(OfferQueryFrom(opts));
  const auto offers = FRUGAL_TRY(c.Query(q));
  if (global.json) {
    WriteJson(s, catalog::OfferListJson(offers, c.info().snapshot_date));
    return {};
  }
  if (offers.empty()) {
    s.out << "No offers match.\n";
    return {};
  }
  PrintOffers(offers, s);
  return {};
}

Result<void> RunInfo(const GlobalOptions& global, Streams& s) {
  const Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const auto& info = c.info();
  if (global.json) {
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& [cloud, tiers] : info.counts) counts[cloud] = tiers;
    std::vector<std::string> custom;
    for (const auto& f : info.custom_files) custom.push_back(f.string());
    WriteJson(s, {{"snapshot_date", info.snapshot_date},
                  {"in_use", info.imported ? "imported" : "shipped"},
                  {"offers_file", info.offers_path.string()},
                  {"sources", info.sources},
                  {"custom_files", custom},
                  {"gpus", c.gpus().size()},
                  {"offers", c.offers().size()},
                  {"counts", counts}});
    return {};
  }
  s.out << fmt::format("Catalog in use: {} ({})\n", info.imported ? "imported" : "shipped snapshot",
                       info.offers_path.string());
  s.out << fmt::format("Snapshot date:  {}\n", info.snapshot_date);
  for (const auto& src : info.sources) s.out << "Source:         " << src << "\n";
  for (const auto& f : info.custom_files) s.out << "Custom offers:  " << f.string() << "\n";
  s.out << fmt::format("GPU models: {}; offers: {}\n\n", c.gpus().size(), c.offers().size());
  const std::vector<std::string> tiers = {"on_demand", "spot", "reserved_1y", "reserved_3y"};
  Table t({{"CLOUD"},
           {"ON_DEMAND", Align::kRight},
           {"SPOT", Align::kRight},
           {"RESERVED_1Y*", Align::kRight},
           {"RESERVED_3Y*", Align::kRight}});
  for (const auto& [cloud, counts] : info.counts) {
    std::vector<std::string> row = {cloud};
    for (const auto& tier : tiers) {
      auto it = counts.find(tier);
      row.push_back(std::to_string(it == counts.end() ? 0 : it->second));
    }
    t.AddRow(row);
  }
  t.Render(s.out);
  s.out << "*: reserved prices are estimated from documented discount factors.\n";
  return {};
}

struct ImportOptions {
  std::vector<std::string> inputs;
  std::string output;
  std::string snapshot_date;
  bool replace = false;
};

std::string Today() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  return fmt::format("{:04d}-{:02d}-{:02d}", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

/// kBadInput unless `text` is a calendar date written YYYY-MM-DD.
Result<void> CheckDate(std::string_view option, const std::string& text) {
  auto number = [&](size_t pos, size_t count) -> std::optional<int> {
    int n = 0;
    const char* begin = text.data() + pos;
    const auto [end, ec] = std::from_chars(begin, begin + count, n);
    if (ec != std::errc() || end != begin + count) return std::nullopt;
    return n;
  };
  if (text.size() == 10 && text[4] == '-' && text[7] == '-') {
    const auto y = number(0, 4), m = number(5, 2), d = number(8, 2);
    if (y && m && d && *m > 0 && *d > 0 &&
        std::chrono::year_month_day(std::chrono::year(*y),
                                    std::chrono::month(static_cast<unsigned>(*m)),
                                    std::chrono::day(static_cast<unsigned>(*d)))
            .ok()) {
      return {};
    }
  }
  return Fail(ErrorCode::kBadInput,
              fmt::format("{}: '{}' is not a date written YYYY-MM-DD", option, text));
}

/// The SkyPilot tables named on the command line, read against the shipped GPU table.
Result<catalog::ImportResult> ImportTables(const ImportOptions& opts) {
  const auto gpus = FRUGAL_TRY(catalog::ReadGpuTable(ShippedDataDir() / "gpus.csv"));
  std::vector<std::string> known;
  std::map<std::string, double> memory;
  for (const auto& g : gpus) {
    known.push_back(g.name);
    memory[g.name] = g.memory_gib;
  }
  std::vector<fs::path> inputs(opts.inputs.begin(), opts.inputs.end());
  const catalog::GpuShares shares = FRUGAL_TRY(catalog::LoadShippedGpuShares());
  return catalog::ImportSkyPilot(inputs, known, &shares, &memory);
}

/// Adds the offers and sources of the catalog in use for the clouds `clouds` does not name.
Result<void> KeepOtherClouds(const std::set<std::string>& clouds, std::vector<Offer>& offers,
                             catalog::SnapshotMeta& meta) {
  const Catalog current = FRUGAL_TRY(Catalog::LoadDefault());
  const auto table = FRUGAL_TRY(
      catalog::ReadOfferTable(current.info().offers_path, catalog::OfferSource::kShipped));
  for (const Offer& o : table) {
    if (!clouds.contains(o.cloud)) offers.push_back(o);
  }
  for (const auto& src : current.info().sources) {
    bool covered = false;
    for (const auto& cloud : clouds) covered = covered || src.starts_with(cloud + " ");
    if (!covered) meta.sources.push_back(src);
  }
  return {};
}

void ReportImport(const catalog::ImportResult& imported, size_t offers_written, const fs::path& dir,
                  const GlobalOptions& global, Streams& s) {
  nlohmann::json files = nlohmann::json::array();
  for (const auto& r : imported.reports) {
    files.push_back({{"file", r.file.string()},
                     {"cloud", r.cloud},
                     {"rows", r.rows_read},
                     {"offers", r.offers},
                     {"gpu_share_rows", r.gpu_shares},
                     {"skipped", r.skipped},
                     {"unknown_gpus", r.unknown_gpus}});
  }
  if (global.json) {
    WriteJson(s, {{"files", files},
                  {"offers_written", offers_written},
                  {"output", (dir / "offers.csv").string()}});
    return;
  }
  for (const auto& r : imported.reports) {
    s.out << fmt::format("{}: {} rows, {} offers ({})\n", r.file.string(), r.rows_read, r.offers,
                         r.cloud);
    if (r.gpu_shares > 0) {
      s.out << fmt::format("  {} rows are a share of a GPU (data/catalog/gpu_fractions.csv)\n",
                           r.gpu_shares);
    }
    for (const auto& [reason, n] : r.skipped)
      s.out << fmt::format("  skipped {:>5}  {}\n", n, reason);
    for (const auto& [name, n] : r.unknown_gpus)
      s.out << fmt::format("  unknown GPU '{}': {} rows\n", name, n);
  }
  s.out << fmt::format("Wrote {} offers to {}\n", offers_written, (dir / "offers.csv").string());
}

Result<void> RunImport(const ImportOptions& opts, const GlobalOptions& global, Streams& s) {
  if (!opts.snapshot_date.empty()) FRUGAL_TRY(CheckDate("--snapshot-date", opts.snapshot_date));
  catalog::ImportResult imported = FRUGAL_TRY(ImportTables(opts));

  std::vector<Offer> offers;
  catalog::SnapshotMeta meta;
  meta.snapshot_date = opts.snapshot_date.empty() ? Today() : opts.snapshot_date;
  std::set<std::string> clouds;
  for (const auto& r : imported.reports) {
    clouds.insert(r.cloud);
    meta.sources.push_back(fmt::format("{} prices imported from {} (SkyPilot catalog format)",
                                       r.cloud, r.file.filename().string()));
  }
  // Keep the clouds this import does not cover, from the catalog in use now.
  if (!opts.replace) FRUGAL_TRY(KeepOtherClouds(clouds, offers, meta));
  offers.insert(offers.end(), imported.offers.begin(), imported.offers.end());
  const fs::path dir = opts.output.empty() ? UserDataDir() / "catalog" : fs::path(opts.output);
  FRUGAL_TRY(catalog::WriteOfferTable(dir, offers, meta));
  ReportImport(imported, offers.size(), dir, global, s);
  return {};
}

}  // namespace

void RegisterCatalog(CLI::App& app, GlobalOptions& global, Action& action) {
  CLI::App* cmd =
      app.add_subcommand("catalog", "GPU models and every offer to rent them, with prices");
  cmd->require_subcommand(1);

  cmd->add_subcommand("gpus", "GPU models: memory, bandwidth, dense TFLOPS by precision, source")
      ->callback([&] { action = [&global](Streams& s) { return RunGpus(global, s); }; });

  auto offers = std::make_shared<OffersOptions>();
  CLI::App* o = cmd->add_subcommand(
      "offers", "Every way to rent a GPU or a CPU instance: cloud, instance, region, tier, price");
  o->add_option("--gpu", offers->gpu,
                "GPU model or alias (A100-80GB, H100, L4); CPU for the offers without a GPU");
  o->add_flag("--cpu", offers->cpu, "Only CPU instances (the same as --gpu CPU)");
  o->add_option("--cpu-class", offers->cpu_class,
                "Only CPU instances of this class: general, memory or compute");
  o->add_option("--min-vcpus", offers->min_vcpus, "At least this many vCPUs per instance")
      ->check(CLI::NonNegativeNumber);
  o->add_option("--min-ram", offers->min_ram_gib, "At least this much RAM per instance, in GiB")
      ->check(CLI::NonNegativeNumber);
  o->add_option("--min-gpus", offers->min_gpus, "At least this many GPUs per instance")
      ->check(WholeNumber(0, 1'000'000));
  o->add_option("--cloud", offers->cloud, "aws, gcp, azure, lambda, vast, or a custom cloud");
  o->add_option("--region", offers->region, "Region, e.g. us-east-1");
  o->add_option("--tier", offers->tier, "on_demand, spot, reserved_1y, reserved_3y");
  o->add_option("--max-price", offers->max_price,
                "Highest price per hour for the instance, in dollars");
  o->add_option("--sort", offers->sort, "price or price_per_gpu")
      ->check(CLI::IsMember({"price", "price_per_gpu"}));
  o->add_option("--limit", offers->limit, "Show at most N offers (0: all)")
      ->check(WholeNumber(0, 1'000'000'000));
  o->callback([&, offers] {
    action = [&global, offers](Streams& s) { return RunOffers(*offers, global, s); };
  });

  cmd->add_subcommand("info", "Snapshot date, sources, row counts per cloud and tier")
      ->callback([&] { action = [&global](Streams& s) { return RunInfo(global, s); }; });

  auto import = std::make_shared<ImportOptions>();
  CLI::App* i = cmd->add_subcommand("import", "Refresh prices from SkyPilot-format vms.csv files");
  i->add_option("--skypilot", import->inputs,
                "Files (<cloud>_vms.csv, <cloud>/vms.csv) or directories")
      ->required()
      ->expected(1, -1);
  i->add_option("--output", import->output, "Write here instead of the user's data directory");
  i->add_option("--snapshot-date", import->snapshot_date,
                "Date the prices were taken (default: today)");
  i->add_flag("--replace", import->replace, "Drop clouds not in this import (default: keep them)");
  i->callback([&, import] {
    action = [&global, import](Streams& s) { return RunImport(*import, global, s); };
  });
}

}  // namespace frugal::cli

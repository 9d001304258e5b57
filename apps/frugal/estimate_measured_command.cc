// frugal estimate --measured GPU=X [--measured ...] --gpu T --gpus N: measured throughput
// carried to another GPU and count (the model is in src/frugal/estimate/cross_gpu.h).

#include <fmt/format.h>

#include <map>

#include "estimate_measured.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/table.h"
#include "frugal/core/text.h"
#include "frugal/estimate/commitment.h"
#include "frugal/estimate/cross_gpu.h"
#include "frugal/estimate/hardware.h"
#include "frugal/ledger/ledger.h"
#include "frugal/plan/measured_transfer.h"
#include "frugal/run/profile.h"

namespace frugal::cli {

void AddMeasuredEstimateOptions(CLI::App* cmd, MeasuredEstimateOptions& o) {
  cmd->add_option("--measured", o.measured,
                  "Measured throughput GPU=UNITS_PER_SECOND on one such GPU (GPU:N=X on N); "
                  "repeat for more GPU models. Predicts --gpu from it")
      ->take_all();
  cmd->add_option("--profile", o.profile,
                  "Predict from what the ledger recorded under NAME (frugal profile --name NAME, "
                  "or the runs of a job spec named NAME): the newest measurement of each GPU "
                  "model");
  cmd->add_option("--family", o.family,
                  "Model family for --measured: transformer, cnn, rnn, recommender, "
                  "tree_ensemble, other")
      ->capture_default_str();
  cmd->add_option("--flops-per-sample", o.flops_per_sample,
                  "Training FLOPs per unit of work (with --bytes-per-sample: the job's "
                  "arithmetic intensity, instead of the family's)");
  cmd->add_option("--bytes-per-sample", o.bytes_per_sample,
                  "Memory traffic in bytes per unit of work");
}

namespace {

Result<estimate::WorkloadShape> ShapeFrom(const MeasuredEstimateOptions& o,
                                          const MeasuredEstimateJob& job) {
  estimate::WorkloadShape shape;
  shape.family = FRUGAL_TRY(estimate::ParseModelFamily(o.family).map_error(
      [](const Error& e) { return e.Wrap("--family"); }));
  shape.precision = FRUGAL_TRY(catalog::ParsePrecision(job.dtype).map_error(
      [](const Error& e) { return e.Wrap("--dtype"); }));
  if (!job.params.empty()) {
    shape.params = FRUGAL_TRY(
        ParseCount(job.params).map_error([](const Error& e) { return e.Wrap("--params"); }));
  }
  for (const auto& [value, flag] : {std::pair{o.flops_per_sample, "--flops-per-sample"},
                                    {o.bytes_per_sample, "--bytes-per-sample"}}) {
    if (value && !(*value > 0)) {
      return Fail(ErrorCode::kBadInput, fmt::format("{}: must be positive", flag));
    }
  }
  if (o.flops_per_sample.has_value() != o.bytes_per_sample.has_value()) {
    return Fail(ErrorCode::kBadInput,
                "--flops-per-sample and --bytes-per-sample go together (their ratio is the "
                "job's arithmetic intensity)");
  }
  shape.flops_per_unit = o.flops_per_sample;
  shape.bytes_per_unit = o.bytes_per_sample;
  if (job.batch_per_gpu) shape.units_per_gpu_step = *job.batch_per_gpu;
  return shape;
}

/// Units of work in the measured units, when the job says how much: samples × epochs,
/// tokens or steps.
Result<std::optional<double>> WorkUnits(const MeasuredEstimateJob& job) {
  const int forms =
      (job.tokens.empty() ? 0 : 1) + (job.samples.empty() ? 0 : 1) + (job.steps.empty() ? 0 : 1);
  if (forms == 0) return std::optional<double>();
  if (forms > 1) return Fail(ErrorCode::kBadInput, "give only one of --tokens, --samples, --steps");
  if (!(job.epochs > 0)) return Fail(ErrorCode::kBadInput, "--epochs: must be positive");
  if (!job.samples.empty()) {
    const double samples = FRUGAL_TRY(
        ParseCount(job.samples).map_error([](const Error& e) { return e.Wrap("--samples"); }));
    return std::optional<double>(samples * job.epochs);
  }
  const std::string& text = job.tokens.empty() ? job.steps : job.tokens;
  const char* flag = job.tokens.empty() ? "--steps" : "--tokens";
  return std::optional<double>(
      FRUGAL_TRY(ParseCount(text).map_error([&](const Error& e) { return e.Wrap(flag); })));
}

/// The ledger's measurements of `name` as device measurements; kBadInput naming --profile when
/// none is on a GPU the table lists.
Result<plan::DeviceMeasurementsFromRecords> FromLedger(const std::string& name,
                                                       const catalog::Catalog& c,
                                                       const GlobalOptions& global) {
  std::unique_ptr<ledger::Ledger> db =
      FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
  const std::vector<plan::RecordedMeasurement> records =
      FRUGAL_TRY(run::RecordedMeasurementsFor(*db, name));
  plan::DeviceMeasurementsFromRecords picked = plan::SelectDeviceMeasurements(records, c);
  if (picked.measured.empty()) {
    std::string why;
    for (const plan::RecordedUse& u : picked.uses) why += "; " + u.note;
    return Fail(ErrorCode::kBadInput,
                fmt::format("--profile {}: the ledger holds no measurement of it on a GPU the "
                            "table lists ({} record(s){})",
                            name, records.size(), why));
  }
  return picked;
}

nlohmann::json MeasuredFromJson(const plan::DeviceMeasurementsFromRecords& r) {
  for (const plan::RecordedUse& u : r.uses) {
    if (!u.used) continue;
    const plan::RecordedMeasurement& m = u.measurement;
    return {{"run_id", m.run_id.empty() ? nlohmann::json() : nlohmann::json(m.run_id)},
            {"profile_id", m.profile_id},
            {"recorded_at", m.recorded_at},
            {"device", m.device},
            {"gpu", u.gpu},
            {"units", r.units}};
  }
  return nullptr;
}

nlohmann::json RecordedJson(const plan::DeviceMeasurementsFromRecords& r) {
  nlohmann::json list = nlohmann::json::array();
  for (const plan::RecordedUse& u : r.uses) {
    const plan::RecordedMeasurement& m = u.measurement;
    list.push_back({{"profile_id", m.profile_id},
                    {"run_id", m.run_id.empty() ? nlohmann::json() : nlohmann::json(m.run_id)},
                    {"recorded_at", m.recorded_at},
                    {"device", m.device},
                    {"gpu", u.gpu.empty() ? nlohmann::json() : nlohmann::json(u.gpu)},
                    {"used", u.used},
                    {"note", u.note.empty() ? nlohmann::json() : nlohmann::json(u.note)}});
  }
  return list;
}

/// The measurements the prediction starts from: each --measured in order, then what the ledger
/// recorded under --profile; one GPU model named twice, either way, is kBadInput.
struct Measurements {
  std::vector<estimate::DeviceMeasurement> measured;
  std::optional<plan::DeviceMeasurementsFromRecords> recorded;
};

Result<Measurements> GatherMeasurements(const MeasuredEstimateOptions& o, const catalog::Catalog& c,
                                        const GlobalOptions& global) {
  Measurements m;
  std::map<std::string, std::string> given;  // GPU model → the --measured text that named it
  for (const std::string& text : o.measured) {
    m.measured.push_back(FRUGAL_TRY(estimate::ParseDeviceMeasurement(text, c).map_error(
        [](const Error& e) { return e.Wrap("--measured"); })));
    // Two figures for one model would be averaged out of sight: which one is right is the
    // user's call, not ours.
    const auto [it, fresh] = given.try_emplace(m.measured.back().gpu->name, text);
    if (!fresh) {
      return Fail(ErrorCode::kBadInput,
                  fmt::format("--measured: {} is given twice ('{}' and '{}'); give one "
                              "measurement per GPU model",
                              it->first, it->second, text));
    }
  }
  if (!o.profile.empty()) {
    m.recorded = FRUGAL_TRY(FromLedger(o.profile, c, global));
    for (const estimate::DeviceMeasurement& r : m.recorded->measured) {
      if (const auto it = given.find(r.gpu->name); it != given.end()) {
        return Fail(ErrorCode::kBadInput,
                    fmt::format("--measured: {} is given ('{}') and also recorded under "
                                "--profile {}; give it one way",
                                it->first, it->second, o.profile));
      }
    }
    m.measured.insert(m.measured.end(), m.recorded->measured.begin(), m.recorded->measured.end());
  }
  return m;
}

/// What the job costs on each rented tier for `wall_hours` (one tier with --tier).
Result<std::vector<estimate::TierCost>> CostsFor(const catalog::Catalog& c,
                                                 const catalog::GpuSpec& gpu,
                                                 const MeasuredEstimateJob& job,
                                                 double wall_hours) {
  std::vector<estimate::TierCost> costs =
      estimate::CheapestPerTier(c, gpu.name, job.gpus, wall_hours);
  // Reservations are not rented per job (`--commitment` answers whether one would pay).
  FRUGAL_TRY(estimate::ApplyReservedUtilization(costs, std::nullopt, wall_hours));
  if (!job.tier.empty()) {
    const CapacityTier tier = FRUGAL_TRY(
        ParseRentedTier(job.tier).map_error([](const Error& e) { return e.Wrap("--tier"); }));
    std::erase_if(costs, [&](const estimate::TierCost& t) { return t.offer->tier != tier; });
  }
  return costs;
}

/// The prediction and what it was made for, as the command reports it.
struct MeasuredAnswer {
  const catalog::GpuSpec* gpu = nullptr;
  int gpus = 0;
  estimate::WorkloadShape shape;
  estimate::CrossGpuPrediction prediction;
  std::optional<double> units;
  std::optional<double> wall_hours;
  std::vector<estimate::TierCost> costs;
};

void WriteMeasuredJson(const Measurements& m, const MeasuredAnswer& a, Streams& s) {
  const estimate::CrossGpuPrediction& p = a.prediction;
  nlohmann::json list = nlohmann::json::array();
  for (const auto& d : m.measured) {
    list.push_back({{"gpu", d.gpu->name}, {"gpus", d.gpus}, {"per_second", d.per_second}});
  }
  nlohmann::json cost_list = nlohmann::json::array();
  for (const auto& t : a.costs) {
    cost_list.push_back({{"tier", CapacityTierName(t.offer->tier)},
                         {"offer", t.offer->Id()},
                         {"instances", t.instances},
                         {"price_per_hour", t.offer->price.per_hour.dollars()},
                         {"price_estimated", t.offer->price_estimated},
                         {"cost_usd", t.cost.dollars()}});
  }
  WriteJson(s, {{"throughput_per_second", p.per_second},
                {"basis", p.basis},
                {"single_gpu_throughput_per_second", p.single_gpu_per_second},
                {"compute_bound_share", p.compute_share_target},
                {"fixed_share", p.fixed_share_target},
                {"data_parallel_efficiency", p.data_parallel_efficiency},
                {"fitted", p.fitted},
                {"gpu", a.gpu->name},
                {"gpus", a.gpus},
                {"dtype", catalog::PrecisionName(a.shape.precision)},
                {"family", estimate::ModelFamilyName(a.shape.family)},
                {"measured", list},
                {"work_units", a.units ? nlohmann::json(*a.units) : nlohmann::json()},
                {"wall_hours", a.wall_hours ? nlohmann::json(*a.wall_hours) : nlohmann::json()},
                {"costs", cost_list},
                {"measured_from", m.recorded ? MeasuredFromJson(*m.recorded) : nlohmann::json()},
                {"recorded_measurements",
                 m.recorded ? RecordedJson(*m.recorded) : nlohmann::json::array()}});
}

void PrintMeasured(const Measurements& m, const MeasuredAnswer& a, Streams& s) {
  const estimate::CrossGpuPrediction& p = a.prediction;
  if (m.recorded) {
    for (const plan::RecordedUse& u : m.recorded->uses) {
      const plan::RecordedMeasurement& r = u.measurement;
      s.out << fmt::format(
          "{}: {} measured {} on {}{}\n", u.used ? "Measured" : "Not used",
          r.run_id.empty() ? fmt::format("profile {}", r.profile_id) : "run " + r.run_id,
          r.recorded_at, r.device, u.used ? "" : ": " + u.note);
    }
  }
  s.out << fmt::format("Predicted throughput on {} x{}: {:.4g} units/s ({:.4g} on one GPU)\n",
                       a.gpu->name, a.gpus, p.per_second, p.single_gpu_per_second);
  s.out << "Basis: " << p.basis << "\n";
  if (!a.wall_hours) return;
  s.out << fmt::format("Time: {:.2f} h wall for {:.4g} units\n", *a.wall_hours, *a.units);
  Table t({{"TIER"}, {"OFFER"}, {"INSTANCES", Align::kRight}, {"COST", Align::kRight}});
  for (const auto& c : a.costs) {
    const std::string mark = c.offer->price_estimated ? " (est.)" : "";
    t.AddRow({std::string(CapacityTierName(c.offer->tier)), c.offer->Id(),
              std::to_string(c.instances), c.cost.ToString() + mark});
  }
  if (!a.costs.empty()) t.Render(s.out);
}

}  // namespace

Result<void> RunMeasuredEstimate(const MeasuredEstimateOptions& o, const MeasuredEstimateJob& job,
                                 const GlobalOptions& global, Streams& s) {
  const catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const Measurements m = FRUGAL_TRY(GatherMeasurements(o, c, global));
  MeasuredAnswer a;
  a.gpu =
      FRUGAL_TRY(c.RequireGpu(job.gpu).map_error([](const Error& e) { return e.Wrap("--gpu"); }));
  if (job.gpus < 1) return Fail(ErrorCode::kBadInput, "--gpus: must be at least 1");
  a.gpus = job.gpus;
  a.shape = FRUGAL_TRY(ShapeFrom(o, job));
  a.prediction = FRUGAL_TRY(estimate::PredictThroughput(m.measured, *a.gpu, job.gpus, a.shape));
  a.units = FRUGAL_TRY(WorkUnits(job));
  if (a.units) {
    a.wall_hours = *a.units / a.prediction.per_second / 3600.0;
    a.costs = FRUGAL_TRY(CostsFor(c, *a.gpu, job, *a.wall_hours));
  }
  if (global.json) {
    WriteMeasuredJson(m, a, s);
  } else {
    PrintMeasured(m, a, s);
  }
  return {};
}

}  // namespace frugal::cli

// frugal tco INFERENCE.yaml: the model's lifetime bill. Training (planned from a job spec,
// stated, or the ledger's actual spend of a run or study) plus retraining plus serving every
// month of the model's life; the inference:training ratio; what each lever saves; a chart.

#include <fmt/format.h>

#include <optional>
#include <utility>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/atomic_file.h"
#include "frugal/core/paths.h"
#include "frugal/core/table.h"
#include "frugal/ledger/ledger.h"
#include "frugal/run/recorded_spend.h"
#include "frugal/serving/lifetime.h"
#include "frugal/serving/serving_json.h"
#include "frugal/serving/training_cost.h"
#include "inference_command.h"

namespace frugal::cli {

namespace {

struct TcoOptions {
  std::string spec;
  std::optional<std::string> run;  ///< absent: the spec's; given empty: refused
  std::optional<std::string> study;
  std::string html;
  std::string svg;
};

/// The lookups the training cost needs from this front end: the ledger, the catalogs.
serving::TrainingLookups Lookups(const GlobalOptions& global) {
  serving::TrainingLookups l;
  l.ledger_spend =
      [&global](const serving::LedgerTrainingRef& ref) -> Result<serving::TrainingCost> {
    auto db = FRUGAL_TRY(ledger::OpenForCommand(global.db, ledger::CreateMode::kMustExist));
    const run::RecordedSpend spend = FRUGAL_TRY(!ref.run.empty() ? run::RunSpend(*db, ref.run)
                                                                 : run::StudySpend(*db, ref.study));
    serving::TrainingCost t;
    t.first = spend.cost;
    t.source = spend.source;
    return t;
  };
  l.catalog = [&global](const std::vector<std::filesystem::path>& files) {
    return LoadCatalog(global, files);
  };
  l.drills_dir = UserDataDir() / "drills";
  return l;
}

void PrintBill(const serving::InferenceSpec& spec, const serving::LifetimeBill& b, Streams& s) {
  s.out << fmt::format("Lifetime bill for {} over {} months\n", spec.name, b.months);
  s.out << fmt::format("  serving     {} at {} a month\n", b.serving_label,
                       b.serving.monthly.ToString());
  s.out << fmt::format("  training    {} ({})", b.training.first.ToString(), b.training.source);
  if (b.retrains > 0) {
    s.out << fmt::format(", retrained {} times every {} months at {}", b.retrains,
                         b.training.retrain_every_months, b.training.retrain.ToString());
  }
  s.out << "\n";
  s.out << fmt::format("  training total   {}\n  inference total  {}\n  lifetime         {}\n",
                       b.training_total.ToString(), b.inference_total.ToString(),
                       b.total.ToString());
  if (b.inference_to_training > 0) {
    s.out << fmt::format("  inference is {:.1f}x the training\n", b.inference_to_training);
  }
  if (b.levers.empty()) return;
  s.out << fmt::format("\nLevers, each alone, against {}:\n", b.baseline_label);
  Table t({{"LEVER"}, {"PER MONTH", Align::kRight}, {"LIFETIME", Align::kRight}, {"HOW"}});
  for (const serving::Lever& l : b.levers) {
    t.AddRow({l.name, l.available ? l.monthly_saving.ToString() : "-",
              l.available ? l.lifetime_saving.ToString() : "-", l.detail});
  }
  t.Render(s.out);
}

Result<void> RunTco(const TcoOptions& o, const GlobalOptions& global, Streams& s) {
  for (const auto& [flag, value] : {std::pair{"--run", &o.run}, std::pair{"--study", &o.study}}) {
    if (*value && (*value)->empty()) {
      return Fail(
          ErrorCode::kBadInput,
          fmt::format("option {}: is empty (give a ledger {} by name or number)", flag, flag + 2));
    }
  }
  const std::vector<std::string> gpu_names = FRUGAL_TRY(catalog::Catalog::LoadDefaultGpuNames());
  const serving::InferenceSpec spec = FRUGAL_TRY(serving::LoadInferenceSpec(o.spec, gpu_names));
  const catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global, spec.catalog_files));
  const serving::TrainingCost training = FRUGAL_TRY(serving::ResolveTrainingCost(
      spec.training, o.run.value_or(""), o.study.value_or(""), Lookups(global)));
  const serving::LifetimeBill bill = FRUGAL_TRY(serving::ComputeLifetimeBill(spec, c, training));
  if (!o.html.empty()) FRUGAL_TRY(WriteFileAtomically(o.html, serving::LifetimeHtml(spec, bill)));
  if (!o.svg.empty()) FRUGAL_TRY(WriteFileAtomically(o.svg, serving::LifetimeSvg(bill)));
  if (global.json) {
    nlohmann::json doc = serving::LifetimeBillJson(bill);
    doc["name"] = spec.name;
    WriteJson(s, std::move(doc));
  } else {
    PrintBill(spec, bill, s);
    if (!o.html.empty()) s.out << fmt::format("\nReport written to {}\n", o.html);
  }
  return {};
}

}  // namespace

void RegisterTco(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<TcoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "tco", "A model's lifetime bill: training, retraining and serving, with levers");
  cmd->add_option("spec", o->spec, "Inference spec (kind: Inference; see docs/inference-spec.md)")
      ->required();
  cmd->add_option("--run", o->run, "Training cost: this ledger run's actual spend");
  cmd->add_option("--study", o->study, "Training cost: this ledger study's actual spend");
  cmd->add_option("-o,--output", o->html, "Write an HTML report with the chart here");
  cmd->add_option("--svg", o->svg, "Write the cumulative cost chart (SVG) here");
  cmd->callback([&, o] { action = [&global, o](Streams& s) { return RunTco(*o, global, s); }; });
}

}  // namespace frugal::cli

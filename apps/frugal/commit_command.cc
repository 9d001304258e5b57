// frugal commit --gpu A100-80GB [--gpus N] [--utilization 60%] [--cloud aws]: would a 1- or
// 3-year commitment pay, against on-demand and spot? Monthly costs, break-even utilizations
// and, at a stated utilization, the winner. The arithmetic lives in estimate/commitment.h.

#include <fmt/format.h>

#include "commands.h"
#include "frugal/catalog/catalog.h"
#include "frugal/core/table.h"
#include "frugal/estimate/commitment.h"
#include "frugal/estimate/commitment_json.h"

namespace frugal::cli {

namespace {

struct CommitOptions {
  std::string gpu;
  int gpus = 1;
  std::string utilization;
  std::string cloud;
};

std::string Percent(const std::optional<double>& share) {
  if (!share) return "-";
  if (*share > 1.0) return "never";
  return fmt::format("{:.1f}%", *share * 100.0);
}

void PrintAnalysis(const estimate::CommitmentAnalysis& a, Streams& s) {
  s.out << fmt::format("{} x {}, a month of {} h", a.gpus, a.gpu, estimate::kHoursPerMonth);
  if (a.utilization) s.out << fmt::format(" at {:.1f}% utilization", *a.utilization * 100.0);
  s.out << "\n";
  Table t({{"TIER"},
           {"OFFER"},
           {"PER HOUR", Align::kRight},
           {"PER MONTH", Align::kRight},
           {"BREAK-EVEN VS ON-DEMAND", Align::kRight},
           {"VS SPOT", Align::kRight}});
  auto row = [&](const estimate::TierQuote& q, const std::string& vs_od,
                 const std::string& vs_spot) {
    const std::string tier = std::string(CapacityTierName(q.tier)) +
                             (q.offer.price_estimated ? " (estimated)" : "") +
                             (a.winner == q.tier ? " <- cheapest" : "");
    const std::string offer =
        q.instances > 1 ? fmt::format("{} x {}", q.instances, q.offer.Id()) : q.offer.Id();
    t.AddRow({tier, offer, q.hourly.ToString(), q.monthly ? q.monthly->ToString() : "-", vs_od,
              vs_spot});
  };
  if (a.on_demand) row(*a.on_demand, "", "");
  if (a.spot) row(*a.spot, "", "");
  for (const estimate::CommitmentTerm& c : a.commitments) {
    row(c.quote, Percent(c.break_even_vs_on_demand), Percent(c.break_even_vs_spot));
  }
  t.Render(s.out);
  s.out << "A commitment is paid for every hour; on-demand and spot only for the hours used. "
           "It pays above its break-even utilization. Spot interruptions are not priced here.\n";
}

Result<void> RunCommit(const CommitOptions& o, const GlobalOptions& global, Streams& s) {
  estimate::CommitmentQuery q;
  q.gpu = o.gpu;
  q.gpus = o.gpus;
  if (!o.utilization.empty()) q.utilization = FRUGAL_TRY(estimate::ParseUtilization(o.utilization));
  if (!o.cloud.empty()) q.cloud = o.cloud;
  const catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const estimate::CommitmentAnalysis a = FRUGAL_TRY(estimate::AnalyzeCommitment(c, q));
  if (global.json) {
    WriteJson(s, estimate::CommitmentAnalysisJson(a));
  } else {
    PrintAnalysis(a, s);
  }
  return {};
}

}  // namespace

void RegisterCommit(CLI::App& app, GlobalOptions& global, Action& action) {
  auto o = std::make_shared<CommitOptions>();
  CLI::App* cmd = app.add_subcommand(
      "commit",
      "Would a 1- or 3-year commitment pay at a utilization, against on-demand and spot?");
  cmd->add_option("--gpu", o->gpu, "GPU model (A100-80GB)")->required();
  cmd->add_option("--gpus", o->gpus, "GPUs to commit to (whole instances are rented)")
      ->check(WholeNumber(1, 100000));
  cmd->add_option("--utilization", o->utilization,
                  "Share of the month the GPUs are busy (60% or 0.6); omitted: break-evens only");
  cmd->add_option("--cloud", o->cloud, "Only this cloud's offers");
  cmd->callback([&, o] { action = [&global, o](Streams& s) { return RunCommit(*o, global, s); }; });
}

}  // namespace frugal::cli

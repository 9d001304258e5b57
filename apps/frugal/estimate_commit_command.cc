// frugal estimate --commitment 1y|3y --utilization U --gpu G --gpus N: would a commitment pay?

#include <fmt/format.h>

#include "estimate_commit.h"
#include "frugal/catalog/catalog.h"
#include "frugal/estimate/commitment.h"

namespace frugal::cli {

Result<void> RunCommitmentEstimate(const std::string& term_text, double utilization,
                                   const std::string& gpu_name, int gpus,
                                   const GlobalOptions& global, Streams& s) {
  // A count below one priced a commitment of no GPUs ($0, break-even NaN) or a negative bill.
  if (gpus < 1) return Fail(ErrorCode::kBadInput, "--gpus: must be at least 1");
  const catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const catalog::GpuSpec* gpu =
      FRUGAL_TRY(c.RequireGpu(gpu_name).map_error([](Error e) { return e.Wrap("--gpu"); }));
  const catalog::Tier term = FRUGAL_TRY(estimate::ParseCommitmentTerm(term_text));
  estimate::CommitmentQuery q;
  q.gpu = gpu->name;
  q.gpus = gpus;
  q.utilization = utilization;
  const estimate::CommitmentAnalysis analysis = FRUGAL_TRY(estimate::AnalyzeCommitment(c, q));
  const estimate::CommitmentTerm* t = analysis.Term(term);
  if (t == nullptr || !analysis.on_demand) {
    return Fail(ErrorCode::kBadInput, fmt::format("no {} and on-demand offers of {} x{} to compare",
                                                  catalog::TierName(term), gpu->name, gpus));
  }
  const estimate::TierQuote& reserved = t->quote;
  const Money monthly_on_demand = *analysis.on_demand->monthly;
  const std::optional<Money> monthly_spot =
      analysis.spot ? analysis.spot->monthly : std::optional<Money>();
  const double break_even = *t->break_even_vs_on_demand;
  const bool pays = utilization > break_even;
  const bool beats_spot = t->break_even_vs_spot && utilization > *t->break_even_vs_spot;
  if (global.json) {
    WriteJson(
        s, {{"commitment",
             {{"term", catalog::TierName(term)},
              {"gpu", gpu->name},
              {"gpus", gpus},
              {"instances", reserved.instances},
              {"offer", reserved.offer.Id()},
              {"price_estimated", reserved.offer.price_estimated},
              {"utilization", utilization},
              {"monthly_commitment_usd", reserved.monthly->dollars()},
              {"monthly_on_demand_usd", monthly_on_demand.dollars()},
              {"monthly_spot_usd",
               monthly_spot ? nlohmann::json(monthly_spot->dollars()) : nlohmann::json()},
              {"break_even_utilization_vs_on_demand", break_even},
              {"break_even_utilization_vs_spot",
               t->break_even_vs_spot ? nlohmann::json(*t->break_even_vs_spot) : nlohmann::json()},
              {"pays_vs_on_demand", pays},
              {"pays_vs_spot", beats_spot}}}});
    return {};
  }
  s.out << fmt::format(
      "A {} commitment of {} x{} ({}{}) costs {} a month whatever the use.\n", term_text, gpu->name,
      gpus, reserved.offer.Id(),
      reserved.offer.price_estimated ? ", price estimated from discount factors" : "",
      reserved.monthly->ToString());
  s.out << fmt::format("At {:.0f}% utilization the same hours cost {} on demand", 100 * utilization,
                       monthly_on_demand.ToString());
  if (monthly_spot) s.out << fmt::format(", {} on spot", monthly_spot->ToString());
  s.out << ".\n";
  s.out << fmt::format(
      "It pays against on demand above {:.0f}% utilization{}: {}.\n", 100 * break_even,
      t->break_even_vs_spot
          ? (*t->break_even_vs_spot > 1
                 ? std::string(" (never against spot: spot is cheaper even at 100%)")
                 : fmt::format(" (against spot above {:.0f}%)", 100 * *t->break_even_vs_spot))
          : "",
      pays ? (beats_spot || !t->break_even_vs_spot ? "commit"
                                                   : "commit only if spot is not an option")
           : "do not commit");
  return {};
}

}  // namespace frugal::cli

// frugal estimate --commitment 1y|3y --utilization U --gpu G --gpus N: would a commitment pay?

#include <fmt/format.h>

#include "estimate_commit.h"
#include "frugal/catalog/catalog.h"
#include "frugal/estimate/commitment.h"
#include "frugal/estimate/commitment_json.h"

namespace frugal::cli {

Result<void> RunCommitmentEstimate(const std::string& term_text, double utilization,
                                   const std::string& gpu_name, int gpus,
                                   const GlobalOptions& global, Streams& s) {
  // A count below one priced a commitment of no GPUs ($0, break-even NaN) or a negative bill.
  if (gpus < 1) return Fail(ErrorCode::kBadInput, "--gpus: must be at least 1");
  const catalog::Catalog c = FRUGAL_TRY(LoadCatalog(global));
  const catalog::GpuSpec* gpu =
      FRUGAL_TRY(c.RequireGpu(gpu_name).map_error([](Error e) { return e.Wrap("--gpu"); }));
  const CapacityTier term = FRUGAL_TRY(estimate::ParseCommitmentTerm(term_text));
  estimate::CommitmentQuery q;
  q.gpu = gpu->name;
  q.gpus = gpus;
  q.utilization = utilization;
  const estimate::CommitmentAnalysis analysis = FRUGAL_TRY(estimate::AnalyzeCommitment(c, q));
  const estimate::CommitmentAnswer answer = FRUGAL_TRY(estimate::AnswerFor(analysis, term));
  if (global.json) {
    WriteJson(s, {{"commitment", estimate::CommitmentAnswerJson(analysis, answer)}});
    return {};
  }
  const estimate::CommitmentTerm& t = *answer.term;
  const estimate::TierQuote& reserved = t.quote;
  const bool pays = answer.pays_vs_on_demand;
  const bool beats_spot = answer.pays_vs_spot;
  s.out << fmt::format(
      "A {} commitment of {} x{} ({}{}) costs {} a month whatever the use.\n", term_text, gpu->name,
      gpus, reserved.offer.Id(),
      reserved.offer.price_estimated ? ", price estimated from discount factors" : "",
      reserved.monthly->ToString());
  s.out << fmt::format("At {:.0f}% utilization the same hours cost {} on demand", 100 * utilization,
                       answer.on_demand->monthly->ToString());
  if (answer.spot) s.out << fmt::format(", {} on spot", answer.spot->monthly->ToString());
  s.out << ".\n";
  s.out << fmt::format(
      "It pays against on demand above {:.0f}% utilization{}: {}.\n",
      100 * *t.break_even_vs_on_demand,
      t.break_even_vs_spot
          ? (*t.break_even_vs_spot > 1
                 ? std::string(" (never against spot: spot is cheaper even at 100%)")
                 : fmt::format(" (against spot above {:.0f}%)", 100 * *t.break_even_vs_spot))
          : "",
      pays ? (beats_spot || !t.break_even_vs_spot ? "commit"
                                                  : "commit only if spot is not an option")
           : "do not commit");
  return {};
}

}  // namespace frugal::cli

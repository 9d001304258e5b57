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
  catalog::Tier term = catalog::Tier::kReserved1y;
  if (term_text == "3y" || term_text == "reserved_3y") {
    term = catalog::Tier::kReserved3y;
  } else if (term_text != "1y" && term_text != "reserved_1y") {
    return Fail(ErrorCode::kBadInput,
                fmt::format("--commitment: expected 1y or 3y, got '{}'", term_text));
  }
  const estimate::CommitmentAnswer a =
      FRUGAL_TRY(estimate::AnswerCommitment(c, gpu->name, gpus, term, utilization));
  const bool pays = a.PaysVsOnDemand();
  const bool beats_spot = a.break_even_vs_spot && utilization > *a.break_even_vs_spot;
  if (global.json) {
    WriteJson(s,
              {{"commitment",
                {{"term", catalog::TierName(term)},
                 {"gpu", gpu->name},
                 {"gpus", gpus},
                 {"instances", a.instances},
                 {"offer", a.reserved->Id()},
                 {"price_estimated", a.reserved->price_estimated},
                 {"utilization", utilization},
                 {"monthly_commitment_usd", a.monthly_commitment.dollars()},
                 {"monthly_on_demand_usd", a.monthly_on_demand.dollars()},
                 {"monthly_spot_usd",
                  a.monthly_spot ? nlohmann::json(a.monthly_spot->dollars()) : nlohmann::json()},
                 {"break_even_utilization_vs_on_demand", a.break_even_vs_on_demand},
                 {"break_even_utilization_vs_spot",
                  a.break_even_vs_spot ? nlohmann::json(*a.break_even_vs_spot) : nlohmann::json()},
                 {"pays_vs_on_demand", pays},
                 {"pays_vs_spot", beats_spot}}}});
    return {};
  }
  s.out << fmt::format("A {} commitment of {} x{} ({}{}) costs {} a month whatever the use.\n",
                       term_text, gpu->name, gpus, a.reserved->Id(),
                       a.reserved->price_estimated ? ", price estimated from discount factors" : "",
                       a.monthly_commitment.ToString());
  s.out << fmt::format("At {:.0f}% utilization the same hours cost {} on demand", 100 * utilization,
                       a.monthly_on_demand.ToString());
  if (a.monthly_spot) s.out << fmt::format(", {} on spot", a.monthly_spot->ToString());
  s.out << ".\n";
  s.out << fmt::format(
      "It pays against on demand above {:.0f}% utilization{}: {}.\n",
      100 * a.break_even_vs_on_demand,
      a.break_even_vs_spot
          ? (*a.break_even_vs_spot > 1
                 ? std::string(" (never against spot: spot is cheaper even at 100%)")
                 : fmt::format(" (against spot above {:.0f}%)", 100 * *a.break_even_vs_spot))
          : "",
      pays ? (beats_spot || !a.break_even_vs_spot ? "commit"
                                                  : "commit only if spot is not an option")
           : "do not commit");
  return {};
}

}  // namespace frugal::cli

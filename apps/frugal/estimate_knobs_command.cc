// frugal estimate --knobs: prints the library's knob comparison (plan/knob_table.h).

#include <fmt/format.h>

#include "estimate_knobs.h"
#include "frugal/core/duration.h"
#include "frugal/core/table.h"

namespace frugal::cli {
namespace {

constexpr size_t kWaysShown = 3;

double Gib(double bytes) { return bytes / estimate::kBytesPerGib; }

std::string Smallest(const plan::KnobRow& r) {
  return r.smallest_gpu.empty()
             ? "none rented"
             : fmt::format("{} ({:g} GiB)", r.smallest_gpu, r.smallest_gpu_memory_gib);
}

std::string TimeAndCost(const plan::KnobRow& r) {
  if (!r.wall_hours) return "";
  return fmt::format(", {}{}", FormatDuration(FromHours(*r.wall_hours)),
                     r.cost ? ", " + r.cost->ToString() : std::string());
}

}  // namespace

Result<void> RunKnobsEstimate(const plan::KnobQuestion& q, const catalog::Catalog& c,
                              const GlobalOptions& global, Streams& s) {
  const plan::KnobComparison k = FRUGAL_TRY(plan::CompareKnobs(q, c));
  if (global.json) {
    WriteJson(s, plan::KnobComparisonJson(q, k));
    return {};
  }
  s.out << fmt::format("Knobs side by side on {} x{} ({:g} GiB each){}{}\n", q.gpu->name,
                       q.base.gpus, q.gpu->memory_gib,
                       q.tokens ? fmt::format(", {:.4g} tokens", *q.tokens)
                                : std::string(", memory only (no --tokens, --samples or --steps)"),
                       k.offer ? fmt::format("; cost at {}", k.offer->Id()) : std::string());
  Table t({{"KNOBS"},
           {"MEM/GPU GiB", Align::kRight},
           {"FITS"},
           {"TIME", Align::kRight},
           {"COST", Align::kRight},
           {"SMALLEST GPU IT FITS"}});
  for (const plan::KnobRow& r : k.rows) {
    t.AddRow({r.label, fmt::format("{:.1f}", Gib(r.peak_bytes)), r.fits ? "yes" : "no",
              r.wall_hours ? FormatDuration(FromHours(*r.wall_hours)) : "-",
              r.cost ? r.cost->ToString() : "-", Smallest(r)});
  }
  t.Render(s.out);
  for (const plan::KnobRow& r : k.rows) {
    if (!r.note.empty()) s.out << fmt::format("  {}: {}\n", r.label, r.note);
  }
  if (!k.rows.empty() && !k.rows.front().fits) PrintWaysToFit(k, q, s.out);
  return {};
}

void PrintWaysToFit(const plan::KnobComparison& k, const plan::KnobQuestion& q, std::ostream& out) {
  const std::vector<const plan::KnobRow*> ways = plan::WaysToFit(k, kWaysShown);
  if (ways.empty()) {
    out << fmt::format("No knob setting compared fits {} {:g} GiB.", q.gpu->name,
                       q.gpu->memory_gib);
    if (!k.rows.empty()) {
      out << fmt::format(" As given it fits {}; {} fits {}.", Smallest(k.rows.front()),
                         k.rows.back().label, Smallest(k.rows.back()));
    }
    out << " See --knobs.\n";
    return;
  }
  out << fmt::format("To fit on {} {:g} GiB:\n", q.gpu->name, q.gpu->memory_gib);
  for (const plan::KnobRow* r : ways) {
    out << fmt::format("  {}: {:.1f} GiB{}\n", r->label, Gib(r->peak_bytes), TimeAndCost(*r));
  }
}

nlohmann::json WaysToFitJson(const plan::KnobComparison& k) {
  nlohmann::json list = nlohmann::json::array();
  for (const plan::KnobRow* r : plan::WaysToFit(k, kWaysShown))
    list.push_back(plan::KnobRowJson(*r));
  return list;
}

}  // namespace frugal::cli

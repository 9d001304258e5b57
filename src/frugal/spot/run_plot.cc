#include "frugal/spot/run_plot.h"

#include <fmt/format.h>

#include <algorithm>

#include "frugal/core/text.h"

namespace frugal::spot {
namespace {

constexpr double kWidth = 900;
constexpr double kLeft = 90;
constexpr double kRight = 20;
constexpr double kPlotWidth = kWidth - kLeft - kRight;

const char* ModeColour(Mode mode) {
  switch (mode) {
    case Mode::kSpot:
      return "#2a9d8f";
    case Mode::kOnDemand:
      return "#e76f51";
    case Mode::kIdle:
      return "#dddddd";
  }
  return "#000000";
}

// Draws runs of equal values in one strip as rectangles (one per run, not per step).
template <typename ColourOf>
void Strip(std::string& svg, const std::vector<StepRecord>& steps, double x_per_step, double y,
           double height, ColourOf colour_of) {
  size_t begin = 0;
  for (size_t i = 1; i <= steps.size(); ++i) {
    if (i < steps.size() && std::string(colour_of(steps[i])) == colour_of(steps[begin])) continue;
    svg +=
        fmt::format(R"(<rect x="{:.2f}" y="{:.1f}" width="{:.2f}" height="{:.1f}" fill="{}"/>)",
                    kLeft + static_cast<double>(begin) * x_per_step, y,
                    static_cast<double>(i - begin) * x_per_step, height, colour_of(steps[begin]));
    svg += '\n';
    begin = i;
  }
}

}  // namespace

std::string RenderRunSvg(const std::string& title, const StepJob& job,
                         const std::vector<StepRecord>& steps) {
  const double height = 330;
  const size_t span = std::max<size_t>({steps.size(), static_cast<size_t>(job.deadline), 1});
  const double x_per_step = kPlotWidth / static_cast<double>(span);
  std::string svg = fmt::format(
      R"(<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif" font-size="12">)"
      "\n<title>{}</title>\n<text x=\"{}\" y=\"18\" font-size=\"14\">{}</text>\n",
      kWidth, height, XmlEscape(title), kLeft, XmlEscape(title));
  svg += fmt::format(
      "<text x=\"8\" y=\"48\">spot</text>\n<text x=\"8\" y=\"82\">mode</text>\n"
      "<text x=\"8\" y=\"200\">progress</text>\n");
  Strip(svg, steps, x_per_step, 36, 18,
        [](const StepRecord& r) { return r.available ? "#8ecae6" : "#ffffff"; });
  Strip(svg, steps, x_per_step, 70, 18, [](const StepRecord& r) { return ModeColour(r.mode); });
  // Progress panel: y from 300 (none) to 110 (all the work).
  const double top = 110, bottom = 300;
  auto y_of = [&](int progress) {
    return bottom - (bottom - top) * progress / std::max(1, job.compute);
  };
  svg += fmt::format(R"(<rect x="{}" y="{}" width="{}" height="{}" fill="none" stroke="#999"/>)",
                     kLeft, top, kPlotWidth, bottom - top);
  svg += '\n';
  svg += R"(<polyline fill="none" stroke="#264653" stroke-width="1.5" points=")";
  svg += fmt::format("{:.2f},{:.2f}", kLeft, bottom);
  for (size_t i = 0; i < steps.size(); ++i) {
    svg += fmt::format(" {:.2f},{:.2f}", kLeft + static_cast<double>(i + 1) * x_per_step,
                       y_of(steps[i].progress));
  }
  svg += "\"/>\n";
  const double deadline_x = kLeft + job.deadline * x_per_step;
  svg += fmt::format(
      R"(<line x1="{0:.2f}" y1="30" x2="{0:.2f}" y2="{1}" stroke="#d62828" stroke-dasharray="4 3"/>)"
      "\n<text x=\"{2:.2f}\" y=\"{3}\" fill=\"#d62828\">deadline</text>\n",
      deadline_x, bottom, std::max(kLeft, deadline_x - 55), bottom + 16);
  svg += fmt::format(
      "<text x=\"{}\" y=\"{}\"><tspan fill=\"#2a9d8f\">■ spot</tspan>  <tspan "
      "fill=\"#e76f51\">■ on-demand</tspan>  <tspan fill=\"#aaaaaa\">■ idle</tspan>  <tspan "
      "fill=\"#8ecae6\">■ spot available</tspan></text>\n",
      kLeft, height - 8);
  svg += "</svg>\n";
  return svg;
}

}  // namespace frugal::spot

#include "frugal/tune/study_curve.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace frugal::tune {

namespace {
constexpr double kWidth = 640, kHeight = 360, kLeft = 70, kRight = 20, kTop = 30, kBottom = 50;

std::string Escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

/// The (spend, best value) points of the curve's document, skipping any that lack either.
std::vector<std::pair<double, double>> CurvePoints(const nlohmann::json& points) {
  std::vector<std::pair<double, double>> xy;
  if (points.is_array()) {
    for (const auto& p : points) {
      if (p.is_object() && p.value("spend_usd", nlohmann::json()).is_number() &&
          p.value("best_value", nlohmann::json()).is_number()) {
        xy.emplace_back(p["spend_usd"].get<double>(), p["best_value"].get<double>());
      }
    }
  }
  return xy;
}

/// The plot's scales: spend from 0 to x_max across, the best value from y_min to y_max up.
struct CurvePlot {
  double x_max = 1.0;
  double y_min = 0.0;
  double y_max = 1.0;
  double plot_w = kWidth - kLeft - kRight;
  double plot_h = kHeight - kTop - kBottom;

  [[nodiscard]] double X(double x) const { return kLeft + x / x_max * plot_w; }
  [[nodiscard]] double Y(double y) const { return kTop + (y_max - y) / (y_max - y_min) * plot_h; }
};

/// Scales that hold every point, the spend so far and the budget, the values padded by 5%.
CurvePlot PlotFor(const std::vector<std::pair<double, double>>& xy, double end_usd,
                  std::optional<double> budget_usd) {
  CurvePlot plot;
  plot.x_max = std::max(end_usd, budget_usd.value_or(0.0));
  for (const auto& [x, y] : xy) plot.x_max = std::max(plot.x_max, x);
  if (!(plot.x_max > 0)) plot.x_max = 1.0;
  if (!xy.empty()) {
    plot.y_min = plot.y_max = xy.front().second;
    for (const auto& [x, y] : xy) {
      plot.y_min = std::min(plot.y_min, y);
      plot.y_max = std::max(plot.y_max, y);
    }
    const double pad = plot.y_max > plot.y_min ? 0.05 * (plot.y_max - plot.y_min)
                                               : std::max(1e-6, 0.05 * std::abs(plot.y_max));
    plot.y_min -= pad;
    plot.y_max += pad;
  }
  return plot;
}

/// The frame: title, axes, their labels and ticks.
std::string CurveFrame(const CurvePlot& plot, const std::string& metric) {
  const double plot_w = plot.plot_w, plot_h = plot.plot_h;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>best {2} so far against spend</title>\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n"
      "<line x1=\"{3}\" y1=\"{4}\" x2=\"{5}\" y2=\"{4}\" stroke=\"black\"/>\n"
      "<line x1=\"{3}\" y1=\"{6}\" x2=\"{3}\" y2=\"{4}\" stroke=\"black\"/>\n"
      "<text x=\"{7}\" y=\"{8}\" text-anchor=\"middle\">spend (USD)</text>\n"
      "<text x=\"14\" y=\"{9}\" transform=\"rotate(-90 14 {9})\" text-anchor=\"middle\">best {2} "
      "(full fidelity)</text>\n",
      kWidth, kHeight, Escaped(metric), kLeft, kTop + plot_h, kLeft + plot_w, kTop,
      kLeft + plot_w / 2, kHeight - 10, kTop + plot_h / 2);
  for (int i = 0; i <= 4; ++i) {
    const double x = plot.x_max * i / 4.0;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:.2f}</text>\n",
                       plot.X(x), kTop + plot_h + 18, x);
    const double y = plot.y_min + (plot.y_max - plot.y_min) * i / 4.0;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4g}</text>\n",
                       kLeft - 6, plot.Y(y) + 4, y);
  }
  return svg;
}

/// The best-so-far as a step line with a dot per point, or a note when there is none yet.
std::string CurveLine(const CurvePlot& plot, const std::vector<std::pair<double, double>>& xy,
                      double end_usd) {
  if (xy.empty()) {
    return fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">no trial has "
        "completed yet</text>\n",
        kLeft + plot.plot_w / 2, kTop + plot.plot_h / 2);
  }
  // A step line: the best stays where it is until the next improvement.
  std::string path =
      fmt::format("M{:.1f},{:.1f}", plot.X(xy.front().first), plot.Y(xy.front().second));
  for (size_t i = 1; i < xy.size(); ++i) {
    path += fmt::format(" H{:.1f} V{:.1f}", plot.X(xy[i].first), plot.Y(xy[i].second));
  }
  path += fmt::format(" H{:.1f}", plot.X(std::max(end_usd, xy.back().first)));
  std::string svg =
      "<path d=\"" + path + "\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>\n";
  for (const auto& [x, y] : xy) {
    svg += fmt::format(
        "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"#1f6feb\"><title>{:.4g} at "
        "{:.2f} USD</title></circle>\n",
        plot.X(x), plot.Y(y), y, x);
  }
  return svg;
}

}  // namespace

std::string BestSoFarSvg(const nlohmann::json& points, const std::string& metric, double end_usd,
                         std::optional<double> budget_usd) {
  const std::vector<std::pair<double, double>> xy = CurvePoints(points);
  const CurvePlot plot = PlotFor(xy, end_usd, budget_usd);
  std::string svg = CurveFrame(plot, metric);
  if (budget_usd) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#c00\" "
        "stroke-dasharray=\"4 3\"><title>budget {3:.2f} USD</title></line>\n",
        plot.X(*budget_usd), kTop, kTop + plot.plot_h, *budget_usd);
  }
  svg += CurveLine(plot, xy, end_usd);
  svg += "</svg>\n";
  return svg;
}

}  // namespace frugal::tune

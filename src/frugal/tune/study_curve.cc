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
}  // namespace

std::string BestSoFarSvg(const nlohmann::json& points, const std::string& metric, double end_usd,
                         std::optional<double> budget_usd) {
  std::vector<std::pair<double, double>> xy;
  if (points.is_array()) {
    for (const auto& p : points) {
      if (p.is_object() && p.value("spend_usd", nlohmann::json()).is_number() &&
          p.value("best_value", nlohmann::json()).is_number()) {
        xy.emplace_back(p["spend_usd"].get<double>(), p["best_value"].get<double>());
      }
    }
  }
  double x_max = std::max(end_usd, budget_usd.value_or(0.0));
  for (const auto& [x, y] : xy) x_max = std::max(x_max, x);
  if (!(x_max > 0)) x_max = 1.0;
  double y_min = 0.0, y_max = 1.0;
  if (!xy.empty()) {
    y_min = y_max = xy.front().second;
    for (const auto& [x, y] : xy) {
      y_min = std::min(y_min, y);
      y_max = std::max(y_max, y);
    }
    const double pad =
        y_max > y_min ? 0.05 * (y_max - y_min) : std::max(1e-6, 0.05 * std::abs(y_max));
    y_min -= pad;
    y_max += pad;
  }
  const double plot_w = kWidth - kLeft - kRight, plot_h = kHeight - kTop - kBottom;
  auto sx = [&](double x) { return kLeft + x / x_max * plot_w; };
  auto sy = [&](double y) { return kTop + (y_max - y) / (y_max - y_min) * plot_h; };
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
    const double x = x_max * i / 4.0;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{:.2f}</text>\n",
                       sx(x), kTop + plot_h + 18, x);
    const double y = y_min + (y_max - y_min) * i / 4.0;
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4g}</text>\n",
                       kLeft - 6, sy(y) + 4, y);
  }
  if (budget_usd) {
    svg += fmt::format(
        "<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"#c00\" "
        "stroke-dasharray=\"4 3\"><title>budget {3:.2f} USD</title></line>\n",
        sx(*budget_usd), kTop, kTop + plot_h, *budget_usd);
  }
  if (xy.empty()) {
    svg += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">no trial has "
        "completed yet</text>\n",
        kLeft + plot_w / 2, kTop + plot_h / 2);
  } else {
    // A step line: the best stays where it is until the next improvement.
    std::string path = fmt::format("M{:.1f},{:.1f}", sx(xy.front().first), sy(xy.front().second));
    for (size_t i = 1; i < xy.size(); ++i) {
      path += fmt::format(" H{:.1f} V{:.1f}", sx(xy[i].first), sy(xy[i].second));
    }
    path += fmt::format(" H{:.1f}", sx(std::max(end_usd, xy.back().first)));
    svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"#1f6feb\" stroke-width=\"2\"/>\n";
    for (const auto& [x, y] : xy) {
      svg += fmt::format(
          "<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"#1f6feb\"><title>{:.4g} at "
          "{:.2f} USD</title></circle>\n",
          sx(x), sy(y), y, x);
    }
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace frugal::tune

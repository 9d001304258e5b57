#include "frugal/audit/svg_chart.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "frugal/core/text.h"

namespace frugal::audit {
namespace {

constexpr std::array<const char*, 10> kPalette = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                                  "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
                                                  "#9c755f", "#bab0ac"};
constexpr double kWidth = 720;
constexpr double kHeight = 300;
constexpr double kLeft = 64;
constexpr double kTop = 34;
constexpr double kBottom = 40;
constexpr double kLegendWidth = 170;
constexpr int kTicks = 4;

const char* Color(size_t i) { return kPalette[i % kPalette.size()]; }

/// A round axis maximum at or above `max`, divided in kTicks steps of 1, 2, 2.5 or 5 × 10^k.
double NiceTop(double max) {
  if (!(max > 0)) return 1;
  const double raw = max / kTicks;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0}) {
    if (m * magnitude >= raw) return m * magnitude * kTicks;
  }
  return 10 * magnitude * kTicks;
}

/// "$1.5k", "$250", "12 h": short enough for an axis or a bar label.
std::string Short(double v, const std::string& unit) {
  std::string number;
  const double a = std::abs(v);
  if (a >= 1e6) {
    number = fmt::format("{:.3g}M", v / 1e6);
  } else if (a >= 1e4) {
    number = fmt::format("{:.0f}k", v / 1e3);
  } else if (a >= 1e3) {
    number = fmt::format("{:.3g}k", v / 1e3);
  } else if (a >= 10 || a == 0) {
    number = fmt::format("{:.0f}", v);
  } else {
    number = fmt::format("{:.2g}", v);
  }
  return unit == "$" ? "$" + number : number + unit;
}

std::string Open(const BarChart& chart, double width, double height) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" role=\"img\" width=\"{0}\" "
      "height=\"{1}\" viewBox=\"0 0 {0} {1}\" font-family=\"sans-serif\" font-size=\"11\">"
      "<title>{2}</title><rect width=\"{0}\" height=\"{1}\" fill=\"#ffffff\"/>"
      "<text x=\"{3}\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{2}</text>",
      width, height, XmlEscape(chart.title), kLeft);
}

std::string Legend(const BarChart& chart, double x) {
  std::string out;
  for (size_t i = 0; i < chart.series.size(); ++i) {
    const double y = kTop + 8 + static_cast<double>(i) * 18;
    out += fmt::format(
        "<rect class=\"legend\" x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>"
        "<text x=\"{}\" y=\"{}\">{}</text>",
        x, y, Color(i), x + 18, y + 10, XmlEscape(chart.series[i].name));
  }
  return out;
}

}  // namespace

std::string StackedBarSvg(const BarChart& chart) {
  const bool legend = chart.series.size() > 1;
  const double width = kWidth + (legend ? kLegendWidth : 0);
  const double plot_w = kWidth - kLeft - 16;
  const double plot_h = kHeight - kTop - kBottom;
  const size_t n = chart.labels.size();
  std::vector<double> totals(n, 0.0);
  for (const ChartSeries& s : chart.series) {
    for (size_t i = 0; i < n && i < s.values.size(); ++i) totals[i] += std::max(s.values[i], 0.0);
  }
  const double top = NiceTop(totals.empty() ? 0 : *std::max_element(totals.begin(), totals.end()));
  std::string out = Open(chart, width, kHeight);
  for (int t = 0; t <= kTicks; ++t) {
    const double value = top * t / kTicks;
    const double y = kTop + plot_h - plot_h * t / kTicks;
    out += fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#dddddd\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>",
        kLeft, kLeft + plot_w, y, kLeft - 6, y + 4, XmlEscape(Short(value, chart.unit)));
  }
  const double slot = n == 0 ? plot_w : plot_w / static_cast<double>(n);
  const double bar = std::max(slot * 0.7, 1.0);
  const size_t label_every = std::max<size_t>(1, (n + 11) / 12);
  for (size_t i = 0; i < n; ++i) {
    const double x = kLeft + slot * static_cast<double>(i) + (slot - bar) / 2;
    double base = kTop + plot_h;
    for (size_t k = 0; k < chart.series.size(); ++k) {
      const double v = i < chart.series[k].values.size() ? chart.series[k].values[i] : 0;
      if (!(v > 0)) continue;
      const double h = plot_h * v / top;
      base -= h;
      out += fmt::format(
          "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"{}\"><title>{}: {}</title></rect>",
          x, base, bar, h, Color(k), XmlEscape(chart.labels[i] + " " + chart.series[k].name),
          XmlEscape(Short(v, chart.unit)));
    }
    if (i % label_every == 0) {
      out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>",
                         x + bar / 2, kTop + plot_h + 16, XmlEscape(chart.labels[i]));
    }
  }
  if (legend) out += Legend(chart, kWidth);
  return out + "</svg>";
}

std::string HorizontalBarSvg(const BarChart& chart) {
  const std::vector<double> values =
      chart.series.empty() ? std::vector<double>() : chart.series.front().values;
  const size_t n = std::min(values.size(), chart.labels.size());
  const double label_w = 190;
  const double row = 24;
  const double height = kTop + 10 + row * static_cast<double>(std::max<size_t>(n, 1));
  const double plot_w = kWidth - label_w - 90;
  double max = 0;
  for (size_t i = 0; i < n; ++i) max = std::max(max, values[i]);
  std::string out = Open(chart, kWidth, height);
  for (size_t i = 0; i < n; ++i) {
    const double y = kTop + 6 + row * static_cast<double>(i);
    const double w = max > 0 ? std::max(plot_w * values[i] / max, 1.0) : 1.0;
    out += fmt::format(
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>"
        "<rect class=\"bar\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "fill=\"{}\"><title>{}: {}</title></rect>"
        "<text x=\"{:.1f}\" y=\"{:.1f}\">{}</text>",
        label_w - 8, y + 13, XmlEscape(chart.labels[i]), label_w, y, w, row - 6, Color(i),
        XmlEscape(chart.labels[i]), XmlEscape(Short(values[i], chart.unit)), label_w + w + 6,
        y + 13, XmlEscape(Short(values[i], chart.unit)));
  }
  return out + "</svg>";
}

}  // namespace frugal::audit

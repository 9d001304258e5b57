#pragma once
// Bar charts drawn as self-contained SVG (no scripts, no external references), for reports
// that must open anywhere: a stacked vertical bar chart and a horizontal bar chart.

#include <string>
#include <vector>

namespace frugal::audit {

struct ChartSeries {
  std::string name;
  std::vector<double> values;  ///< one per label, >= 0
};

struct BarChart {
  std::string title;
  std::string unit;  ///< "$" (prefix, money) or a suffix such as " h"
  std::vector<std::string> labels;
  std::vector<ChartSeries> series;  ///< stacked in this order; one series draws no legend
};

/// Vertical bars, one per label, the series stacked; a y axis with rounded gridlines.
[[nodiscard]] std::string StackedBarSvg(const BarChart& chart);
/// One horizontal bar per label (the first series), its value printed beside it.
[[nodiscard]] std::string HorizontalBarSvg(const BarChart& chart);

}  // namespace frugal::audit

// The lifetime bill drawn: cumulative cost per month, training and inference stacked, as SVG;
// and the self-contained HTML report around it.

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "frugal/core/text.h"
#include "frugal/serving/lifetime.h"

namespace frugal::serving {
namespace {

constexpr double kWidth = 760;
constexpr double kHeight = 380;
constexpr double kLeft = 90;
constexpr double kRight = 20;
constexpr double kTop = 40;
constexpr double kBottom = 50;
constexpr const char* kTrainingColor = "#4e79a7";
constexpr const char* kInferenceColor = "#f28e2b";

/// A round axis maximum at or above `v`: 1, 2 or 5 times a power of ten.
double NiceCeiling(double v) {
  if (v <= 0) return 1;
  const double p = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= v) return m * p;
  }
  return 10 * p;
}

std::string Dollars(double v) {
  std::string text = Money::FromDollars(std::round(v)).ToString();
  if (text.ends_with(".00")) text.resize(text.size() - 3);
  return text;
}

}  // namespace

std::string LifetimeSvg(const LifetimeBill& bill) {
  std::ostringstream s;
  const double top_value = bill.points.empty() ? 1 : bill.total.dollars();
  const double axis = NiceCeiling(top_value);
  const double plot_w = kWidth - kLeft - kRight;
  const double plot_h = kHeight - kTop - kBottom;
  const double n = static_cast<double>(std::max<size_t>(bill.points.size(), 1));
  const double slot = plot_w / n;
  auto y = [&](double dollars) { return kTop + plot_h * (1 - dollars / axis); };
  s << fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} "
      "{1}\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, kHeight);
  s << fmt::format(
      "<text x=\"{}\" y=\"20\" font-size=\"14\">Cumulative cost over {} months: training and "
      "inference</text>\n",
      kLeft, bill.months);
  for (int i = 0; i <= 4; ++i) {
    const double v = axis * i / 4;
    s << fmt::format(
        "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
        "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
        kLeft, kWidth - kRight, y(v), kLeft - 6, y(v) + 4, Dollars(v));
  }
  for (size_t i = 0; i < bill.points.size(); ++i) {
    const MonthPoint& p = bill.points[i];
    const double x = kLeft + slot * static_cast<double>(i) + slot * 0.15;
    const double w = slot * 0.7;
    const double t = p.training.dollars();
    const double inf = p.inference.dollars();
    s << fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>month {}: training {}</title></rect>\n",
        x, y(t), w, kTop + plot_h - y(t), kTrainingColor, p.month, p.training.ToString());
    s << fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"{}\">"
        "<title>month {}: inference {}</title></rect>\n",
        x, y(t + inf), w, y(t) - y(t + inf), kInferenceColor, p.month, p.inference.ToString());
    if (bill.points.size() <= 25 || p.month % 6 == 0) {
      s << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       x + w / 2, kTop + plot_h + 16, p.month);
    }
  }
  s << fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">month</text>\n",
                   kLeft + plot_w / 2, kHeight - 10);
  s << fmt::format(
      "<rect x=\"{0}\" y=\"{1}\" width=\"12\" height=\"12\" fill=\"{2}\"/><text x=\"{3}\" "
      "y=\"{4}\">training</text><rect x=\"{5}\" y=\"{1}\" width=\"12\" height=\"12\" "
      "fill=\"{6}\"/><text x=\"{7}\" y=\"{4}\">inference</text>\n",
      kWidth - 200, kTop - 14, kTrainingColor, kWidth - 184, kTop - 4, kWidth - 110,
      kInferenceColor, kWidth - 94);
  s << "</svg>\n";
  return s.str();
}

std::string LifetimeHtml(const InferenceSpec& spec, const LifetimeBill& bill) {
  std::ostringstream h;
  h << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
       "<link rel=\"icon\" href=\"data:,\">"
    << fmt::format("<title>Lifetime bill: {}</title>", XmlEscape(spec.name))
    << "<style>body{font-family:sans-serif;margin:2em;max-width:60em}"
       "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;"
       "text-align:left}td.n{text-align:right}</style></head><body>\n";
  h << fmt::format("<h1>Lifetime bill: {}</h1>\n", XmlEscape(spec.name));
  h << "<table>\n";
  auto row = [&](std::string_view k, const std::string& v) {
    h << fmt::format("<tr><th>{}</th><td class=\"n\">{}</td></tr>\n", k, XmlEscape(v));
  };
  row("Serving", bill.serving_label);
  row("Serving per month", bill.serving.monthly.ToString());
  row("Training", fmt::format("{} ({})", bill.training.first.ToString(), bill.training.source));
  row("Retraining", bill.retrains == 0
                        ? "none"
                        : fmt::format("{} x {}", bill.retrains, bill.training.retrain.ToString()));
  row(fmt::format("Training over {} months", bill.months), bill.training_total.ToString());
  row(fmt::format("Inference over {} months", bill.months), bill.inference_total.ToString());
  row("Lifetime total", bill.total.ToString());
  row("Inference : training",
      bill.inference_to_training > 0 ? fmt::format("{:.1f} : 1", bill.inference_to_training) : "-");
  h << "</table>\n";
  h << LifetimeSvg(bill);
  if (!bill.levers.empty()) {
    h << fmt::format("<h2>Levers (each alone, against {})</h2>\n<table>\n",
                     XmlEscape(bill.baseline_label));
    h << "<tr><th>lever</th><th>saves per month</th><th>over the lifetime</th><th>how</th></tr>\n";
    for (const Lever& l : bill.levers) {
      h << fmt::format(
          "<tr><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>\n",
          XmlEscape(l.name), l.available ? l.monthly_saving.ToString() : "-",
          l.available ? l.lifetime_saving.ToString() : "-", XmlEscape(l.detail));
    }
    h << "</table>\n";
  }
  h << "</body></html>\n";
  return h.str();
}

}  // namespace frugal::serving

// The wait-for cycle of a deadlock as an SVG picture (reports/check.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "pathlock/reports/check.hpp"
#include "pathlock/reports/document.hpp"

namespace pathlock::reports {

std::string cycle_svg(const std::vector<sim::Counterexample::CycleNode>& cycle) {
  // Boxes on a circle, arrows along the chords; sizes in pixels, text in a
  // monospace font so a label's width is its length times the glyph width.
  constexpr double kGlyph = 7.2;
  constexpr double kBoxHeight = 28;
  constexpr double kPi = 3.14159265358979323846;
  const std::size_t n = cycle.size();
  std::size_t longest = 0;
  for (const auto& node : cycle) longest = std::max(longest, node.task.size());
  const double box_width = static_cast<double>(longest) * kGlyph + 20;
  const double radius = n == 1 ? 0 : std::max(110.0, box_width * 0.75);
  const double width = std::max(440.0, 2 * radius + box_width + 220);
  const double height = n == 1 ? 200 : 2 * radius + 140;
  const double cx = width / 2;
  const double cy = height / 2 + (n == 1 ? 30 : 0);
  std::vector<std::pair<double, double>> at;
  for (std::size_t i = 0; i < n; ++i) {
    const double angle = -kPi / 2 + 2 * kPi * static_cast<double>(i) / static_cast<double>(n);
    at.emplace_back(cx + radius * std::cos(angle), cy + radius * std::sin(angle));
  }
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0:.0f}\" height=\"{1:.0f}\" viewBox=\"0 0 {0:.0f} {1:.0f}\" "
      "font-family=\"monospace\" font-size=\"12\">\n"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"8\" markerHeight=\"8\" "
      "orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" fill=\"#b00\"/></marker></defs>\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{2:.0f}\" y=\"20\" text-anchor=\"middle\" font-weight=\"bold\">wait-for cycle: each task waits for "
      "the next</text>\n",
      width, height, cx);
  // Where the segment from the centre of a box towards `to` leaves the box.
  const auto exit_point = [&](std::pair<double, double> from, std::pair<double, double> to) {
    const double dx = to.first - from.first;
    const double dy = to.second - from.second;
    const double sx = dx == 0 ? 1e9 : (box_width / 2) / std::abs(dx);
    const double sy = dy == 0 ? 1e9 : (kBoxHeight / 2) / std::abs(dy);
    const double t = std::min(sx, sy);
    return std::pair{from.first + dx * t, from.second + dy * t};
  };
  for (std::size_t i = 0; i < n; ++i) {
    const std::string label = "waits for " + html_escape(cycle[i].waits_for);
    if (n == 1) {
      const double top = at[i].second - kBoxHeight / 2;
      svg += fmt::format(
          "<path d=\"M{:.1f},{:.1f} C{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\" fill=\"none\" stroke=\"#b00\" "
          "stroke-width=\"1.5\" marker-end=\"url(#arrow)\"/>\n"
          "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\" fill=\"#b00\">{}</text>\n",
          cx - 30, top, cx - 60, top - 70, cx + 60, top - 70, cx + 30, top, cx, top - 58, label);
      continue;
    }
    const auto& next = at[(i + 1) % n];
    auto from = exit_point(at[i], next);
    auto to = exit_point(next, at[i]);
    // Two tasks share one chord: draw the two arrows apart, side by side.
    double shift = 0;
    if (n == 2) {
      const double length = std::hypot(to.first - from.first, to.second - from.second);
      const double px = -(to.second - from.second) / length * 16;
      const double py = (to.first - from.first) / length * 16;
      from = {from.first + px, from.second + py};
      to = {to.first + px, to.second + py};
      shift = px;
    }
    const char* anchor = shift > 0 ? "start" : shift < 0 ? "end" : "middle";
    svg += fmt::format(
        "<line x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" y2=\"{:.1f}\" stroke=\"#b00\" stroke-width=\"1.5\" "
        "marker-end=\"url(#arrow)\"/>\n"
        "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"{}\" fill=\"#b00\">{}</text>\n",
        from.first, from.second, to.first, to.second, (from.first + to.first) / 2 + shift / 2,
        (from.second + to.second) / 2 - 6, anchor, label);
  }
  for (std::size_t i = 0; i < n; ++i) {
    svg += fmt::format(
        "<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.0f}\" rx=\"5\" fill=\"#fff4e5\" "
        "stroke=\"#333\"/>\n<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
        at[i].first - box_width / 2, at[i].second - kBoxHeight / 2, box_width, kBoxHeight, at[i].first,
        at[i].second + 4, html_escape(cycle[i].task));
  }
  return svg + "</svg>\n";
}

}  // namespace pathlock::reports

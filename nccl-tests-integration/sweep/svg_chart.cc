#include "nccl-tests-integration/sweep/svg_chart.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "common/strings.h"

namespace nccl_roce::sweep {

namespace {

constexpr double kWidth = 900, kLeft = 80, kRight = 30;
constexpr double kTimeHeight = 300, kRatioHeight = 170, kGap = 50, kTitle = 60, kBottom = 50;
constexpr double kSeriesHeight = kTitle + kTimeHeight + kGap + kRatioHeight + kBottom;
constexpr const char* kColorA = "#1f77b4";
constexpr const char* kColorB = "#d62728";

std::string num(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", v);
  return buffer;
}

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string text(double x, double y, const std::string& content, const char* anchor = "middle", int size = 12) {
  return "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\" font-size=\"" +
         std::to_string(size) + "\">" + escape(content) + "</text>\n";
}

std::string line(double x1, double y1, double x2, double y2, const char* stroke, const char* extra = "") {
  return "<line x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" + num(y2) + "\" stroke=\"" +
         stroke + "\" " + extra + "/>\n";
}

// Log-scale axis mapping [lo, hi] onto [from, to].
struct LogScale {
  double lo, hi, from, to;
  double at(double v) const {
    double span = std::log(hi) - std::log(lo);
    double t = span > 0 ? (std::log(v) - std::log(lo)) / span : 0.5;
    return from + t * (to - from);
  }
};

struct LinearScale {
  double lo, hi, from, to;
  double at(double v) const { return from + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * (to - from); }
};

// Tick values are 1, 2 or 5 times a power of ten, so %g prints them exactly.
std::string timeLabel(double us) {
  char buffer[32];
  if (us >= 1e6) {
    std::snprintf(buffer, sizeof buffer, "%g s", us / 1e6);
  } else if (us >= 1e3) {
    std::snprintf(buffer, sizeof buffer, "%g ms", us / 1e3);
  } else {
    std::snprintf(buffer, sizeof buffer, "%g us", us);
  }
  return buffer;
}

std::string polyline(const std::vector<std::pair<double, double>>& points, const char* color) {
  std::string out = "<polyline fill=\"none\" stroke=\"" + std::string(color) + "\" stroke-width=\"2\" points=\"";
  for (const auto& [x, y] : points) out += num(x) + "," + num(y) + " ";
  out += "\"/>\n";
  for (const auto& [x, y] : points) {
    out += "<circle cx=\"" + num(x) + "\" cy=\"" + num(y) + "\" r=\"3\" fill=\"" + color + "\"/>\n";
  }
  return out;
}

// The sizes with a time on both sides: the only ones that can be drawn on the log time axis.
std::vector<const verdicts::CellComparison*> cellsWithTimes(const SeriesComparison& s) {
  std::vector<const verdicts::CellComparison*> cells;
  for (const verdicts::CellComparison& z : s.result.cells) {
    if (z.geomeanA > 0 && z.geomeanB > 0) cells.push_back(&z);
  }
  return cells;
}

// Where one series' two panels sit: times above, B/A ratios below, one size axis for both.
struct PanelLayout {
  double x0, x1;         // left and right edges of both panels
  double tTop, tBottom;  // the time panel
  double rTop, rBottom;  // the ratio panel
  LogScale x, y;         // size across, time up
  LinearScale r;         // ratio up
};

// Axes that fit every time and every ratio interval of `cells`, for panels starting at `top`.
PanelLayout layoutOf(const std::vector<const verdicts::CellComparison*>& cells, double top) {
  uint64_t minSize = cells.front()->cell, maxSize = cells.back()->cell;
  double minTime = 1e300, maxTime = 0, minRatio = 1, maxRatio = 1;
  for (const verdicts::CellComparison* z : cells) {
    minTime = std::min({minTime, z->geomeanA, z->geomeanB});
    maxTime = std::max({maxTime, z->geomeanA, z->geomeanB});
    minRatio = std::min(minRatio, z->interval ? z->interval->low : z->ratio);
    maxRatio = std::max(maxRatio, z->interval ? z->interval->high : z->ratio);
  }
  PanelLayout p;
  p.x0 = kLeft;
  p.x1 = kWidth - kRight;
  // Zero-byte rows cannot sit on a log axis; plot them at 1 byte.
  p.x = LogScale{static_cast<double>(std::max<uint64_t>(minSize, 1)),
                 static_cast<double>(std::max<uint64_t>(maxSize, 2)), p.x0, p.x1};
  p.tTop = top + kTitle;
  p.tBottom = p.tTop + kTimeHeight;
  p.y = LogScale{minTime / 1.3, maxTime * 1.3, p.tBottom, p.tTop};
  p.rTop = p.tBottom + kGap;
  p.rBottom = p.rTop + kRatioHeight;
  double pad = std::max(0.05, (maxRatio - minRatio) * 0.1);
  p.r = LinearScale{std::max(0.0, minRatio - pad), maxRatio + pad, p.rBottom, p.rTop};
  return p;
}

// The inference range shaded in both panels, then both panels' frames.
std::string backgrounds(const Comparison& c, const PanelLayout& p) {
  std::string out;
  double lo = p.x.at(std::clamp<double>(static_cast<double>(c.options.rangeLo), p.x.lo, p.x.hi));
  double hi = p.x.at(std::clamp<double>(static_cast<double>(c.options.rangeHi), p.x.lo, p.x.hi));
  if (hi > lo) {
    for (auto [a, b] : {std::pair<double, double>{p.tTop, p.tBottom}, {p.rTop, p.rBottom}}) {
      out += "<rect x=\"" + num(lo) + "\" y=\"" + num(a) + "\" width=\"" + num(hi - lo) + "\" height=\"" + num(b - a) +
             "\" fill=\"#f0f0f0\"/>\n";
    }
    out += text((lo + hi) / 2, p.tTop + 14, "inference range", "middle", 11);
  }
  for (auto [a, b] : {std::pair<double, double>{p.tTop, p.tBottom}, {p.rTop, p.rBottom}}) {
    out += "<rect x=\"" + num(p.x0) + "\" y=\"" + num(a) + "\" width=\"" + num(p.x1 - p.x0) + "\" height=\"" +
           num(b - a) + "\" fill=\"none\" stroke=\"#444\"/>\n";
  }
  return out;
}

// Size ticks at every power of 4 bytes within the measured range, labelled below the ratio panel.
std::string sizeAxis(const PanelLayout& p) {
  std::string out;
  for (double v = 1; v <= p.x.hi * 1.0001; v *= 4) {
    if (v < p.x.lo / 1.0001) continue;
    double px = p.x.at(v);
    out += line(px, p.tTop, px, p.tBottom, "#ddd") + line(px, p.rTop, px, p.rBottom, "#ddd");
    out += text(px, p.rBottom + 16, formatByteSize(static_cast<uint64_t>(v)), "middle", 11);
  }
  return out + text(kWidth / 2, p.rBottom + 36, "message size (bytes)");
}

// Time ticks at 1, 2 and 5 x 10^k.
std::string timeAxis(const PanelLayout& p) {
  std::string out;
  for (double decade = std::pow(10, std::floor(std::log10(p.y.lo))); decade <= p.y.hi; decade *= 10) {
    for (double m : {1.0, 2.0, 5.0}) {
      double v = decade * m;
      if (v < p.y.lo || v > p.y.hi) continue;
      out += line(p.x0, p.y.at(v), p.x1, p.y.at(v), "#ddd") + text(p.x0 - 6, p.y.at(v) + 4, timeLabel(v), "end", 11);
    }
  }
  return out + "<text x=\"20\" y=\"" + num((p.tTop + p.tBottom) / 2) + "\" font-size=\"12\" text-anchor=\"middle\" " +
         "transform=\"rotate(-90 20 " + num((p.tTop + p.tBottom) / 2) + ")\">time (geometric mean)</text>\n";
}

// Ratio ticks, and a dashed line at 1 (no difference).
std::string ratioAxis(const PanelLayout& p) {
  std::string out;
  double step = (p.r.hi - p.r.lo) > 1 ? 0.5 : (p.r.hi - p.r.lo) > 0.4 ? 0.1 : 0.05;
  for (double v = std::ceil(p.r.lo / step) * step; v <= p.r.hi; v += step) {
    out += text(p.x0 - 6, p.r.at(v) + 4, num(v).substr(0, 4), "end", 11);
  }
  out += line(p.x0, p.r.at(1.0), p.x1, p.r.at(1.0), "#444", "stroke-dasharray=\"4 3\"");
  return out + "<text x=\"20\" y=\"" + num((p.rTop + p.rBottom) / 2) + "\" font-size=\"12\" text-anchor=\"middle\" " +
         "transform=\"rotate(-90 20 " + num((p.rTop + p.rBottom) / 2) + ")\">B / A</text>\n";
}

// Each size's ratio with its interval, coloured by verdict; then A's and B's times as lines.
std::string dataMarks(const std::vector<const verdicts::CellComparison*>& cells, const PanelLayout& p) {
  std::string out;
  std::vector<std::pair<double, double>> a, b;
  for (const verdicts::CellComparison* z : cells) {
    double px = p.x.at(static_cast<double>(std::max<uint64_t>(z->cell, 1)));
    a.emplace_back(px, p.y.at(z->geomeanA));
    b.emplace_back(px, p.y.at(z->geomeanB));
    const char* color = z->verdict == Verdict::kFaster ? "#2ca02c" : z->verdict == Verdict::kSlower ? kColorB : "#666";
    if (z->interval) {
      out += line(px, p.r.at(z->interval->low), px, p.r.at(z->interval->high), color, "stroke-width=\"2\"");
    }
    out += "<circle cx=\"" + num(px) + "\" cy=\"" + num(p.r.at(z->ratio)) + "\" r=\"3\" fill=\"" + color + "\"/>\n";
  }
  return out + polyline(a, kColorA) + polyline(b, kColorB);
}

std::string legend(const Comparison& c, const PanelLayout& p) {
  double lx = p.x0 + 10, ly = p.tTop + 20;  // top left: small sizes have the smallest times
  std::string out =
      line(lx, ly, lx + 25, ly, kColorA, "stroke-width=\"2\"") + text(lx + 30, ly + 4, "A: " + c.labelA, "start");
  out += line(lx, ly + 18, lx + 25, ly + 18, kColorB, "stroke-width=\"2\"") +
         text(lx + 30, ly + 22, "B: " + c.labelB, "start");
  return out + text(p.x1 - 4, p.rTop + 14, "bars: CI; green faster, red slower", "end", 11);
}

std::string seriesPanels(const Comparison& c, const SeriesComparison& s, double top) {
  std::string out =
      text(kWidth / 2, top + 25, s.key.describe() + ": " + c.labelA + " (A) vs " + c.labelB + " (B)", "middle", 15);
  std::vector<const verdicts::CellComparison*> cells = cellsWithTimes(s);
  if (cells.empty()) return out + text(kWidth / 2, top + 80, "no size measured on both sides");
  PanelLayout p = layoutOf(cells, top);
  return out + backgrounds(c, p) + sizeAxis(p) + timeAxis(p) + ratioAxis(p) + dataMarks(cells, p) + legend(c, p);
}

}  // namespace

std::string comparisonToSvg(const Comparison& c) {
  size_t panels = std::max<size_t>(c.series.size(), 1);
  double height = kSeriesHeight * static_cast<double>(panels);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" +
                    num(kWidth) + "\" height=\"" + num(height) + "\" viewBox=\"0 0 " + num(kWidth) + " " + num(height) +
                    "\" font-family=\"sans-serif\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (c.series.empty()) out += text(kWidth / 2, 60, "no series measured on both sides");
  for (size_t i = 0; i < c.series.size(); ++i) {
    out += seriesPanels(c, c.series[i], kSeriesHeight * static_cast<double>(i));
  }
  return out + "</svg>\n";
}

}  // namespace nccl_roce::sweep

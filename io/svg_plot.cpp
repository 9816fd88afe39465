// io/svg_plot: data (x, y) → panel pixels by the linear maps of each Axes, then SVG elements for
// lines, bands, markers, ticks and legends as text. No equation beyond those maps.
// Read io/svg_plot.hpp first.
#include "io/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "core/error.hpp"

namespace empl {
namespace {

constexpr double kMarginLeft = 58, kMarginRight = 12, kMarginTop = 28, kMarginBottom = 44;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string number(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  return buffer;
}

// Tick label: as short as the value allows ("0.25", "1000", "1e-05").
std::string tick_label(double value) {
  if (std::abs(value) < 1e-12) return "0";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.4g", value);
  return buffer;
}

// "Nice" ticks: a step of 1, 2 or 5 times a power of ten giving about 5 ticks over [lo, hi].
std::vector<double> nice_ticks(double lo, double hi) {
  const double span = hi - lo;
  if (!(span > 0)) return {lo};
  const double raw = span / 5.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  const double fraction = raw / magnitude;
  const double step = (fraction < 1.5 ? 1.0 : fraction < 3.5 ? 2.0 : fraction < 7.5 ? 5.0 : 10.0) * magnitude;
  std::vector<double> ticks;
  for (double t = std::ceil(lo / step - 1e-9) * step; t <= hi + step * 1e-9; t += step)
    ticks.push_back(std::abs(t) < step * 1e-9 ? 0.0 : t);
  return ticks;
}

void check_lengths(const char* what, size_t a, size_t b) {
  if (a != b) fail("svg_plot: ", what, ": ", a, " x values but ", b, " y values");
}

}  // namespace

std::string colormap(double t) {
  // Five anchor colours of viridis, linearly interpolated.
  static const double anchors[5][3] = {
      {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
  t = std::clamp(std::isfinite(t) ? t : 0.0, 0.0, 1.0) * 4.0;
  const int i = std::min(3, static_cast<int>(t));
  const double f = t - i;
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "#%02x%02x%02x",
                static_cast<int>(anchors[i][0] + f * (anchors[i + 1][0] - anchors[i][0])),
                static_cast<int>(anchors[i][1] + f * (anchors[i + 1][1] - anchors[i][1])),
                static_cast<int>(anchors[i][2] + f * (anchors[i + 1][2] - anchors[i][2])));
  return buffer;
}

void Axes::line(const std::vector<double>& xs, const std::vector<double>& ys, const Style& style) {
  check_lengths("line", xs.size(), ys.size());
  items_.push_back({Kind::Line, xs, ys, {}, {}, style});
}

void Axes::step(const std::vector<double>& xs, const std::vector<double>& ys, const Style& style) {
  if (xs.size() != ys.size() + 1 && xs.size() != ys.size())
    fail("svg_plot: step: ", xs.size(), " edges for ", ys.size(), " values");
  items_.push_back({Kind::Step, xs, ys, {}, {}, style});
}

void Axes::band(const std::vector<double>& xs, const std::vector<double>& lower,
                const std::vector<double>& upper, const Style& style) {
  check_lengths("band", xs.size(), lower.size());
  check_lengths("band", xs.size(), upper.size());
  items_.push_back({Kind::Band, xs, lower, upper, {}, style});
}

void Axes::markers(const std::vector<double>& xs, const std::vector<double>& ys, const Style& style) {
  check_lengths("markers", xs.size(), ys.size());
  items_.push_back({Kind::Markers, xs, ys, {}, {}, style});
}

void Axes::error_bars(const std::vector<double>& xs, const std::vector<double>& lower,
                      const std::vector<double>& upper, const Style& style) {
  check_lengths("error_bars", xs.size(), lower.size());
  check_lengths("error_bars", xs.size(), upper.size());
  items_.push_back({Kind::ErrorBars, xs, lower, upper, {}, style});
}

void Axes::rect(double x0, double y0, double x1, double y1, const Style& style) {
  items_.push_back({Kind::Rect, {x0, x1}, {y0, y1}, {}, {}, style});
}

void Axes::vline(double x, const Style& style) { items_.push_back({Kind::VLine, {x}, {}, {}, {}, style}); }
void Axes::hline(double y, const Style& style) { items_.push_back({Kind::HLine, {}, {y}, {}, {}, style}); }

void Axes::text(double x, double y, std::string content, const Style& style) {
  items_.push_back({Kind::Text, {x}, {y}, {}, std::move(content), style});
}

Axes::Range Axes::x_range() const {
  if (xlim_) return *xlim_;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Item& item : items_)
    for (double x : item.xs)
      if (std::isfinite(x) && (!xlog_ || x > 0)) lo = std::min(lo, x), hi = std::max(hi, x);
  if (!(lo < hi)) return {std::isfinite(lo) ? lo - 1 : 0.0, std::isfinite(hi) ? hi + 1 : 1.0};
  return {lo, hi};
}

Axes::Range Axes::y_range() const {
  if (ylim_) return *ylim_;
  double lo = std::numeric_limits<double>::infinity(), hi = -lo;
  for (const Item& item : items_)
    for (const std::vector<double>* values : {&item.ys, &item.ys2})
      for (double y : *values)
        if (std::isfinite(y)) lo = std::min(lo, y), hi = std::max(hi, y);
  if (!(lo < hi)) return {std::isfinite(lo) ? lo - 1 : 0.0, std::isfinite(hi) ? hi + 1 : 1.0};
  const double pad = 0.04 * (hi - lo);
  return {lo - pad, hi + pad};
}

std::string Axes::render(double left, double top, double width, double height) const {
  const Range xr = x_range(), yr = y_range();
  const double x0 = left + kMarginLeft, x1 = left + width - kMarginRight;
  const double y0 = top + height - kMarginBottom, y1 = top + kMarginTop;
  auto to_x = [&](double x) {
    const double u = xlog_ ? (std::log10(std::max(x, 1e-300)) - std::log10(xr.lo)) /
                                 (std::log10(xr.hi) - std::log10(xr.lo))
                           : (x - xr.lo) / (xr.hi - xr.lo);
    return x0 + u * (x1 - x0);
  };
  auto to_y = [&](double y) { return y0 - (y - yr.lo) / (yr.hi - yr.lo) * (y0 - y1); };
  auto stroke = [](const Style& s) {
    return "stroke=\"" + s.color + "\" stroke-width=\"" + number(s.width) + "\"" +
           (s.dashed ? " stroke-dasharray=\"5,3\"" : "") + " fill=\"none\"";
  };
  auto polyline = [&](const std::vector<double>& xs, const std::vector<double>& ys) {
    std::string points;
    for (size_t i = 0; i < xs.size(); ++i)
      if (std::isfinite(xs[i]) && std::isfinite(ys[i]))
        points += number(to_x(xs[i])) + "," + number(to_y(ys[i])) + " ";
    return points;
  };

  std::ostringstream svg;
  const std::string clip = "clip" + std::to_string(static_cast<long>(left)) + "_" +
                           std::to_string(static_cast<long>(top));
  svg << "<clipPath id=\"" << clip << "\"><rect x=\"" << number(x0) << "\" y=\"" << number(y1)
      << "\" width=\"" << number(x1 - x0) << "\" height=\"" << number(y0 - y1) << "\"/></clipPath>\n";
  svg << "<rect x=\"" << number(x0) << "\" y=\"" << number(y1) << "\" width=\"" << number(x1 - x0)
      << "\" height=\"" << number(y0 - y1) << "\" fill=\"white\" stroke=\"#444\"/>\n";

  // Ticks and grid.
  std::vector<double> xticks;
  if (xlog_) {
    for (double d = std::floor(std::log10(xr.lo)); d <= std::ceil(std::log10(xr.hi)); ++d)
      if (std::pow(10.0, d) >= xr.lo * 0.999 && std::pow(10.0, d) <= xr.hi * 1.001)
        xticks.push_back(std::pow(10.0, d));
  } else {
    xticks = nice_ticks(xr.lo, xr.hi);
  }
  for (double t : xticks) {
    const double px = to_x(t);
    svg << "<line x1=\"" << number(px) << "\" y1=\"" << number(y0) << "\" x2=\"" << number(px)
        << "\" y2=\"" << number(y0 + 4) << "\" stroke=\"#444\"/>"
        << "<text x=\"" << number(px) << "\" y=\"" << number(y0 + 16)
        << "\" font-size=\"11\" text-anchor=\"middle\">" << tick_label(t) << "</text>\n";
  }
  for (double t : nice_ticks(yr.lo, yr.hi)) {
    const double py = to_y(t);
    svg << "<line x1=\"" << number(x0 - 4) << "\" y1=\"" << number(py) << "\" x2=\"" << number(x1)
        << "\" y2=\"" << number(py) << "\" stroke=\"#e4e4e4\"/>"
        << "<text x=\"" << number(x0 - 6) << "\" y=\"" << number(py + 4)
        << "\" font-size=\"11\" text-anchor=\"end\">" << tick_label(t) << "</text>\n";
  }

  svg << "<g clip-path=\"url(#" << clip << ")\">\n";
  for (const Item& item : items_) {
    const Style& s = item.style;
    switch (item.kind) {
      case Kind::Line:
        svg << "<polyline points=\"" << polyline(item.xs, item.ys) << "\" " << stroke(s) << "/>\n";
        break;
      case Kind::Step: {
        std::vector<double> sx, sy;
        for (size_t i = 0; i < item.ys.size(); ++i) {
          const double right = i + 1 < item.xs.size() ? item.xs[i + 1] : item.xs[i] + 1;
          sx.insert(sx.end(), {item.xs[i], right});
          sy.insert(sy.end(), {item.ys[i], item.ys[i]});
        }
        svg << "<polyline points=\"" << polyline(sx, sy) << "\" " << stroke(s) << "/>\n";
        break;
      }
      case Kind::Band: {
        std::vector<double> xs = item.xs, ys = item.ys2;
        xs.insert(xs.end(), item.xs.rbegin(), item.xs.rend());
        ys.insert(ys.end(), item.ys.rbegin(), item.ys.rend());
        svg << "<polygon points=\"" << polyline(xs, ys) << "\" fill=\"" << s.color
            << "\" fill-opacity=\"" << number(s.opacity) << "\" stroke=\"none\"/>\n";
        break;
      }
      case Kind::Markers:
        for (size_t i = 0; i < item.xs.size(); ++i)
          if (std::isfinite(item.xs[i]) && std::isfinite(item.ys[i]))
            svg << "<circle cx=\"" << number(to_x(item.xs[i])) << "\" cy=\"" << number(to_y(item.ys[i]))
                << "\" r=\"" << number(1.5 + s.width) << "\" fill=\"" << s.color << "\"/>\n";
        break;
      case Kind::ErrorBars:
        for (size_t i = 0; i < item.xs.size(); ++i) {
          const double px = to_x(item.xs[i]), lo = to_y(item.ys[i]), hi = to_y(item.ys2[i]);
          svg << "<path d=\"M" << number(px) << "," << number(lo) << "V" << number(hi) << "M"
              << number(px - 3) << "," << number(lo) << "h6M" << number(px - 3) << "," << number(hi)
              << "h6\" " << stroke(s) << "/>\n";
        }
        break;
      case Kind::Rect: {
        const double ax = to_x(item.xs[0]), bx = to_x(item.xs[1]);
        const double ay = to_y(item.ys[0]), by = to_y(item.ys[1]);
        svg << "<rect x=\"" << number(std::min(ax, bx)) << "\" y=\"" << number(std::min(ay, by))
            << "\" width=\"" << number(std::abs(bx - ax)) << "\" height=\"" << number(std::abs(by - ay))
            << "\" fill=\"" << s.color << "\" fill-opacity=\"" << number(s.opacity) << "\"/>\n";
        break;
      }
      case Kind::VLine:
        svg << "<line x1=\"" << number(to_x(item.xs[0])) << "\" y1=\"" << number(y0) << "\" x2=\""
            << number(to_x(item.xs[0])) << "\" y2=\"" << number(y1) << "\" " << stroke(s) << "/>\n";
        break;
      case Kind::HLine:
        svg << "<line x1=\"" << number(x0) << "\" y1=\"" << number(to_y(item.ys[0])) << "\" x2=\""
            << number(x1) << "\" y2=\"" << number(to_y(item.ys[0])) << "\" " << stroke(s) << "/>\n";
        break;
      case Kind::Text:
        svg << "<text x=\"" << number(to_x(item.xs[0])) << "\" y=\"" << number(to_y(item.ys[0]))
            << "\" font-size=\"11\" fill=\"" << s.color << "\">" << escape(item.content) << "</text>\n";
        break;
    }
  }
  svg << "</g>\n";

  // Legend: one row per labelled item, top left inside the panel.
  double legend_y = y1 + 14;
  for (const Item& item : items_) {
    if (item.style.label.empty()) continue;
    const bool filled = item.kind == Kind::Band || item.kind == Kind::Rect;
    svg << "<rect x=\"" << number(x0 + 6) << "\" y=\"" << number(legend_y - 8) << "\" width=\"14\" height=\""
        << (filled ? "8" : "2") << "\" fill=\"" << item.style.color << "\"/>"
        << "<text x=\"" << number(x0 + 24) << "\" y=\"" << number(legend_y) << "\" font-size=\"10\">"
        << escape(item.style.label) << "</text>\n";
    legend_y += 13;
  }

  svg << "<text x=\"" << number((x0 + x1) / 2) << "\" y=\"" << number(top + 18)
      << "\" font-size=\"13\" text-anchor=\"middle\">" << escape(title_) << "</text>\n";
  svg << "<text x=\"" << number((x0 + x1) / 2) << "\" y=\"" << number(top + height - 8)
      << "\" font-size=\"12\" text-anchor=\"middle\">" << escape(xlabel_) << "</text>\n";
  svg << "<text transform=\"translate(" << number(left + 14) << "," << number((y0 + y1) / 2)
      << ") rotate(-90)\" font-size=\"12\" text-anchor=\"middle\">" << escape(ylabel_) << "</text>\n";
  return svg.str();
}

SvgFigure::SvgFigure(int rows, int cols, double panel_width, double panel_height)
    : rows_(rows), cols_(cols), panel_width_(panel_width), panel_height_(panel_height) {
  if (rows <= 0 || cols <= 0) fail("SvgFigure: ", rows, "x", cols, " panels");
  axes_.resize(static_cast<size_t>(rows * cols));
}

Axes& SvgFigure::axes(int row, int col) {
  if (row < 0 || row >= rows_ || col < 0 || col >= cols_)
    fail("SvgFigure::axes: panel (", row, ",", col, ") of a ", rows_, "x", cols_, " figure");
  return axes_[static_cast<size_t>(row * cols_ + col)];
}

std::string SvgFigure::render() const {
  const double title_height = title_.empty() ? 0 : 24;
  const double width = cols_ * panel_width_, height = rows_ * panel_height_ + title_height;
  std::ostringstream svg;
  svg << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << number(width) << "\" height=\""
      << number(height) << "\" viewBox=\"0 0 " << number(width) << " " << number(height)
      << "\" font-family=\"Helvetica, Arial, sans-serif\">\n"
      << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  if (!title_.empty())
    svg << "<text x=\"" << number(width / 2) << "\" y=\"17\" font-size=\"15\" text-anchor=\"middle\">"
        << escape(title_) << "</text>\n";
  for (int r = 0; r < rows_; ++r)
    for (int c = 0; c < cols_; ++c)
      svg << axes_[static_cast<size_t>(r * cols_ + c)].render(
          c * panel_width_, title_height + r * panel_height_, panel_width_, panel_height_);
  svg << "</svg>\n";
  return svg.str();
}

}  // namespace empl

// Figures as SVG, drawn by empl itself: a grid of panels with axes, ticks, labels, lines, shaded
// bands, error bars, markers, rectangles and a legend. An SVG file opens in any browser, so the
// apps need no plotting library (and a test can read the figure back as text).
//
// Coordinates: each Axes maps data (x, y) into its panel; render() writes the whole figure.
//   SvgFigure figure(2, 1);                      // 2 rows, 1 column of panels
//   Axes& top = figure.axes(0, 0);
//   top.line(xs, ys, {.color = "#1f77b4", .label = "τ = 0.5"});
//   write_file_atomically("fig.svg", figure.render());
// Read after io/atomic_file.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace empl {

struct Style {
  std::string color = "#1f77b4";
  double width = 1.5;          // stroke width in pixels
  double opacity = 1.0;        // fill opacity of bands and rectangles
  bool dashed = false;
  std::string label;           // shown in the legend when not empty
};

// A colour from a perceptually ordered map (viridis-like), t in [0, 1]; for quantile levels.
std::string colormap(double t);

class Axes {
 public:
  void set_title(std::string title) { title_ = std::move(title); }
  void set_xlabel(std::string label) { xlabel_ = std::move(label); }
  void set_ylabel(std::string label) { ylabel_ = std::move(label); }
  void set_xlim(double lo, double hi) { xlim_ = {lo, hi}; }
  void set_ylim(double lo, double hi) { ylim_ = {lo, hi}; }
  void set_xlog(bool log) { xlog_ = log; }

  void line(const std::vector<double>& xs, const std::vector<double>& ys, const Style& style = {});
  // A staircase: value ys[i] held on [xs[i], xs[i+1]) (histograms, CDFs of discrete variables).
  void step(const std::vector<double>& xs, const std::vector<double>& ys, const Style& style = {});
  // A shaded region between two curves.
  void band(const std::vector<double>& xs, const std::vector<double>& lower,
            const std::vector<double>& upper, const Style& style = {});
  void markers(const std::vector<double>& xs, const std::vector<double>& ys, const Style& style = {});
  void error_bars(const std::vector<double>& xs, const std::vector<double>& lower,
                  const std::vector<double>& upper, const Style& style = {});
  void rect(double x0, double y0, double x1, double y1, const Style& style = {});
  void vline(double x, const Style& style = {});
  void hline(double y, const Style& style = {});
  void text(double x, double y, std::string content, const Style& style = {});

  // SVG of this panel inside the pixel box (left, top, width, height).
  std::string render(double left, double top, double width, double height) const;

 private:
  enum class Kind { Line, Step, Band, Markers, ErrorBars, Rect, VLine, HLine, Text };
  struct Item {
    Kind kind;
    std::vector<double> xs, ys, ys2;
    std::string content;
    Style style;
  };
  struct Range { double lo, hi; };
  Range x_range() const;
  Range y_range() const;

  std::vector<Item> items_;
  std::string title_, xlabel_, ylabel_;
  std::optional<Range> xlim_, ylim_;
  bool xlog_ = false;
};

class SvgFigure {
 public:
  SvgFigure(int rows, int cols, double panel_width = 360, double panel_height = 260);
  Axes& axes(int row, int col);
  void set_title(std::string title) { title_ = std::move(title); }
  std::string render() const;

 private:
  int rows_, cols_;
  double panel_width_, panel_height_;
  std::vector<Axes> axes_;
  std::string title_;
};

}  // namespace empl

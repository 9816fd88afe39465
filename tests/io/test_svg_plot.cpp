// The SVG figure writer: well-formed output with the items, labels and ticks that were drawn.
#include <doctest/doctest.h>

#include <string>

#include "core/error.hpp"
#include "io/svg_plot.hpp"

using namespace empl;

namespace {
size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}
}  // namespace

TEST_CASE("a figure renders every panel, item, label and legend entry") {
  SvgFigure figure(1, 2);
  figure.set_title("Quantiles & <truth>");
  Axes& left = figure.axes(0, 0);
  left.set_xlabel("bin");
  left.set_ylabel("cumulative");
  left.line({1, 2, 3}, {0.1, 0.5, 1.0}, {.color = colormap(0.5), .label = "tau = 0.5"});
  left.band({1, 2, 3}, {0, 0.3, 0.9}, {0.2, 0.7, 1.0}, {.opacity = 0.3});
  left.error_bars({1, 2}, {0.1, 0.2}, {0.3, 0.4});
  Axes& right = figure.axes(0, 1);
  right.set_xlog(true);
  right.step({1, 10, 100, 1000}, {0.0, 0.5, 1.0});
  const std::string svg = figure.render();
  CHECK(svg.rfind("<?xml", 0) == 0);
  CHECK(svg.find("</svg>") != std::string::npos);
  CHECK(count(svg, "<polyline") == 2);
  CHECK(count(svg, "<polygon") == 1);
  CHECK(svg.find("Quantiles &amp; &lt;truth&gt;") != std::string::npos);  // escaped
  CHECK(svg.find(">tau = 0.5<") != std::string::npos);
  CHECK(svg.find(">1000<") != std::string::npos);  // a decade tick on the log axis
  CHECK(count(svg, "<clipPath") == 2);
}

TEST_CASE("colormap runs from dark purple to yellow and clamps") {
  CHECK(colormap(0.0) == "#440154");
  CHECK(colormap(1.0) == "#fde725");
  CHECK(colormap(-3.0) == colormap(0.0));
  CHECK(colormap(7.0) == colormap(1.0));
}

TEST_CASE("mismatched data and a bad panel index are refused") {
  SvgFigure figure(1, 1);
  CHECK_THROWS_AS(figure.axes(0, 0).line({1, 2}, {1}), Error);
  CHECK_THROWS_AS(figure.axes(1, 0), Error);
  CHECK_THROWS_AS(SvgFigure(0, 1), Error);
}

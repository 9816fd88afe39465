// Fig. 4 (read figure.hpp first).
#include "apps/gamma_ray/figure.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

#include "apps/gamma_ray/experiment.hpp"
#include "core/error.hpp"
#include "graph/healpix.hpp"
#include "io/svg_plot.hpp"

namespace empl::gamma_ray {
namespace {

constexpr int kGrid = 48;  // cells per side of the map panel

double mean_bin(const Dataset& d, int64_t row) {
  double m = 0.0;
  for (int64_t j = 0; j < d.bins; ++j) m += static_cast<double>(j) * d.labels[static_cast<size_t>(row * d.bins + j)];
  return m;
}

void draw_map(Axes& axes, const Dataset& d, int64_t row) {
  const double roi = d.spec.roi_deg, deg = std::numbers::pi / 180.0;
  const int64_t nside = d.spec.nside, first = 4 * nside * nside;
  std::vector<double> cells(static_cast<size_t>(kGrid * kGrid), -1.0);
  std::vector<healpix::Vec3> directions;
  for (int iy = 0; iy < kGrid; ++iy)
    for (int ix = 0; ix < kGrid; ++ix) {
      const double l = (roi - (ix + 0.5) * 2.0 * roi / kGrid) * deg, b = (-roi + (iy + 0.5) * 2.0 * roi / kGrid) * deg;
      directions.push_back({std::cos(b) * std::cos(l), std::cos(b) * std::sin(l), std::sin(b)});
    }
  const std::vector<int64_t> pixels = healpix::vec2pix(nside, directions);
  double peak = 0.0;
  const uint16_t* counts = d.counts.data() + row * d.nodes;
  for (int64_t pixel : pixels) peak = std::max(peak, static_cast<double>(counts[pixel - first]));
  // One rectangle per run of equal colour along a row (a cell per rectangle made the file 4× larger).
  const double cell = 2.0 * roi / kGrid;
  for (int iy = 0; iy < kGrid; ++iy) {
    std::string run_color;
    int run_start = 0;
    const auto flush = [&](int end) {
      if (!run_color.empty())
        axes.rect(roi - end * cell, -roi + iy * cell, roi - run_start * cell, -roi + (iy + 1) * cell,
                  {.color = run_color, .width = 0.0, .opacity = 1.0});
    };
    for (int ix = 0; ix < kGrid; ++ix) {
      const healpix::Vec3& v = directions[static_cast<size_t>(iy * kGrid + ix)];
      std::string color;  // empty outside the disc
      if (v.x >= std::cos(roi * deg)) {
        const double c = counts[pixels[static_cast<size_t>(iy * kGrid + ix)] - first];
        color = colormap(peak > 0 ? std::log1p(c) / std::log1p(peak) : 0.0);
      }
      if (color != run_color) {
        flush(ix);
        run_color = color;
        run_start = ix;
      }
    }
    flush(kGrid);
  }
  char title[120];
  std::snprintf(title, sizeof title, "map %lld: %.0f counts, max %.0f/pixel (log colour)", static_cast<long long>(row),
                d.totals[static_cast<size_t>(row)], peak);
  axes.set_title(title);
  axes.set_xlabel("l [deg] (east left)");
  axes.set_ylabel("b [deg]");
  axes.set_xlim(-roi, roi);
  axes.set_ylim(-roi, roi);
}

}  // namespace

std::string figure_svg(GammaNetwork& model, const Dataset& data, const std::vector<int64_t>& rows, const std::string& loss,
                       bool quantile) {
  if (rows.size() < 3) fail("gamma_ray figure: ", rows.size(), " test maps, need at least 3");
  std::vector<int64_t> sorted = rows;
  std::sort(sorted.begin(), sorted.end(), [&](int64_t a, int64_t b) { return mean_bin(data, a) < mean_bin(data, b); });
  const int64_t n = static_cast<int64_t>(sorted.size());
  const std::vector<int64_t> chosen = {sorted[static_cast<size_t>(n / 10)], sorted[static_cast<size_t>(n / 2)],
                                       sorted[static_cast<size_t>(n - 1 - n / 10)]};
  const std::vector<float> taus = quantile ? std::vector<float>{0.05f, 0.25f, 0.5f, 0.75f, 0.95f} : std::vector<float>{0.5f};
  const int64_t levels = static_cast<int64_t>(taus.size()), bins = data.bins, median = quantile ? 2 : 0;
  const std::vector<float> q = predict(model, data, chosen, taus);
  SvgFigure figure(3, 3, 340, 250);
  figure.set_title("Gamma-ray example (Fig. 4): dim, medium and bright test maps; truth (black) vs " + loss + " network " +
                   (quantile ? "(median, 25-75% and 5-95% bands)" : "(its prediction)"));
  const char* names[] = {"dim", "medium", "bright"};
  std::vector<double> xs;
  for (int64_t j = 0; j <= bins; ++j) xs.push_back(static_cast<double>(j));  // bin j covers [j, j+1)
  for (size_t r = 0; r < chosen.size(); ++r) {
    draw_map(figure.axes(static_cast<int>(r), 0), data, chosen[r]);
    // cumulative[t][j] and density[t][j] of this map at level t, and the truth.
    std::vector<std::vector<double>> cumulative(static_cast<size_t>(levels)), density(static_cast<size_t>(levels));
    for (int64_t t = 0; t < levels; ++t) {
      double acc = 0.0;
      for (int64_t j = 0; j < bins; ++j) {
        const double v = q[static_cast<size_t>((static_cast<int64_t>(r) * levels + t) * bins + j)];
        density[static_cast<size_t>(t)].push_back(v);
        cumulative[static_cast<size_t>(t)].push_back(acc += v);
      }
      cumulative[static_cast<size_t>(t)].push_back(cumulative[static_cast<size_t>(t)].back());  // the last step's end
      density[static_cast<size_t>(t)].push_back(density[static_cast<size_t>(t)].back());
    }
    std::vector<double> truth, truth_cumulative;
    double acc = 0.0;
    for (int64_t j = 0; j < bins; ++j) {
      truth.push_back(data.labels[static_cast<size_t>(chosen[r] * bins + j)]);
      truth_cumulative.push_back(acc += truth.back());
    }
    truth.push_back(truth.back());
    truth_cumulative.push_back(truth_cumulative.back());
    for (int panel = 1; panel <= 2; ++panel) {
      Axes& axes = figure.axes(static_cast<int>(r), panel);
      const auto& curves = panel == 1 ? cumulative : density;
      axes.set_title(std::string(names[r]) + (panel == 1 ? ": cumulative histogram" : ": density histogram"));
      axes.set_xlabel("bin (3 counts each; last: >= 60 counts)");
      axes.set_ylabel(panel == 1 ? "fraction of counts, cumulative" : "fraction of counts");
      if (panel == 1) axes.set_ylim(0, 1.02);
      if (quantile) {
        // Densities at two levels need not be ordered bin by bin: the band spans both.
        std::vector<double> lo_outer, hi_outer, lo_inner, hi_inner;
        for (size_t j = 0; j < xs.size(); ++j) {
          lo_outer.push_back(std::min(curves[0][j], curves[4][j]));
          hi_outer.push_back(std::max(curves[0][j], curves[4][j]));
          lo_inner.push_back(std::min(curves[1][j], curves[3][j]));
          hi_inner.push_back(std::max(curves[1][j], curves[3][j]));
        }
        axes.band(xs, lo_outer, hi_outer, {.color = colormap(0.3), .opacity = 0.35, .label = "5-95%"});
        axes.band(xs, lo_inner, hi_inner, {.color = colormap(0.6), .opacity = 0.45, .label = "25-75%"});
      }
      axes.step(xs, curves[static_cast<size_t>(median)],
                {.color = "#d62728", .width = 1.5, .label = quantile ? "median" : "prediction"});
      axes.step(xs, panel == 1 ? truth_cumulative : truth, {.color = "black", .width = 2.0, .label = "truth"});
    }
  }
  return figure.render();
}

}  // namespace empl::gamma_ray

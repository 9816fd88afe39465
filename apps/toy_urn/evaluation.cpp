#include "apps/toy_urn/evaluation.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "apps/toy_urn/urn_data.hpp"
#include "apps/toy_urn/urn_math.hpp"
#include "io/svg_plot.hpp"
#include "training/quantiles.hpp"

namespace empl::toy_urn {
namespace {

constexpr int kTauCount = static_cast<int>(std::size(kTaus));
constexpr int kDrawCount = static_cast<int>(std::size(kDraws));

}  // namespace

QuantileTable evaluate(Module& model, bool feed_tau) {
  Tensor features = Tensor::empty({kDrawCount, 1});  // u for x draws; τ goes first (urn_data.hpp)
  for (int d = 0; d < kDrawCount; ++d) features[d] = static_cast<float>((input_for_draws(kDraws[d]) - 0.5) * 12.0);
  const QuantilePrediction prediction = evaluate_quantiles(model, features, kTaus, {.tau_column = 0, .feed_tau = feed_tau});
  QuantileTable table;
  table.predicted.assign(kDrawCount, std::vector<std::vector<double>>(kTauCount, std::vector<double>(kBins)));
  table.analytic = table.predicted;
  for (int d = 0; d < kDrawCount; ++d)
    for (int t = 0; t < kTauCount; ++t)
      for (int j = 0; j < kBins; ++j) {
        table.predicted[d][t][j] = prediction.at(d, t, j);
        table.analytic[d][t][j] = cumulative_quantile(kTaus[t], kDraws[d], j + 1, kBins);
      }
  return table;
}

std::string quantiles_csv(const QuantileTable& table) {
  std::ostringstream csv;
  csv << "x,tau,bin,predicted,analytic\n";
  char line[128];
  for (int d = 0; d < kDrawCount; ++d)
    for (int t = 0; t < kTauCount; ++t)
      for (int j = 0; j < kBins; ++j) {
        std::snprintf(line, sizeof line, "%lld,%.1f,%d,%.6f,%.6f\n", static_cast<long long>(kDraws[d]), kTaus[t], j + 1,
                      table.predicted[d][t][j], table.analytic[d][t][j]);
        csv << line;
      }
  return csv.str();
}

Accuracy accuracy(const QuantileTable& table) {
  Accuracy result;
  for (int d = 0; d < kDrawCount; ++d) {
    const int64_t x = kDraws[d];
    for (int t = 0; t < kTauCount; ++t)
      for (int j = 1; j < kBins; ++j) {  // bin N is 1 for every histogram
        const double p = table.predicted[d][t][j - 1], q = table.analytic[d][t][j - 1];
        if (x == 10 || x == 100) {
          // The true τ'-quantiles for |τ' − τ| ≤ 0.05 fill [Q(τ − 0.05), Q(τ + 0.05)].
          const double lo = cumulative_quantile(std::max(0.0f, kTaus[t] - 0.05f), x, j, kBins);
          const double hi = cumulative_quantile(std::min(1.0f, kTaus[t] + 0.05f), x, j, kBins);
          const double counts = std::max({0.0, lo - p, p - hi}) * x;
          (x == 10 ? result.x10_counts : result.x100_counts) = std::max(x == 10 ? result.x10_counts : result.x100_counts, counts);
        } else if (x == 1000) {
          result.x1000_abs = std::max(result.x1000_abs, std::abs(p - q));
          const int64_t count = std::llround(p * static_cast<double>(x));
          const double prob = static_cast<double>(j) / kBins;
          const double below = binomial_cdf(count - 1, x, prob), at = binomial_cdf(count, x, prob);
          result.x1000_tau = std::max({result.x1000_tau, below - kTaus[t], kTaus[t] - at});
        } else {
          const double step = static_cast<double>(kBins - j) / kBins;  // M_j jumps to 1 above τ = (N − j)/N
          if (std::abs(kTaus[t] - step) > 0.05 + 1e-9) result.x1_abs = std::max(result.x1_abs, std::abs(p - q));
        }
      }
  }
  return result;
}

std::string figure_svg(const QuantileTable& table, const std::vector<Comparison>& comparisons) {
  SvgFigure figure(kDrawCount, 2, 380, 280);
  figure.set_title("Toy urn, N = 5: predicted (solid) and analytic quantiles of the cumulative histogram");
  const std::vector<double> bins = {1, 2, 3, 4, 5};
  // The legend is drawn top left inside its panel. At x = 1 every corner holds a curve (the
  // τ = 0.9 line runs along M_j = 1 from bin 1), so the legend goes to the x = 1000 panel, whose
  // curves stay below 0.45 over bins 1-2; τ is labelled at 0.1, 0.5 and 0.9 only (the colours
  // between follow the same ramp), which keeps the legend above them.
  const int legend_panel = kDrawCount - 1;
  for (int d = 0; d < kDrawCount; ++d) {
    const int64_t x = kDraws[d];
    const bool legend = d == legend_panel;
    Axes& left = figure.axes(d, 0);
    left.set_title("x = " + std::to_string(x) + " draws");
    left.set_xlabel("bin j");
    left.set_ylabel("cumulative M_j");
    left.set_ylim(-0.05, 1.05);
    for (int t = 0; t < kTauCount; ++t) {
      char label[32];
      std::snprintf(label, sizeof label, "tau = %.1f", kTaus[t]);
      const bool labelled = legend && (t == 0 || t == kTauCount / 2 || t == kTauCount - 1);
      left.line(bins, table.predicted[d][t], {.color = colormap(kTaus[t]), .label = labelled ? label : ""});
    }
    left.markers(bins, table.analytic[d][0], {.color = "#555555", .width = 1.0, .label = legend ? "analytic 10%/90%" : ""});
    left.markers(bins, table.analytic[d][kTauCount - 1], {.color = "#555555", .width = 1.0});
    left.line(bins, table.analytic[d][kTauCount / 2], {.color = "#d4a017", .dashed = true, .label = legend ? "analytic median" : ""});
    for (size_t c = 0; c < comparisons.size(); ++c) {
      const std::string color = c == 0 ? "#d62728" : "#17becf";
      if (x == 1) left.line(bins, comparisons[c].cumulative, {.color = color, .width = 2.5, .dashed = true});
      // An empty line: only its legend entry, in the legend's panel.
      if (legend) left.line({}, {}, {.color = color, .width = 2.5, .dashed = true, .label = comparisons[c].label + " at x = 1"});
    }

    // Right: the CDF of M_3 = l/x, l ~ Bin(x, 3/5), over the range where it rises. M_3 lies in
    // [0, 1]: the staircase's last step is held for one count (1/x), but at x = 1 that would run
    // the axis to 2, so there it is held for 0.1 only and the axis is [-0.1, 1.1].
    Axes& right = figure.axes(d, 1);
    right.set_title("CDF of M_3, x = " + std::to_string(x));
    right.set_xlabel("M_3");
    right.set_ylabel("F(M_3)");
    right.set_ylim(0, 1.02);
    std::vector<double> values, cdf;
    for (int64_t l = 0; l <= x; ++l) {
      const double f = binomial_cdf(l, x, 0.6);
      if (f < 1e-4 && l + 1 <= x && binomial_cdf(l + 1, x, 0.6) < 1e-4) continue;
      values.push_back(static_cast<double>(l) / x);
      cdf.push_back(f);
      if (f > 1 - 1e-4) break;
    }
    const double hold = std::min(1.0 / x, 0.1);
    if (values.front() == 0.0) {  // F = 0 below M_3 = 0, drawn over the same margin
      values.insert(values.begin(), -hold);
      cdf.insert(cdf.begin(), 0.0);
    }
    values.push_back(values.back() + hold);
    right.set_xlim(values.front(), values.back());
    right.step(values, cdf, {.color = "black"});
    for (int t = 0; t < kTauCount; ++t) {
      right.hline(kTaus[t], {.color = "#bbbbbb", .width = 0.8, .dashed = true});
      right.vline(table.predicted[d][t][2], {.color = colormap(kTaus[t]), .width = 1.5});
      right.vline(table.analytic[d][t][2], {.color = colormap(kTaus[t]), .width = 1.0, .dashed = true});
    }
  }
  return figure.render();
}

}  // namespace empl::toy_urn

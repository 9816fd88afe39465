#include "apps/bimodal/calibration.hpp"

#include <algorithm>
#include <cmath>

#include "core/parallel.hpp"
#include "training/quantiles.hpp"

namespace empl::bimodal {

float tau_level(int k) { return 0.025f * static_cast<float>(k + 1); }
double alpha_level(int k) { return 0.05 * (k + 1); }

std::vector<std::vector<double>> predict_quantiles(Module& model, const BimodalInput& input, bool gaussian) {
  float levels[kLevels];
  for (int k = 0; k < kLevels; ++k) levels[k] = tau_level(k);
  Tensor features = Tensor::empty({1, kFeatures - 1});
  fill_features(input, features.data());
  // The Gaussian network sees τ too, but its quantiles are μ + σ·Φ⁻¹(τ).
  const QuantilePrediction prediction = evaluate_quantiles(
      model, features, levels, {.tau_column = 0, .head = gaussian ? QuantileHead::gaussian : QuantileHead::density});
  std::vector<std::vector<double>> quantiles(kLevels, std::vector<double>(kBins));
  for (int k = 0; k < kLevels; ++k)
    for (int j = 0; j < kBins; ++j) quantiles[k][j] = prediction.at(0, k, j);
  return quantiles;
}

std::vector<std::vector<double>> sample_truth(const BimodalInput& input, int64_t samples, uint64_t seed) {
  std::vector<std::vector<double>> truth(static_cast<size_t>(samples), std::vector<double>(kBins));
  parallel_for(samples, 256, [&](int64_t begin, int64_t end) {
    float histogram[kBins];
    for (int64_t s = begin; s < end; ++s) {
      draw_histogram(input, seed, /*stream=*/0xCA11B, static_cast<uint64_t>(s), histogram);
      double running = 0.0;
      for (int j = 0; j < kBins; ++j) truth[static_cast<size_t>(s)][j] = running += histogram[j];
    }
  });
  return truth;
}

std::vector<double> coverage_curve(const std::vector<std::vector<double>>& quantiles,
                                   const std::vector<std::vector<double>>& truth) {
  std::vector<double> coverage(kAlphas);
  for (int a = 0; a < kAlphas; ++a) {
    // α = 0.05(a + 1): the range between levels (1 − α)/2 and (1 + α)/2, i.e. k = 19 ∓ (a + 1).
    const int lower = kLevels / 2 - (a + 1), upper = kLevels / 2 + (a + 1);
    int64_t inside = 0, counted = 0;
    for (const auto& sample : truth)
      for (int j = 0; j < kBins; ++j) {
        const double m = sample[j];
        if (m < 1e-5 || m > 1.0 - 1e-5) continue;
        ++counted;
        inside += quantiles[lower][j] <= m && m <= quantiles[upper][j];
      }
    coverage[a] = counted ? static_cast<double>(inside) / counted : NAN;
  }
  return coverage;
}

std::vector<std::vector<double>> truth_quantiles(const std::vector<std::vector<double>>& truth) {
  std::vector<std::vector<double>> quantiles(kLevels, std::vector<double>(kBins));
  std::vector<double> column(truth.size());
  for (int j = 0; j < kBins; ++j) {
    for (size_t s = 0; s < truth.size(); ++s) column[s] = truth[s][j];
    std::sort(column.begin(), column.end());
    for (int k = 0; k < kLevels; ++k) {
      const size_t index = std::min(column.size() - 1, static_cast<size_t>(std::ceil(tau_level(k) * column.size())) - 1);
      quantiles[k][j] = column[index];
    }
  }
  return quantiles;
}

}  // namespace empl::bimodal

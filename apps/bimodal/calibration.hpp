// Calibration of the bimodal example (supplementary S2, Fig. S2): for a fixed input X, draw
// 65,536 fresh label histograms, predict the quantiles of their cumulative values at
// τ = 0.025, 0.050, …, 0.975, and measure, for α = 0.05, …, 0.95, the fraction of samples and
// bins whose true cumulative value lies in the predicted symmetric α-interquantile range
// [Q((1 − α)/2), Q((1 + α)/2)] (bins with true value in [1e-5, 1 − 1e-5] only).
#pragma once

#include <string>
#include <vector>

#include "apps/bimodal/bimodal_data.hpp"
#include "layers/module.hpp"

namespace empl::bimodal {

inline constexpr int kLevels = 39;   // τ = 0.025·k, k = 1..39
inline constexpr int kAlphas = 19;   // α = 0.05·k, k = 1..19
inline const BimodalInput kPaperInputs[] = {{0.5, 0.5, 0.5}, {0.8, 0.2, 0.2}, {0.2, 0.8, 0.8}};

float tau_level(int k);   // 0.025·(k + 1)
double alpha_level(int k);  // 0.05·(k + 1)

// Predicted cumulative quantiles [kLevels][N] for input X, from an EMPL model (softmax output)
// or a Gaussian one (μ + σ·Φ⁻¹(τ)).
std::vector<std::vector<double>> predict_quantiles(Module& model, const BimodalInput& input, bool gaussian);

// `samples` true cumulative histograms for input X, [samples][N], from seed (fixed stream).
std::vector<std::vector<double>> sample_truth(const BimodalInput& input, int64_t samples, uint64_t seed);

// Coverage per α (kAlphas values) of the truth by the predicted ranges.
std::vector<double> coverage_curve(const std::vector<std::vector<double>>& quantiles,
                                   const std::vector<std::vector<double>>& truth);

// Empirical quantiles of the truth per level and bin, [kLevels][N] (for the figure).
std::vector<std::vector<double>> truth_quantiles(const std::vector<std::vector<double>>& truth);

}  // namespace empl::bimodal

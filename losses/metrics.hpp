// Evaluation metrics (no gradients): the numbers of the paper's Table 1 and of the calibration
// plots. Histograms are [B, N] rows; every metric is a mean over the batch.
// They are the losses' quantities without a tape: read after losses/regression.hpp and
// losses/earth_movers.hpp (MAE, MSE, EM1, EM2) and losses/quantile_crossing.hpp.
#pragma once

#include <cmath>
#include <vector>

#include "core/tensor.hpp"

namespace empl {

double mae(const Tensor& predicted, const Tensor& target);                // (1/BN) Σ |q̃ − q|
double mse(const Tensor& predicted, const Tensor& target);                // (1/BN) Σ (q̃ − q)²
double em1(const Tensor& predicted, const Tensor& target);                // (1/BN) Σ |Q̃ − Q|
double em2(const Tensor& predicted, const Tensor& target);                // sqrt((1/BN) Σ (Q̃ − Q)²)
double histogram_intersection(const Tensor& predicted, const Tensor& target);  // (1/B) Σ_b Σ_j min(q̃, q)

// The fraction of elements with lower ≤ truth ≤ upper, counting only the elements whose truth
// lies in [valid_low, valid_high] (the bimodal example skips cumulative values within 1e-5 of 0
// or 1). All three tensors have the same shape. Returns NaN when no element counts.
double coverage(const Tensor& lower, const Tensor& upper, const Tensor& truth, double valid_low = -INFINITY,
                double valid_high = INFINITY);

// Quantile crossings: `levels` holds predictions [B, N] for increasing τ; counts the (level,
// sample, bin) triples where the prediction at the next τ is lower by more than `tolerance`.
int64_t quantile_crossings(const std::vector<Tensor>& levels, float tolerance = 0.0f);

}  // namespace empl

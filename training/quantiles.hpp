// Evaluation of a trained quantile network at a list of τ levels (paper section 2.5): the network
// takes (τ − 0.5)·12 (layers/tau_input.hpp) as one more input column, so the quantile curves of
// S samples at T levels are one forward pass over S·T rows. What it returns is the predicted
// cumulative histogram per sample and level: cumsum(softmax output) for an EMPL network, and
// μ + σ·Φ⁻¹(τ) per bin for the Gaussian baseline (losses/gaussian_nll.hpp).
// Read after training/loop.hpp; apps/toy_urn/evaluation.cpp shows it in use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/tensor.hpp"
#include "layers/module.hpp"

namespace empl {

enum class QuantileHead {
  density,   // the network outputs a density [rows, N] (softmax last): cumulative = cumsum
  gaussian,  // [rows, 2N]: means and log-variances; quantile = μ + σ·Φ⁻¹(τ)
  // [rows, N + 1] (layers/total_head.hpp): a density, then the τ-quantile of the (standardised)
  // log total count, returned raw in QuantilePrediction::totals
  density_with_total,
};

struct QuantileQuery {
  int64_t tau_column = -1;  // where the τ feature goes in each input row, 0..F; -1: last (after the F features)
  QuantileHead head = QuantileHead::density;
  // false: a network trained without τ (EM1, cross-entropy) sees τ = 0.5 on every row, so every
  // level gets the same curve.
  bool feed_tau = true;
};

// Cumulative values [S, T, N], row-major, in double: the Gaussian quantiles are computed in
// double from float μ and σ (the density head's float values widen exactly).
struct QuantilePrediction {
  int64_t samples = 0, levels = 0, bins = 0;
  std::vector<double> values;
  std::vector<double> totals;  // [S, T], the last output column; density_with_total only
  double at(int64_t sample, int64_t level, int64_t bin) const { return values[(sample * levels + level) * bins + bin]; }
};

// features [S, F] (standardised, without τ), taus T levels in [0, 1] ((0, 1) for the Gaussian
// head). Puts the model in evaluation mode and runs it without a tape record; input row s·T + t
// is sample s at level t.
QuantilePrediction evaluate_quantiles(Module& model, const Tensor& features, std::span<const float> taus,
                                      const QuantileQuery& query = {});

}  // namespace empl

// Evaluation of a quantile network at a list of τ levels: one forward pass over S·T rows, then the
// cumulative sum of its softmax output (or the Gaussian head's μ + σ·Φ⁻¹(τ)).
// Read training/quantiles.hpp first.
#include "training/quantiles.hpp"

#include <algorithm>

#include "autograd/tape.hpp"
#include "core/error.hpp"
#include "core/rowwise.hpp"
#include "layers/tau_input.hpp"
#include "losses/gaussian_nll.hpp"

namespace empl {

QuantilePrediction evaluate_quantiles(Module& model, const Tensor& features, std::span<const float> taus,
                                      const QuantileQuery& query) {
  if (features.rank() != 2) fail("evaluate_quantiles: features are ", features.shape(), ", expected [S, F]");
  const int64_t samples = features.shape()[0], width = features.shape()[1], levels = static_cast<int64_t>(taus.size());
  const bool gaussian = query.head == QuantileHead::gaussian;
  const bool with_total = query.head == QuantileHead::density_with_total;
  if (levels == 0) fail("evaluate_quantiles: no tau levels given");
  for (const float tau : taus)
    if (!(gaussian ? tau > 0.0f && tau < 1.0f : tau >= 0.0f && tau <= 1.0f))
      fail("evaluate_quantiles: tau ", tau, " is outside ", gaussian ? "(0, 1) (the Gaussian head needs Phi^-1(tau))" : "[0, 1]");
  const int64_t column = query.tau_column < 0 ? width : query.tau_column;
  if (column > width) fail("evaluate_quantiles: tau_column ", query.tau_column, " is beyond the ", width, " feature columns");

  // Rows s·T + t: the features of sample s with the τ feature of level t inserted at `column`.
  const int64_t rows = samples * levels, inputs_width = width + 1;
  Tensor inputs = Tensor::empty({rows, inputs_width}, "quantile evaluation inputs");
  for (int64_t s = 0; s < samples; ++s)
    for (int64_t t = 0; t < levels; ++t) {
      const float* x = features.data() + s * width;
      float* row = inputs.data() + (s * levels + t) * inputs_width;
      std::copy_n(x, column, row);
      row[column] = tau_feature(query.feed_tau ? taus[static_cast<size_t>(t)] : 0.5f);
      std::copy_n(x + column, width - column, row + column + 1);
    }

  model.eval();
  Tape tape;
  Tape::NoGrad no_grad(tape);
  const Tensor output = model.forward(tape, Var(inputs)).value;
  if (output.rank() != 2 || output.shape()[0] != rows || (gaussian && output.shape()[1] % 2 != 0) ||
      (with_total && output.shape()[1] < 2))
    fail("evaluate_quantiles: the model's output is ", output.shape(), " for ", rows, " input rows; expected [", rows,
         gaussian ? ", 2N] (Gaussian head)" : with_total ? ", N + 1] (density and total)" : ", N]");
  const int64_t width_out = output.shape()[1];
  QuantilePrediction prediction{samples, levels, gaussian ? width_out / 2 : with_total ? width_out - 1 : width_out, {}, {}};
  const int64_t bins = prediction.bins;
  prediction.values.resize(static_cast<size_t>(rows * bins));
  if (gaussian) {
    Tensor mean = Tensor::empty({rows, bins}), std = Tensor::empty({rows, bins});
    gaussian_mean_and_std(output, mean, std);
    for (int64_t r = 0; r < rows; ++r) {
      const double z = normal_quantile(taus[static_cast<size_t>(r % levels)]);
      for (int64_t j = 0; j < bins; ++j) prediction.values[r * bins + j] = mean[r * bins + j] + std[r * bins + j] * z;
    }
  } else if (with_total) {
    // The density's cumulative sum row by row, in float as cumsum() sums it; then the total column.
    prediction.totals.resize(static_cast<size_t>(rows));
    for (int64_t r = 0; r < rows; ++r) {
      float running = 0.0f;
      for (int64_t j = 0; j < bins; ++j) prediction.values[r * bins + j] = running += output[r * width_out + j];
      prediction.totals[r] = output[r * width_out + bins];
    }
  } else {
    const Tensor cumulative = cumsum(output);
    std::copy_n(cumulative.data(), rows * bins, prediction.values.begin());
  }
  return prediction;
}

}  // namespace empl

// Bin-wise regression losses on density histograms, the paper's per-bin baselines:
//   MAE = (1/(B·N)) Σ |q̃ − q|      MSE = (1/(B·N)) Σ (q̃ − q)²
// They compare each bin on its own and ignore the order of the bins.
// Both are computed by losses/pointwise_loss.hpp (cumulative = false): read that first.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

Var mae_loss(Tape& tape, const Var& predicted, const Tensor& target);
Var mse_loss(Tape& tape, const Var& predicted, const Tensor& target);

}  // namespace empl

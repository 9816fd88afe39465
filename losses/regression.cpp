// MAE and MSE (the equations are in regression.hpp) on the pointwise-loss engine without
// cumulative sums: MAE = (1/(B·N)) Σ |q̃ − q|, MSE = (1/(B·N)) Σ (q̃ − q)².
// Read regression.hpp first, then losses/pointwise_loss.hpp.
#include "losses/regression.hpp"

#include "losses/loss_checks.hpp"
#include "losses/pointwise_loss.hpp"

namespace empl {

Var mae_loss(Tape& tape, const Var& predicted, const Tensor& target) {
  check_histograms("mae_loss", predicted.value, target, /*normalised=*/false);
  return pointwise_loss(tape, "mae", PointwiseLoss::Absolute, /*cumulative=*/false, predicted, target);
}

Var mse_loss(Tape& tape, const Var& predicted, const Tensor& target) {
  check_histograms("mse_loss", predicted.value, target, /*normalised=*/false);
  return pointwise_loss(tape, "mse", PointwiseLoss::Squared, /*cumulative=*/false, predicted, target);
}

}  // namespace empl

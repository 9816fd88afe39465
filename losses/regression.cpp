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

#include "losses/empl.hpp"

#include <cmath>

#include "core/error.hpp"
#include "losses/loss_checks.hpp"
#include "losses/pointwise_loss.hpp"

namespace empl {

Var empl_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau, float alpha) {
  check_histograms("empl_loss", predicted.value, target, /*normalised=*/true);
  check_tau("empl_loss", tau, predicted.shape()[0]);
  if (!(alpha >= 0.0f) || !std::isfinite(alpha))
    fail("empl_loss: alpha = ", alpha, " must be >= 0 (0: plain EMPL, > 0: smoothed)");
  return pointwise_loss(tape, "empl", alpha > 0.0f ? PointwiseLoss::SmoothPinball : PointwiseLoss::Pinball,
                        /*cumulative=*/true, predicted, target, tau, alpha);
}

Var pinball_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau) {
  if (predicted.shape() != target.shape() || predicted.value.rank() != 2 || predicted.shape()[1] != 1)
    fail("pinball_loss: predicted is ", predicted.shape(), ", target is ", target.shape(), ": both must be [B,1]");
  check_histograms("pinball_loss", predicted.value, target, /*normalised=*/false);
  check_tau("pinball_loss", tau, predicted.shape()[0]);
  return pointwise_loss(tape, "pinball", PointwiseLoss::Pinball, /*cumulative=*/false, predicted, target, tau, 0.0f);
}

}  // namespace empl

// EM1 and EM2 (the equations are in earth_movers.hpp) on the pointwise-loss engine with
// cumulative sums: EM1 = (1/(B·N)) Σ |Q̃ − Q|, EM2 = sqrt((1/(B·N)) Σ (Q̃ − Q)²), the root taken
// by the autograd sqrt. Read earth_movers.hpp first, then losses/pointwise_loss.hpp.
#include "losses/earth_movers.hpp"

#include "autograd/elementwise.hpp"
#include "losses/loss_checks.hpp"
#include "losses/pointwise_loss.hpp"

namespace empl {

Var em1_loss(Tape& tape, const Var& predicted, const Tensor& target) {
  check_histograms("em1_loss", predicted.value, target, /*normalised=*/true);
  return pointwise_loss(tape, "em1", PointwiseLoss::Absolute, /*cumulative=*/true, predicted, target);
}

Var em2_loss(Tape& tape, const Var& predicted, const Tensor& target) {
  check_histograms("em2_loss", predicted.value, target, /*normalised=*/true);
  // d sqrt(m)/dm = 1/(2 sqrt m): infinite when the prediction is exact, as for any root loss.
  return sqrt(tape, pointwise_loss(tape, "em2_squared", PointwiseLoss::Squared, /*cumulative=*/true,
                                   predicted, target));
}

}  // namespace empl

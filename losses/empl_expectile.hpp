// The L2 variant of the EMPL that the paper names after the smoothed EMPL (end of section 2.5):
// the asymmetric squared loss of expectile regression (Aigner et al. 1976, Newey & Powell 1987)
// applied to the cumulative histograms, as the EMPL applies the pinball loss to them.
//
//   u_bj = Q_bj − Q̃_bj   (truth − prediction, the y − ỹ of the pinball loss, eq. 4)
//   L = (1/(B·N)) Σ_b Σ_j |τ_b − 1[u_bj < 0]|·u_bj²
//
// Its minimiser in each bin is the τ-expectile of the cumulative histogram: the mean at τ = 0.5,
// where L is half the mean squared cumulative difference (EM2²/2). Read losses/empl.* first.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

// predicted, target: density histograms [B, N] (targets summing to 1); tau [B, 1] in [0, 1], one
// level per sample, as for empl_loss (same arguments, so a caller can swap one for the other).
// The gradient flows to `predicted`. Refuses NaNs, unnormalised targets and τ outside [0, 1].
Var expectile_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau);

}  // namespace empl

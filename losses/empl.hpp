// The Earth Mover's Pinball Loss (paper eq. 9 and the appendix code), the loss empl is named for.
//
//   δ_bj = Q̃_bj − Q_bj   with Q̃, Q the cumulative sums of the predicted and true histograms,
//   EMPL = (1/(B·N)) Σ_b Σ_j (1[δ_bj ≥ 0] − τ_b)·δ_bj
//   smoothed (α > 0): (1/(B·N)) Σ (−τ_b·δ_bj + α·softplus(δ_bj/α))
//
// Minimising it over τ ~ U(0, 1) makes a network fed τ predict the τ-quantile of the cumulative
// histogram in every bin (paper, Proposition 1). At τ = 0.5 it is half the Earth Mover's
// distance EM1. Each τ_b is the sample's own quantile level (paper section 2.5).
#pragma once

#include "autograd/tape.hpp"

namespace empl {

// predicted, target: density histograms [B, N] (rows summing to 1; predicted from a softmax);
// tau [B, 1] in [0, 1]; alpha = 0 for the plain loss, > 0 for the smoothed one. The gradient
// flows to `predicted`. Refuses NaNs, unnormalised targets, τ outside [0, 1] and α < 0.
Var empl_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau, float alpha = 0.0f);

// The pinball loss of scalar quantile regression (paper eq. 4), mean over the batch:
// predicted, target, tau all [B, 1].
Var pinball_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau);

}  // namespace empl

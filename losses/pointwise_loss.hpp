// The shared engine of the losses that are a mean of a function of a difference:
//   L = (1/(B·N)) Σ_b Σ_j f(δ_bj, τ_b),   δ = Q̃ − Q,
// where Q̃, Q are the predicted and target histograms themselves (MAE, MSE, the pinball loss) or
// their cumulative sums along the bins (the EMPL, EM1, EM2). One fused pass computes f and
// f' = ∂f/∂δ per element; the backward multiplies by the output gradient and, for cumulative
// losses, takes the reverse cumulative sum (the adjoint of cumsum) to reach the prediction.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

struct LossTerm {
  float value;       // f(δ, τ)
  float derivative;  // ∂f/∂δ
};

enum class PointwiseLoss { Pinball, SmoothPinball, Absolute, Squared };

// predicted [B, N] (gradient flows here), target [B, N], tau [B, 1] (or undefined when f does not
// use it), alpha: the smoothing of SmoothPinball. Inputs are assumed checked by the caller.
Var pointwise_loss(Tape& tape, const char* name, PointwiseLoss kind, bool cumulative,
                   const Var& predicted, const Tensor& target, const Tensor& tau, float alpha);

// f and f' for one element (also used by the metrics and the tests).
LossTerm loss_term(PointwiseLoss kind, float delta, float tau, float alpha);

}  // namespace empl

// The shared engine of the baseline losses that are a mean of |δ| or δ²:
//   L = (1/(B·N)) Σ_b Σ_j f(δ_bj),   δ = Q̃ − Q,
// where Q̃, Q are the predicted and target histograms themselves (MAE, MSE) or their cumulative
// sums along the bins (EM1, EM2). One fused pass computes f and f' = ∂f/∂δ per element; the
// backward multiplies by the output gradient and, for cumulative losses, takes the reverse
// cumulative sum (the adjoint of cumsum) to reach the prediction. The EMPL has the same shape
// and is written out on its own in losses/empl.cpp: read that first.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

enum class PointwiseLoss { Absolute, Squared };

// predicted [B, N] (gradient flows here), target [B, N]. Inputs are assumed checked by the caller.
Var pointwise_loss(Tape& tape, const char* name, PointwiseLoss kind, bool cumulative,
                   const Var& predicted, const Tensor& target);

}  // namespace empl

// Earth Mover's distances between 1-D histograms (paper eq. 7): with normalised histograms the
// 1-Wasserstein distance is the L¹ distance between the cumulative histograms.
//   EM1 = (1/(B·N)) Σ |Q̃ − Q|           (= 2·EMPL at τ = 0.5)
//   EM2 = sqrt((1/(B·N)) Σ (Q̃ − Q)²)    (the root of the mean square, as the authors' code takes it)
// Both are computed by losses/pointwise_loss.hpp on the cumulative sums: read that first.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

// predicted, target: density histograms [B, N]; the gradient flows to `predicted`.
Var em1_loss(Tape& tape, const Var& predicted, const Tensor& target);
Var em2_loss(Tape& tape, const Var& predicted, const Tensor& target);

}  // namespace empl

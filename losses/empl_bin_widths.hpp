// The EMPL with a ground distance for unequal bins. The paper (after eq. 10) notes that the EMPL
// takes the distance between bins i and j as ∝ |i − j|, and lists flexible ground distances among
// its extensions. Here bins have edges e_0 < e_1 < … < e_N, widths w_j = e_j − e_{j−1}, and each
// cumulative difference counts with its bin's width: eq. 9's integral ∫ ρ_τ(Q̃(t) − Q(t)) dt with
// the cumulative histogram held at Q_j across bin j, divided by the total width W = Σ_j w_j:
//
//   L = (1/(B·W)) Σ_b Σ_j w_j·ρ_τb(δ_bj),   δ_bj = Q̃_bj − Q_bj,   ρ_τ as in losses/empl.hpp
//
// Equal widths give w_j/W = 1/N, the EMPL; for widths that are a power of 2 (1 included) the bits
// are the EMPL's too. Read losses/empl.* first.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

// predicted, target: density histograms [B, N] (targets summing to 1); tau [B, 1] in [0, 1];
// bin_edges [N + 1], finite and strictly increasing (any units: only the ratios w_j/W matter);
// alpha = 0 for the plain loss, > 0 for the smoothed one. The gradient flows to `predicted`.
Var empl_bin_widths_loss(Tape& tape, const Var& predicted, const Tensor& target, const Tensor& tau,
                         const Tensor& bin_edges, float alpha = 0.0f);

}  // namespace empl

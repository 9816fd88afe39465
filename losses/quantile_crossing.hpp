// A quantile-crossing penalty for a network evaluated at several τ at once. Takeuchi, Le, Sears
// & Smola (2006, "Nonparametric quantile estimation", JMLR 7) constrain quantile estimates not to
// cross: f_τ(x) ≤ f_τ'(x) for τ < τ'. The paper (section 2.5) says such crossing penalty terms
// could be added to the EMPL. With Q̃_{b,t,j} the predicted cumulative histogram of sample b at
// its t-th level, levels τ_b1 < … < τ_bT, the hinge penalty is
//
//   P = (1/(B·(T−1)·N)) Σ_b Σ_{t<T} Σ_j max(0, Q̃_{b,t,j} − Q̃_{b,t+1,j})
//
// 0 when every bin's quantile grows with τ, else the mean amount by which it falls. Train on
// EMPL + λ·P. Read losses/empl.* first; losses/metrics.hpp counts crossings (no gradient).
#pragma once

#include <cstdint>

#include "autograd/tape.hpp"

namespace empl {

// predicted: density histograms [B·T, N] (the network's softmax outputs, as given to empl_loss;
// the penalty takes their cumulative sums), rows grouped by sample: rows b·T … b·T + T − 1 are
// sample b at its T levels. tau [B·T, 1]: each row's level, strictly increasing within every
// group (checked: the order is what the penalty is about). levels = T ≥ 2. Targets are not needed.
// The gradient flows to `predicted`.
Var quantile_crossing_penalty(Tape& tape, const Var& predicted, const Tensor& tau, int64_t levels);

}  // namespace empl

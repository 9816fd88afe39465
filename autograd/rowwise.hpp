// Differentiable row operations along the last axis (core/rowwise.hpp):
//   cumsum:      y_j = Σ_{k ≤ j} x_k            dx_k = Σ_{j ≥ k} dy_j   (a reverse cumsum)
//   softmax:     y_j = e^{x_j} / Σ_k e^{x_k}    dx = y ⊙ (dy − Σ_j dy_j y_j)
//   log_softmax: y_j = x_j − log Σ_k e^{x_k}    dx = dy − softmax(x) · Σ_j dy_j
// Read after autograd/reduce.hpp.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

Var cumsum(Tape& tape, const Var& x);
Var softmax(Tape& tape, const Var& x);
Var log_softmax(Tape& tape, const Var& x);

}  // namespace empl

// Differentiable reductions: sum, mean and max, over all elements (a one-element result of
// shape []) or over one axis (kept with extent 1).
//   sum:  ∂/∂x_i = 1      mean: ∂/∂x_i = 1/n      max: ∂/∂x_i = 1 at the first maximum, else 0
// Read after autograd/elementwise.hpp.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

Var sum(Tape& tape, const Var& x);
Var mean(Tape& tape, const Var& x);
Var max(Tape& tape, const Var& x);
Var sum(Tape& tape, const Var& x, int axis);
Var mean(Tape& tape, const Var& x, int axis);
Var max(Tape& tape, const Var& x, int axis);

}  // namespace empl

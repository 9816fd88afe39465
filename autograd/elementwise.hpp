// Differentiable elementwise ops. Each forward calls a kernel of core/elementwise.hpp; each
// backward sits next to it with its derivative written as maths.
//
// Binary ops broadcast b as a row [1, n] or a column [m, 1] (core/elementwise.hpp); the gradient
// of a broadcast b is summed over the axis it was broadcast along.
// Read after autograd/tape.hpp.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

Var neg(Tape& tape, const Var& x);
Var exp(Tape& tape, const Var& x);
Var log(Tape& tape, const Var& x);
Var sqrt(Tape& tape, const Var& x);
Var abs(Tape& tape, const Var& x);
Var relu(Tape& tape, const Var& x);
Var sigmoid(Tape& tape, const Var& x);
Var softplus(Tape& tape, const Var& x);
Var step(Tape& tape, const Var& x);   // 1[x ≥ 0]: zero gradient almost everywhere, records nothing
Var sign(Tape& tape, const Var& x);   // likewise

Var add(Tape& tape, const Var& a, const Var& b);
Var sub(Tape& tape, const Var& a, const Var& b);
Var mul(Tape& tape, const Var& a, const Var& b);
Var div(Tape& tape, const Var& a, const Var& b);
Var maximum(Tape& tape, const Var& a, const Var& b);
Var minimum(Tape& tape, const Var& a, const Var& b);

Var add_scalar(Tape& tape, const Var& x, float s);
Var mul_scalar(Tape& tape, const Var& x, float s);
Var sub_scalar(Tape& tape, const Var& x, float s);
Var div_scalar(Tape& tape, const Var& x, float s);
Var clamp(Tape& tape, const Var& x, float lo, float hi);

}  // namespace empl

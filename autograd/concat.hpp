// Differentiable concatenation and column slicing along the last axis (core/concat.hpp). The
// gradient of a concatenation is cut back into the pieces; that of a slice is added into the
// sliced columns. A node holds at most three inputs, so concat takes two or three tensors —
// enough for its use here, appending τ (and a count) as input columns.
// Read after autograd/elementwise.hpp.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

Var concat(Tape& tape, const Var& a, const Var& b);
Var concat(Tape& tape, const Var& a, const Var& b, const Var& c);
Var slice_columns(Tape& tape, const Var& x, int64_t begin, int64_t end);

}  // namespace empl

// Differentiable matrix product, the worked example of how an op is written on the tape.
//
// y = op(a) · op(b). With dy the gradient of y, the chain rule gives, for y = a·b,
//   da += dy · bᵀ     db += aᵀ · dy
// and the transposed variants follow by transposing both sides. Each is one sgemm with beta = 1,
// which accumulates straight into the input gradients: no temporary, no transposed copy.
// Read after autograd/tape.hpp.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

// a: [M, K] (or [K, M] when transpose_a), b: [K, N] (or [N, K]) -> [M, N].
Var matmul(Tape& tape, const Var& a, const Var& b, bool transpose_a = false,
           bool transpose_b = false);

}  // namespace empl

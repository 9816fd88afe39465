// Operations along the last axis of every row: cumulative sum, softmax and log-softmax.
//
// These are the steps from a network's logits to the predicted cumulative histogram
// (paper section 2.5): q̃ = softmax(l̃), Q̃_j = Σ_{r ≤ j} q̃_r, so Q̃ is normalised (Q̃_N = 1) and
// monotone in j by construction. Softmax subtracts the row maximum first, so that logits of
// ±10⁴ neither overflow nor lose the row.
// Read after core/reduce.hpp; autograd/rowwise.hpp gives their gradients.
#pragma once

#include "core/tensor.hpp"

namespace empl {

void cumsum(const Tensor& x, Tensor& out);          // out[r, j] = Σ_{k ≤ j} x[r, k]
void reverse_cumsum(const Tensor& x, Tensor& out);  // out[r, j] = Σ_{k ≥ j} x[r, k] (cumsum's adjoint)
void softmax(const Tensor& x, Tensor& out);
void log_softmax(const Tensor& x, Tensor& out);

Tensor cumsum(const Tensor& x);
Tensor softmax(const Tensor& x);

}  // namespace empl

// The quantile level as a network input (paper section 2.5): τ appears twice, as an input that
// tells the network which quantile to predict, and in the loss. Following the paper, the input
// is scaled to (τ − 0.5)·12, about the range of the other standardised inputs.
// Read after layers/linear.hpp.
#pragma once

#include "autograd/tape.hpp"

namespace empl {

inline float tau_feature(float tau) { return (tau - 0.5f) * 12.0f; }

// [B, F] features and a [B, 1] τ -> [B, F + 1] with (τ − 0.5)·12 as the last column. The
// gradient flows to x (τ is data, not learned).
Var append_tau(Tape& tape, const Var& x, const Tensor& tau);

}  // namespace empl

// The checks every loss makes on its inputs before it computes anything, so that a NaN, a
// histogram that does not sum to 1 or a τ outside [0, 1] stops training with a message that
// names the loss, the argument and the value instead of silently producing a wrong model.
//
// The losses refuse rather than normalise: a target that does not sum to 1 is a bug in the data
// pipeline, and normalising it quietly would hide that bug.
// Read after core/tensor.hpp; every loss in losses/ calls these before anything else.
#pragma once

#include "core/tensor.hpp"

namespace empl {

// predicted and target both [B, N] and finite. With `normalised`, every target row sums to 1
// within 1e-3 (predictions come out of a softmax and are normalised by construction).
void check_histograms(const char* loss, const Tensor& predicted, const Tensor& target, bool normalised);
// tau is [B, 1] with every value in [0, 1].
void check_tau(const char* loss, const Tensor& tau, int64_t batch);

}  // namespace empl

// The bimodal toy of the paper's supplementary S2: histograms whose cumulative values have a
// two-peaked distribution in every bin, so that a Gaussian per bin cannot describe them.
//
// Input X = (ξ, b1, b2) ~ U(0,1)³. Label over N = 10 bins j = 0..9: with probability ξ the first
// line, line1_j = j + Normal(0, b1), else the second, line2_j = −j + Normal(0, b2); then the row
// minimum is subtracted and the row normalised to sum 1. The network sees
// ((τ − 0.5)·12, (ξ − 0.5)·12, (b1 − 0.5)·12, (b2 − 0.5)·12).
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace empl::bimodal {

inline constexpr int kBins = 10;
inline constexpr int kFeatures = 4;  // τ, ξ, b1, b2

struct BimodalInput {
  double xi, b1, b2;
};

// One label histogram for the given input, from the generator of sample (seed, stream, index).
void draw_histogram(const BimodalInput& input, uint64_t seed, uint64_t stream, uint64_t index,
                    float* histogram /* [kBins] */);

// A training batch: inputs [B, 4] (τ first), labels [B, N], tau [B, 1]; X and τ drawn per sample
// from U(0,1). Sample i of step s uses the generator (seed, s, i): any thread count, same batch.
// Row r holds sample first + r: an MPI rank draws its own rows of the global batch (issue 14).
void make_batch(uint64_t seed, uint64_t step, Tensor& inputs, Tensor& labels, Tensor& tau, int64_t first = 0);

// The network's features of X without τ: ((ξ − 0.5)·12, (b1 − 0.5)·12, (b2 − 0.5)·12).
void fill_features(const BimodalInput& input, float* row /* [kFeatures - 1] */);

}  // namespace empl::bimodal

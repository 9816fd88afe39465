// Training batches of the toy example (paper section 3.1): for each sample, u ~ U(0,1),
// x = round(10^(3u)) draws from an urn of N = 5 balls, the label is the histogram of the drawn
// numbers divided by x (a multinomial draw), and τ ~ U(0,1). The network sees
// ((τ − 0.5)·12, (u − 0.5)·12): both inputs scaled to about [−6, 6].
#pragma once

#include <cstdint>

#include "core/tensor.hpp"

namespace empl::toy_urn {

inline constexpr int kBins = 5;
inline constexpr int kFeatures = 2;  // τ, u

// The number of draws for an input u in [0, 1]: round(10^(3u)), so 1..1000.
int64_t draws_for(double u);
// The input u that gives exactly x draws: log10(x) / 3.
double input_for_draws(int64_t draws);

// inputs [B, 2], labels [B, N], tau [B, 1]. Sample i of step s uses the generator (seed, s, i),
// so a batch is the same for any thread count. With `fixed_tau` ≥ 0, every τ is that value (for
// losses that take no τ, such as EM1 or cross-entropy). Row r holds sample first + r: an MPI
// rank draws its own rows of the global batch (issue 14).
void make_batch(uint64_t seed, uint64_t step, Tensor& inputs, Tensor& labels, Tensor& tau,
                float fixed_tau = -1.0f, int64_t first = 0);

}  // namespace empl::toy_urn

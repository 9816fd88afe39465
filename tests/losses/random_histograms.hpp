// Test inputs shared by the tests of the EMPL family: random normalised histograms and τ levels.
#pragma once

#include <cstring>
#include <random>

#include "core/tensor.hpp"

namespace empl::testing {

// Random normalised histograms [B, N] (exponentials normalised: Dirichlet(1, …, 1)).
inline Tensor random_histograms(int64_t rows, int64_t bins, uint32_t seed) {
  std::mt19937 engine(seed);
  std::exponential_distribution<float> exponential(1.0f);
  Tensor h = Tensor::empty({rows, bins});
  for (int64_t r = 0; r < rows; ++r) {
    float total = 0.0f;
    for (int64_t j = 0; j < bins; ++j) total += h[r * bins + j] = exponential(engine);
    for (int64_t j = 0; j < bins; ++j) h[r * bins + j] /= total;
  }
  return h;
}

// τ [B, 1], uniform in [0, 1].
inline Tensor random_tau(int64_t rows, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Tensor tau = Tensor::empty({rows, 1});
  for (int64_t r = 0; r < rows; ++r) tau[r] = uniform(engine);
  return tau;
}

// True when both tensors hold the same floats bit for bit (so +0 and −0 differ, NaNs compare).
inline bool same_bits(const Tensor& a, const Tensor& b) {
  return a.shape() == b.shape() && std::memcmp(a.data(), b.data(), sizeof(float) * a.numel()) == 0;
}

}  // namespace empl::testing

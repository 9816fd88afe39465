// Random numbers: an explicit, counter-based generator. No hidden global state.
//
// Every random number in empl is addressed by a triple (seed, stream, index): `Rng(seed, stream,
// index)` mixes the triple with splitmix64 into the 256-bit state of a xoshiro256** generator.
// Streams separate the uses of one seed (weight init, dropout masks, the data of step s, ...);
// the index is usually the sample within a batch. Sample i therefore gets the same numbers
// whichever thread fills it and whatever the thread count, and a run resumed at step s draws
// exactly the batches it would have drawn without stopping.
//
// Distributions are exact: normal by the Marsaglia polar method, Poisson by multiplication (small
// means) or Hörmann's PTRS transformed rejection, binomial by inversion (small n·p) or Hörmann's
// BTRD, multinomial by conditional binomials (O(bins) for any number of trials).
// Read after core/tensor.hpp.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "core/tensor.hpp"

namespace empl {

class Rng {
 public:
  explicit Rng(uint64_t seed, uint64_t stream = 0, uint64_t index = 0);

  uint64_t next_u64();
  float uniform();                        // [0, 1), 24 random bits
  float uniform(float lo, float hi);      // [lo, hi)
  double uniform_double();                // [0, 1), 53 random bits
  uint64_t uniform_int(uint64_t n);       // {0, ..., n − 1} without modulo bias; n > 0
  double normal_double();                 // standard normal
  float normal() { return static_cast<float>(normal_double()); }
  int64_t poisson(double mean);
  int64_t binomial(int64_t trials, double p);
  // counts[j] ~ the number of the `trials` draws that fall in category j (probabilities sum to 1).
  void multinomial(int64_t trials, std::span<const double> probabilities, std::span<int64_t> counts);
  void permutation(std::span<int> out);   // a uniformly random permutation of 0..n−1
  std::vector<int> permutation(int n);

 private:
  int64_t binomial_inversion(int64_t trials, double p);
  int64_t binomial_btrd(int64_t trials, double p);
  std::array<uint64_t, 4> state_;
  double spare_normal_ = 0.0;
  bool has_spare_normal_ = false;
};

// Fill a tensor with U[lo, hi) or Normal(mean, std), element i from Rng(seed, stream, i / 256):
// blocks of 256 elements share a generator, so the result is the same for any thread count.
void fill_uniform(Tensor& tensor, float lo, float hi, uint64_t seed, uint64_t stream);
void fill_normal(Tensor& tensor, float mean, float std, uint64_t seed, uint64_t stream);

}  // namespace empl
